from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_envelope import ErrorEnvelope
from ...models.get_wallet_transactions_response_200 import (
    GetWalletTransactionsResponse200,
)
from ...types import UNSET, Response, Unset


def _get_kwargs(
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
        "url": "/api/v1/wallet/transactions",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | GetWalletTransactionsResponse200 | None:
    if response.status_code == 200:
        response_200 = GetWalletTransactionsResponse200.from_dict(response.json())

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
) -> Response[ErrorEnvelope | GetWalletTransactionsResponse200]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    page: int | Unset = 1,
    limit: int | Unset = 20,
) -> Response[ErrorEnvelope | GetWalletTransactionsResponse200]:
    """Transactions sent from the wallet, newest first

     Family W (wallet token). Every transaction the wallet sent, one entry per nonce, with its tracking
    status (`pending`, `mined`, `failed`, `dropped` or `cancelled`; `signing` briefly, before its
    broadcast), its `replacements` and the `minedHash`; gap fills the service signed (`kind: gap_fill`)
    too. Query `page` (from 1) and `limit`; the answer is `{data, pagination}` with `total`,
    `totalPages`, `hasNext`, `hasPrev`.

    Args:
        page (int | Unset): Page number, from 1. Default: 1.
        limit (int | Unset): Records per page, at most 100. Default: 20.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | GetWalletTransactionsResponse200]
    """

    kwargs = _get_kwargs(
        page=page,
        limit=limit,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    page: int | Unset = 1,
    limit: int | Unset = 20,
) -> ErrorEnvelope | GetWalletTransactionsResponse200 | None:
    """Transactions sent from the wallet, newest first

     Family W (wallet token). Every transaction the wallet sent, one entry per nonce, with its tracking
    status (`pending`, `mined`, `failed`, `dropped` or `cancelled`; `signing` briefly, before its
    broadcast), its `replacements` and the `minedHash`; gap fills the service signed (`kind: gap_fill`)
    too. Query `page` (from 1) and `limit`; the answer is `{data, pagination}` with `total`,
    `totalPages`, `hasNext`, `hasPrev`.

    Args:
        page (int | Unset): Page number, from 1. Default: 1.
        limit (int | Unset): Records per page, at most 100. Default: 20.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | GetWalletTransactionsResponse200
    """

    return sync_detailed(
        client=client,
        page=page,
        limit=limit,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    page: int | Unset = 1,
    limit: int | Unset = 20,
) -> Response[ErrorEnvelope | GetWalletTransactionsResponse200]:
    """Transactions sent from the wallet, newest first

     Family W (wallet token). Every transaction the wallet sent, one entry per nonce, with its tracking
    status (`pending`, `mined`, `failed`, `dropped` or `cancelled`; `signing` briefly, before its
    broadcast), its `replacements` and the `minedHash`; gap fills the service signed (`kind: gap_fill`)
    too. Query `page` (from 1) and `limit`; the answer is `{data, pagination}` with `total`,
    `totalPages`, `hasNext`, `hasPrev`.

    Args:
        page (int | Unset): Page number, from 1. Default: 1.
        limit (int | Unset): Records per page, at most 100. Default: 20.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | GetWalletTransactionsResponse200]
    """

    kwargs = _get_kwargs(
        page=page,
        limit=limit,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    page: int | Unset = 1,
    limit: int | Unset = 20,
) -> ErrorEnvelope | GetWalletTransactionsResponse200 | None:
    """Transactions sent from the wallet, newest first

     Family W (wallet token). Every transaction the wallet sent, one entry per nonce, with its tracking
    status (`pending`, `mined`, `failed`, `dropped` or `cancelled`; `signing` briefly, before its
    broadcast), its `replacements` and the `minedHash`; gap fills the service signed (`kind: gap_fill`)
    too. Query `page` (from 1) and `limit`; the answer is `{data, pagination}` with `total`,
    `totalPages`, `hasNext`, `hasPrev`.

    Args:
        page (int | Unset): Page number, from 1. Default: 1.
        limit (int | Unset): Records per page, at most 100. Default: 20.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | GetWalletTransactionsResponse200
    """

    return (
        await asyncio_detailed(
            client=client,
            page=page,
            limit=limit,
        )
    ).parsed
