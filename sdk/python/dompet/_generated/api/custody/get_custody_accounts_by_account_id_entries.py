from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_envelope import ErrorEnvelope
from ...models.get_custody_accounts_by_account_id_entries_response_200 import (
    GetCustodyAccountsByAccountIdEntriesResponse200,
)
from ...types import UNSET, Response, Unset


def _get_kwargs(
    account_id: str,
    *,
    page: int | Unset = 1,
    limit: int | Unset = 20,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["page"] = page

    params["limit"] = limit

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/custody/accounts/{account_id}/entries".format(
            account_id=quote(str(account_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | GetCustodyAccountsByAccountIdEntriesResponse200 | None:
    if response.status_code == 200:
        response_200 = GetCustodyAccountsByAccountIdEntriesResponse200.from_dict(
            response.json()
        )

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
) -> Response[ErrorEnvelope | GetCustodyAccountsByAccountIdEntriesResponse200]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    account_id: str,
    *,
    client: AuthenticatedClient,
    page: int | Unset = 1,
    limit: int | Unset = 20,
) -> Response[ErrorEnvelope | GetCustodyAccountsByAccountIdEntriesResponse200]:
    """An account's journal, newest first (for reconciliation)

     Family S. The account's double-entry journal (credits, holds, releases, debits, corrections) with
    the balances after each entry, for reconciliation. Query `page` (from 1) and `limit`; the answer is
    `{data, pagination}` with `total`, `totalPages`, `hasNext`, `hasPrev`.

    Args:
        account_id (str):
        page (int | Unset): Page number, from 1. Default: 1.
        limit (int | Unset): Records per page, at most 100. Default: 20.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | GetCustodyAccountsByAccountIdEntriesResponse200]
    """

    kwargs = _get_kwargs(
        account_id=account_id,
        page=page,
        limit=limit,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    account_id: str,
    *,
    client: AuthenticatedClient,
    page: int | Unset = 1,
    limit: int | Unset = 20,
) -> ErrorEnvelope | GetCustodyAccountsByAccountIdEntriesResponse200 | None:
    """An account's journal, newest first (for reconciliation)

     Family S. The account's double-entry journal (credits, holds, releases, debits, corrections) with
    the balances after each entry, for reconciliation. Query `page` (from 1) and `limit`; the answer is
    `{data, pagination}` with `total`, `totalPages`, `hasNext`, `hasPrev`.

    Args:
        account_id (str):
        page (int | Unset): Page number, from 1. Default: 1.
        limit (int | Unset): Records per page, at most 100. Default: 20.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | GetCustodyAccountsByAccountIdEntriesResponse200
    """

    return sync_detailed(
        account_id=account_id,
        client=client,
        page=page,
        limit=limit,
    ).parsed


async def asyncio_detailed(
    account_id: str,
    *,
    client: AuthenticatedClient,
    page: int | Unset = 1,
    limit: int | Unset = 20,
) -> Response[ErrorEnvelope | GetCustodyAccountsByAccountIdEntriesResponse200]:
    """An account's journal, newest first (for reconciliation)

     Family S. The account's double-entry journal (credits, holds, releases, debits, corrections) with
    the balances after each entry, for reconciliation. Query `page` (from 1) and `limit`; the answer is
    `{data, pagination}` with `total`, `totalPages`, `hasNext`, `hasPrev`.

    Args:
        account_id (str):
        page (int | Unset): Page number, from 1. Default: 1.
        limit (int | Unset): Records per page, at most 100. Default: 20.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | GetCustodyAccountsByAccountIdEntriesResponse200]
    """

    kwargs = _get_kwargs(
        account_id=account_id,
        page=page,
        limit=limit,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    account_id: str,
    *,
    client: AuthenticatedClient,
    page: int | Unset = 1,
    limit: int | Unset = 20,
) -> ErrorEnvelope | GetCustodyAccountsByAccountIdEntriesResponse200 | None:
    """An account's journal, newest first (for reconciliation)

     Family S. The account's double-entry journal (credits, holds, releases, debits, corrections) with
    the balances after each entry, for reconciliation. Query `page` (from 1) and `limit`; the answer is
    `{data, pagination}` with `total`, `totalPages`, `hasNext`, `hasPrev`.

    Args:
        account_id (str):
        page (int | Unset): Page number, from 1. Default: 1.
        limit (int | Unset): Records per page, at most 100. Default: 20.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | GetCustodyAccountsByAccountIdEntriesResponse200
    """

    return (
        await asyncio_detailed(
            account_id=account_id,
            client=client,
            page=page,
            limit=limit,
        )
    ).parsed
