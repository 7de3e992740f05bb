from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.cancel_request import CancelRequest
from ...models.error_envelope import ErrorEnvelope
from ...models.post_wallet_transactions_by_hash_cancel_response_200 import (
    PostWalletTransactionsByHashCancelResponse200,
)
from ...types import UNSET, Response, Unset


def _get_kwargs(
    hash_: str,
    *,
    body: CancelRequest,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/wallet/transactions/{hash_}/cancel".format(
            hash_=quote(str(hash_), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | PostWalletTransactionsByHashCancelResponse200 | None:
    if response.status_code == 200:
        response_200 = PostWalletTransactionsByHashCancelResponse200.from_dict(
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

    if response.status_code == 409:
        response_409 = ErrorEnvelope.from_dict(response.json())

        return response_409

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
) -> Response[ErrorEnvelope | PostWalletTransactionsByHashCancelResponse200]:
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
    body: CancelRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[ErrorEnvelope | PostWalletTransactionsByHashCancelResponse200]:
    """Cancel a pending transaction: a 0-value send to the wallet itself at its nonce

     Family W (wallet token). Signs a 0-value send from the wallet to itself at the pending transaction's
    nonce, at the next bump's fees (at least 10% more, and what the chain asks now, up to the network's
    fee ceiling: `422 FEE_ABOVE_CEILING`), and broadcasts it. If the cancel is mined the record becomes
    `cancelled` and nothing was sent but the fee; if the transaction is mined first, it stays `mined`.
    `secret`: A+C sign instead of A+B. `hash`: any hash of the record. A transaction no longer pending
    is `409 TRANSACTION_FINAL`. Answers the cancel as sends answer (`{txReceipt}`). Honours
    `Idempotency-Key`.

    Args:
        hash_ (str):
        idempotency_key (str | Unset):
        body (CancelRequest): Nothing but the optional `secret`: the cancel is a 0-value send to
            the wallet itself at the transaction's
            nonce, at the next bump's fees.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PostWalletTransactionsByHashCancelResponse200]
    """

    kwargs = _get_kwargs(
        hash_=hash_,
        body=body,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    hash_: str,
    *,
    client: AuthenticatedClient,
    body: CancelRequest,
    idempotency_key: str | Unset = UNSET,
) -> ErrorEnvelope | PostWalletTransactionsByHashCancelResponse200 | None:
    """Cancel a pending transaction: a 0-value send to the wallet itself at its nonce

     Family W (wallet token). Signs a 0-value send from the wallet to itself at the pending transaction's
    nonce, at the next bump's fees (at least 10% more, and what the chain asks now, up to the network's
    fee ceiling: `422 FEE_ABOVE_CEILING`), and broadcasts it. If the cancel is mined the record becomes
    `cancelled` and nothing was sent but the fee; if the transaction is mined first, it stays `mined`.
    `secret`: A+C sign instead of A+B. `hash`: any hash of the record. A transaction no longer pending
    is `409 TRANSACTION_FINAL`. Answers the cancel as sends answer (`{txReceipt}`). Honours
    `Idempotency-Key`.

    Args:
        hash_ (str):
        idempotency_key (str | Unset):
        body (CancelRequest): Nothing but the optional `secret`: the cancel is a 0-value send to
            the wallet itself at the transaction's
            nonce, at the next bump's fees.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PostWalletTransactionsByHashCancelResponse200
    """

    return sync_detailed(
        hash_=hash_,
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    hash_: str,
    *,
    client: AuthenticatedClient,
    body: CancelRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[ErrorEnvelope | PostWalletTransactionsByHashCancelResponse200]:
    """Cancel a pending transaction: a 0-value send to the wallet itself at its nonce

     Family W (wallet token). Signs a 0-value send from the wallet to itself at the pending transaction's
    nonce, at the next bump's fees (at least 10% more, and what the chain asks now, up to the network's
    fee ceiling: `422 FEE_ABOVE_CEILING`), and broadcasts it. If the cancel is mined the record becomes
    `cancelled` and nothing was sent but the fee; if the transaction is mined first, it stays `mined`.
    `secret`: A+C sign instead of A+B. `hash`: any hash of the record. A transaction no longer pending
    is `409 TRANSACTION_FINAL`. Answers the cancel as sends answer (`{txReceipt}`). Honours
    `Idempotency-Key`.

    Args:
        hash_ (str):
        idempotency_key (str | Unset):
        body (CancelRequest): Nothing but the optional `secret`: the cancel is a 0-value send to
            the wallet itself at the transaction's
            nonce, at the next bump's fees.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PostWalletTransactionsByHashCancelResponse200]
    """

    kwargs = _get_kwargs(
        hash_=hash_,
        body=body,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    hash_: str,
    *,
    client: AuthenticatedClient,
    body: CancelRequest,
    idempotency_key: str | Unset = UNSET,
) -> ErrorEnvelope | PostWalletTransactionsByHashCancelResponse200 | None:
    """Cancel a pending transaction: a 0-value send to the wallet itself at its nonce

     Family W (wallet token). Signs a 0-value send from the wallet to itself at the pending transaction's
    nonce, at the next bump's fees (at least 10% more, and what the chain asks now, up to the network's
    fee ceiling: `422 FEE_ABOVE_CEILING`), and broadcasts it. If the cancel is mined the record becomes
    `cancelled` and nothing was sent but the fee; if the transaction is mined first, it stays `mined`.
    `secret`: A+C sign instead of A+B. `hash`: any hash of the record. A transaction no longer pending
    is `409 TRANSACTION_FINAL`. Answers the cancel as sends answer (`{txReceipt}`). Honours
    `Idempotency-Key`.

    Args:
        hash_ (str):
        idempotency_key (str | Unset):
        body (CancelRequest): Nothing but the optional `secret`: the cancel is a 0-value send to
            the wallet itself at the transaction's
            nonce, at the next bump's fees.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PostWalletTransactionsByHashCancelResponse200
    """

    return (
        await asyncio_detailed(
            hash_=hash_,
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
