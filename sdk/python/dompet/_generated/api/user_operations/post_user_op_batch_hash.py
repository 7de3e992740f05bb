from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.batch import Batch
from ...models.error_envelope import ErrorEnvelope
from ...models.post_user_op_batch_hash_response_200 import (
    PostUserOpBatchHashResponse200,
)
from ...types import Response


def _get_kwargs(
    *,
    body: Batch,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/userOp/batch/hash",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | PostUserOpBatchHashResponse200 | None:
    if response.status_code == 200:
        response_200 = PostUserOpBatchHashResponse200.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = ErrorEnvelope.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ErrorEnvelope.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ErrorEnvelope.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorEnvelope.from_dict(response.json())

        return response_404

    if response.status_code == 415:
        response_415 = ErrorEnvelope.from_dict(response.json())

        return response_415

    if response.status_code == 422:
        response_422 = ErrorEnvelope.from_dict(response.json())

        return response_422

    if response.status_code == 500:
        response_500 = ErrorEnvelope.from_dict(response.json())

        return response_500

    if response.status_code == 502:
        response_502 = ErrorEnvelope.from_dict(response.json())

        return response_502

    if response.status_code == 503:
        response_503 = ErrorEnvelope.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ErrorEnvelope | PostUserOpBatchHashResponse200]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: Batch,
) -> Response[ErrorEnvelope | PostUserOpBatchHashResponse200]:
    """Build a batch of calls (executeBatch: in order, all or none) (state `created`) and return the hash
    the owner signs

     Family S. Builds a batch of calls (executeBatch: in order, all or none) (state `created`, valid
    until `validUntil`) and returns its ERC-4337 hash: have the owner sign it and send it to `POST
    /api/v1/userOp/submit`.

    Args:
        body (Batch): Several calls in one operation (`executeBatch`), in order, all or none.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PostUserOpBatchHashResponse200]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: Batch,
) -> ErrorEnvelope | PostUserOpBatchHashResponse200 | None:
    """Build a batch of calls (executeBatch: in order, all or none) (state `created`) and return the hash
    the owner signs

     Family S. Builds a batch of calls (executeBatch: in order, all or none) (state `created`, valid
    until `validUntil`) and returns its ERC-4337 hash: have the owner sign it and send it to `POST
    /api/v1/userOp/submit`.

    Args:
        body (Batch): Several calls in one operation (`executeBatch`), in order, all or none.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PostUserOpBatchHashResponse200
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: Batch,
) -> Response[ErrorEnvelope | PostUserOpBatchHashResponse200]:
    """Build a batch of calls (executeBatch: in order, all or none) (state `created`) and return the hash
    the owner signs

     Family S. Builds a batch of calls (executeBatch: in order, all or none) (state `created`, valid
    until `validUntil`) and returns its ERC-4337 hash: have the owner sign it and send it to `POST
    /api/v1/userOp/submit`.

    Args:
        body (Batch): Several calls in one operation (`executeBatch`), in order, all or none.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PostUserOpBatchHashResponse200]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: Batch,
) -> ErrorEnvelope | PostUserOpBatchHashResponse200 | None:
    """Build a batch of calls (executeBatch: in order, all or none) (state `created`) and return the hash
    the owner signs

     Family S. Builds a batch of calls (executeBatch: in order, all or none) (state `created`, valid
    until `validUntil`) and returns its ERC-4337 hash: have the owner sign it and send it to `POST
    /api/v1/userOp/submit`.

    Args:
        body (Batch): Several calls in one operation (`executeBatch`), in order, all or none.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PostUserOpBatchHashResponse200
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
