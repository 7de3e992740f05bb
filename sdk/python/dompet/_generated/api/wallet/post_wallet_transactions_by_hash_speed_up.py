from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_envelope import ErrorEnvelope
from ...models.post_wallet_transactions_by_hash_speed_up_response_200 import (
    PostWalletTransactionsByHashSpeedUpResponse200,
)
from ...models.speed_up_request import SpeedUpRequest
from ...types import UNSET, Response, Unset


def _get_kwargs(
    hash_: str,
    *,
    body: SpeedUpRequest,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/wallet/transactions/{hash_}/speed-up".format(
            hash_=quote(str(hash_), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | PostWalletTransactionsByHashSpeedUpResponse200 | None:
    if response.status_code == 200:
        response_200 = PostWalletTransactionsByHashSpeedUpResponse200.from_dict(
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
) -> Response[ErrorEnvelope | PostWalletTransactionsByHashSpeedUpResponse200]:
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
    body: SpeedUpRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[ErrorEnvelope | PostWalletTransactionsByHashSpeedUpResponse200]:
    """Speed up a pending transaction: the same one at higher fees

     Family W (wallet token). Signs the pending transaction again at its nonce with higher fees and
    broadcasts it; whichever of its signatures is mined settles the record (`minedHash`), so it is paid
    once. Fees in the transaction's own kind, decimal wei: `gasPrice` (legacy) or `maxFeePerGas` with
    `maxPriorityFeePerGas` (EIP-1559), each at least 10% above the current one (`409
    REPLACEMENT_UNDERPRICED`) and at most the network's fee ceiling (`422 FEE_ABOVE_CEILING`); another
    kind, half a pair or a bad number is `400 INVALID_FEES` naming the field. No fees: the next bump (at
    least 10% more, and what the chain asks now). `secret`: A+C sign instead of A+B, as for sends.
    `hash`: any hash of the record. A transaction no longer pending is `409 TRANSACTION_FINAL`. Answers
    the replacement as sends answer (`{txReceipt}`). Honours `Idempotency-Key`.

    Args:
        hash_ (str):
        idempotency_key (str | Unset):
        body (SpeedUpRequest): The fees of the replacement, in the transaction's own kind:
            `gasPrice` for a legacy transaction,
            `maxFeePerGas` and `maxPriorityFeePerGas` together for an EIP-1559 one; none: the next
            bump.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PostWalletTransactionsByHashSpeedUpResponse200]
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
    body: SpeedUpRequest,
    idempotency_key: str | Unset = UNSET,
) -> ErrorEnvelope | PostWalletTransactionsByHashSpeedUpResponse200 | None:
    """Speed up a pending transaction: the same one at higher fees

     Family W (wallet token). Signs the pending transaction again at its nonce with higher fees and
    broadcasts it; whichever of its signatures is mined settles the record (`minedHash`), so it is paid
    once. Fees in the transaction's own kind, decimal wei: `gasPrice` (legacy) or `maxFeePerGas` with
    `maxPriorityFeePerGas` (EIP-1559), each at least 10% above the current one (`409
    REPLACEMENT_UNDERPRICED`) and at most the network's fee ceiling (`422 FEE_ABOVE_CEILING`); another
    kind, half a pair or a bad number is `400 INVALID_FEES` naming the field. No fees: the next bump (at
    least 10% more, and what the chain asks now). `secret`: A+C sign instead of A+B, as for sends.
    `hash`: any hash of the record. A transaction no longer pending is `409 TRANSACTION_FINAL`. Answers
    the replacement as sends answer (`{txReceipt}`). Honours `Idempotency-Key`.

    Args:
        hash_ (str):
        idempotency_key (str | Unset):
        body (SpeedUpRequest): The fees of the replacement, in the transaction's own kind:
            `gasPrice` for a legacy transaction,
            `maxFeePerGas` and `maxPriorityFeePerGas` together for an EIP-1559 one; none: the next
            bump.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PostWalletTransactionsByHashSpeedUpResponse200
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
    body: SpeedUpRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[ErrorEnvelope | PostWalletTransactionsByHashSpeedUpResponse200]:
    """Speed up a pending transaction: the same one at higher fees

     Family W (wallet token). Signs the pending transaction again at its nonce with higher fees and
    broadcasts it; whichever of its signatures is mined settles the record (`minedHash`), so it is paid
    once. Fees in the transaction's own kind, decimal wei: `gasPrice` (legacy) or `maxFeePerGas` with
    `maxPriorityFeePerGas` (EIP-1559), each at least 10% above the current one (`409
    REPLACEMENT_UNDERPRICED`) and at most the network's fee ceiling (`422 FEE_ABOVE_CEILING`); another
    kind, half a pair or a bad number is `400 INVALID_FEES` naming the field. No fees: the next bump (at
    least 10% more, and what the chain asks now). `secret`: A+C sign instead of A+B, as for sends.
    `hash`: any hash of the record. A transaction no longer pending is `409 TRANSACTION_FINAL`. Answers
    the replacement as sends answer (`{txReceipt}`). Honours `Idempotency-Key`.

    Args:
        hash_ (str):
        idempotency_key (str | Unset):
        body (SpeedUpRequest): The fees of the replacement, in the transaction's own kind:
            `gasPrice` for a legacy transaction,
            `maxFeePerGas` and `maxPriorityFeePerGas` together for an EIP-1559 one; none: the next
            bump.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PostWalletTransactionsByHashSpeedUpResponse200]
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
    body: SpeedUpRequest,
    idempotency_key: str | Unset = UNSET,
) -> ErrorEnvelope | PostWalletTransactionsByHashSpeedUpResponse200 | None:
    """Speed up a pending transaction: the same one at higher fees

     Family W (wallet token). Signs the pending transaction again at its nonce with higher fees and
    broadcasts it; whichever of its signatures is mined settles the record (`minedHash`), so it is paid
    once. Fees in the transaction's own kind, decimal wei: `gasPrice` (legacy) or `maxFeePerGas` with
    `maxPriorityFeePerGas` (EIP-1559), each at least 10% above the current one (`409
    REPLACEMENT_UNDERPRICED`) and at most the network's fee ceiling (`422 FEE_ABOVE_CEILING`); another
    kind, half a pair or a bad number is `400 INVALID_FEES` naming the field. No fees: the next bump (at
    least 10% more, and what the chain asks now). `secret`: A+C sign instead of A+B, as for sends.
    `hash`: any hash of the record. A transaction no longer pending is `409 TRANSACTION_FINAL`. Answers
    the replacement as sends answer (`{txReceipt}`). Honours `Idempotency-Key`.

    Args:
        hash_ (str):
        idempotency_key (str | Unset):
        body (SpeedUpRequest): The fees of the replacement, in the transaction's own kind:
            `gasPrice` for a legacy transaction,
            `maxFeePerGas` and `maxPriorityFeePerGas` together for an EIP-1559 one; none: the next
            bump.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PostWalletTransactionsByHashSpeedUpResponse200
    """

    return (
        await asyncio_detailed(
            hash_=hash_,
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
