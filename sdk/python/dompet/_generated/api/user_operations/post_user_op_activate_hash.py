from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.activate import Activate
from ...models.error_envelope import ErrorEnvelope
from ...models.post_user_op_activate_hash_response_200 import (
    PostUserOpActivateHashResponse200,
)
from ...types import Response


def _get_kwargs(
    *,
    body: Activate,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/userOp/activate/hash",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | PostUserOpActivateHashResponse200 | None:
    if response.status_code == 200:
        response_200 = PostUserOpActivateHashResponse200.from_dict(response.json())

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
) -> Response[ErrorEnvelope | PostUserOpActivateHashResponse200]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: Activate,
) -> Response[ErrorEnvelope | PostUserOpActivateHashResponse200]:
    """Build an operation that only deploys the account (empty call); submit it like any other

     Family S. Deploys the counterfactual account without doing anything else (any first operation
    deploys it too); an `eip7702` account's delegates the wallet. Sign the hash and submit it like any
    other operation.

    Args:
        body (Activate): Deploy the account only (an operation with an empty call); an EIP-7702
            account: delegate the wallet.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PostUserOpActivateHashResponse200]
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
    body: Activate,
) -> ErrorEnvelope | PostUserOpActivateHashResponse200 | None:
    """Build an operation that only deploys the account (empty call); submit it like any other

     Family S. Deploys the counterfactual account without doing anything else (any first operation
    deploys it too); an `eip7702` account's delegates the wallet. Sign the hash and submit it like any
    other operation.

    Args:
        body (Activate): Deploy the account only (an operation with an empty call); an EIP-7702
            account: delegate the wallet.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PostUserOpActivateHashResponse200
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: Activate,
) -> Response[ErrorEnvelope | PostUserOpActivateHashResponse200]:
    """Build an operation that only deploys the account (empty call); submit it like any other

     Family S. Deploys the counterfactual account without doing anything else (any first operation
    deploys it too); an `eip7702` account's delegates the wallet. Sign the hash and submit it like any
    other operation.

    Args:
        body (Activate): Deploy the account only (an operation with an empty call); an EIP-7702
            account: delegate the wallet.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PostUserOpActivateHashResponse200]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: Activate,
) -> ErrorEnvelope | PostUserOpActivateHashResponse200 | None:
    """Build an operation that only deploys the account (empty call); submit it like any other

     Family S. Deploys the counterfactual account without doing anything else (any first operation
    deploys it too); an `eip7702` account's delegates the wallet. Sign the hash and submit it like any
    other operation.

    Args:
        body (Activate): Deploy the account only (an operation with an empty call); an EIP-7702
            account: delegate the wallet.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PostUserOpActivateHashResponse200
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
