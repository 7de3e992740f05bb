from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_envelope import ErrorEnvelope
from ...models.get_wallet_transactions_by_hash_response_200 import (
    GetWalletTransactionsByHashResponse200,
)
from ...types import Response


def _get_kwargs(
    hash_: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/wallet/transactions/{hash_}".format(
            hash_=quote(str(hash_), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | GetWalletTransactionsByHashResponse200 | None:
    if response.status_code == 200:
        response_200 = GetWalletTransactionsByHashResponse200.from_dict(response.json())

        return response_200

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
) -> Response[ErrorEnvelope | GetWalletTransactionsByHashResponse200]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    hash_: str,
    *,
    client: AuthenticatedClient,
) -> Response[ErrorEnvelope | GetWalletTransactionsByHashResponse200]:
    """One transaction sent from the wallet, with its tracking status

     Family W (wallet token). One transaction the wallet sent, by hash: look a send up here instead of
    resending it after a timeout or `409 IDEMPOTENCY_OUTCOME_UNKNOWN`. Any hash signed at its nonce (the
    first send's or a replacement's) answers the same record.

    Args:
        hash_ (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | GetWalletTransactionsByHashResponse200]
    """

    kwargs = _get_kwargs(
        hash_=hash_,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    hash_: str,
    *,
    client: AuthenticatedClient,
) -> ErrorEnvelope | GetWalletTransactionsByHashResponse200 | None:
    """One transaction sent from the wallet, with its tracking status

     Family W (wallet token). One transaction the wallet sent, by hash: look a send up here instead of
    resending it after a timeout or `409 IDEMPOTENCY_OUTCOME_UNKNOWN`. Any hash signed at its nonce (the
    first send's or a replacement's) answers the same record.

    Args:
        hash_ (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | GetWalletTransactionsByHashResponse200
    """

    return sync_detailed(
        hash_=hash_,
        client=client,
    ).parsed


async def asyncio_detailed(
    hash_: str,
    *,
    client: AuthenticatedClient,
) -> Response[ErrorEnvelope | GetWalletTransactionsByHashResponse200]:
    """One transaction sent from the wallet, with its tracking status

     Family W (wallet token). One transaction the wallet sent, by hash: look a send up here instead of
    resending it after a timeout or `409 IDEMPOTENCY_OUTCOME_UNKNOWN`. Any hash signed at its nonce (the
    first send's or a replacement's) answers the same record.

    Args:
        hash_ (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | GetWalletTransactionsByHashResponse200]
    """

    kwargs = _get_kwargs(
        hash_=hash_,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    hash_: str,
    *,
    client: AuthenticatedClient,
) -> ErrorEnvelope | GetWalletTransactionsByHashResponse200 | None:
    """One transaction sent from the wallet, with its tracking status

     Family W (wallet token). One transaction the wallet sent, by hash: look a send up here instead of
    resending it after a timeout or `409 IDEMPOTENCY_OUTCOME_UNKNOWN`. Any hash signed at its nonce (the
    first send's or a replacement's) answers the same record.

    Args:
        hash_ (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | GetWalletTransactionsByHashResponse200
    """

    return (
        await asyncio_detailed(
            hash_=hash_,
            client=client,
        )
    ).parsed
