from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_envelope import ErrorEnvelope
from ...models.get_user_op_owner_by_owner_id_response_200 import (
    GetUserOpOwnerByOwnerIdResponse200,
)
from ...types import UNSET, Response, Unset


def _get_kwargs(
    owner_id: str,
    *,
    page: int | Unset = 1,
    limit: int | Unset = 10,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["page"] = page

    params["limit"] = limit

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/userOp/owner/{owner_id}".format(
            owner_id=quote(str(owner_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | GetUserOpOwnerByOwnerIdResponse200 | None:
    if response.status_code == 200:
        response_200 = GetUserOpOwnerByOwnerIdResponse200.from_dict(response.json())

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

    if response.status_code == 500:
        response_500 = ErrorEnvelope.from_dict(response.json())

        return response_500

    if response.status_code == 503:
        response_503 = ErrorEnvelope.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ErrorEnvelope | GetUserOpOwnerByOwnerIdResponse200]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    owner_id: str,
    *,
    client: AuthenticatedClient,
    page: int | Unset = 1,
    limit: int | Unset = 10,
) -> Response[ErrorEnvelope | GetUserOpOwnerByOwnerIdResponse200]:
    """Submitted operations of one owner (record id or address), newest first

     Family S. Operations submitted for one owner; `ownerId` is the owner record id or the owner address.
    Query `page` (from 1) and `limit`; the answer is `{data, pagination}` with `total`, `totalPages`,
    `hasNext`, `hasPrev`.

    Args:
        owner_id (str):
        page (int | Unset): Page number, from 1. Default: 1.
        limit (int | Unset): Records per page, at most 100. Default: 10.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | GetUserOpOwnerByOwnerIdResponse200]
    """

    kwargs = _get_kwargs(
        owner_id=owner_id,
        page=page,
        limit=limit,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    owner_id: str,
    *,
    client: AuthenticatedClient,
    page: int | Unset = 1,
    limit: int | Unset = 10,
) -> ErrorEnvelope | GetUserOpOwnerByOwnerIdResponse200 | None:
    """Submitted operations of one owner (record id or address), newest first

     Family S. Operations submitted for one owner; `ownerId` is the owner record id or the owner address.
    Query `page` (from 1) and `limit`; the answer is `{data, pagination}` with `total`, `totalPages`,
    `hasNext`, `hasPrev`.

    Args:
        owner_id (str):
        page (int | Unset): Page number, from 1. Default: 1.
        limit (int | Unset): Records per page, at most 100. Default: 10.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | GetUserOpOwnerByOwnerIdResponse200
    """

    return sync_detailed(
        owner_id=owner_id,
        client=client,
        page=page,
        limit=limit,
    ).parsed


async def asyncio_detailed(
    owner_id: str,
    *,
    client: AuthenticatedClient,
    page: int | Unset = 1,
    limit: int | Unset = 10,
) -> Response[ErrorEnvelope | GetUserOpOwnerByOwnerIdResponse200]:
    """Submitted operations of one owner (record id or address), newest first

     Family S. Operations submitted for one owner; `ownerId` is the owner record id or the owner address.
    Query `page` (from 1) and `limit`; the answer is `{data, pagination}` with `total`, `totalPages`,
    `hasNext`, `hasPrev`.

    Args:
        owner_id (str):
        page (int | Unset): Page number, from 1. Default: 1.
        limit (int | Unset): Records per page, at most 100. Default: 10.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | GetUserOpOwnerByOwnerIdResponse200]
    """

    kwargs = _get_kwargs(
        owner_id=owner_id,
        page=page,
        limit=limit,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    owner_id: str,
    *,
    client: AuthenticatedClient,
    page: int | Unset = 1,
    limit: int | Unset = 10,
) -> ErrorEnvelope | GetUserOpOwnerByOwnerIdResponse200 | None:
    """Submitted operations of one owner (record id or address), newest first

     Family S. Operations submitted for one owner; `ownerId` is the owner record id or the owner address.
    Query `page` (from 1) and `limit`; the answer is `{data, pagination}` with `total`, `totalPages`,
    `hasNext`, `hasPrev`.

    Args:
        owner_id (str):
        page (int | Unset): Page number, from 1. Default: 1.
        limit (int | Unset): Records per page, at most 100. Default: 10.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | GetUserOpOwnerByOwnerIdResponse200
    """

    return (
        await asyncio_detailed(
            owner_id=owner_id,
            client=client,
            page=page,
            limit=limit,
        )
    ).parsed
