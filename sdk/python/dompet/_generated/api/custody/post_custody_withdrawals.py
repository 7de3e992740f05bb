from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.create_withdrawal_request import CreateWithdrawalRequest
from ...models.error_envelope import ErrorEnvelope
from ...models.post_custody_withdrawals_response_200 import (
    PostCustodyWithdrawalsResponse200,
)
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: CreateWithdrawalRequest,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/custody/withdrawals",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | PostCustodyWithdrawalsResponse200 | None:
    if response.status_code == 200:
        response_200 = PostCustodyWithdrawalsResponse200.from_dict(response.json())

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
) -> Response[ErrorEnvelope | PostCustodyWithdrawalsResponse200]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: CreateWithdrawalRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[ErrorEnvelope | PostCustodyWithdrawalsResponse200]:
    """Request a withdrawal from an account's balance

     The amount moves from `activeBalance` to `heldBalance` at once (422 `INSUFFICIENT_BALANCE` and
    nothing recorded when it is not there); the withdrawal is then sent on chain from the account's
    deposit address. On Bitcoin it spends the account's confirmed outputs (reserved at once), pays
    exactly `amount` to `to` (P2WPKH, P2PKH, P2SH, P2WSH or P2TR), sends the change back to the
    account's native SegWit address, and `fee` (the network fee, at the node's fee rate within the
    network's bounds) is held and debited with the amount. Honours `Idempotency-Key`.

    Args:
        idempotency_key (str | Unset):
        body (CreateWithdrawalRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PostCustodyWithdrawalsResponse200]
    """

    kwargs = _get_kwargs(
        body=body,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: CreateWithdrawalRequest,
    idempotency_key: str | Unset = UNSET,
) -> ErrorEnvelope | PostCustodyWithdrawalsResponse200 | None:
    """Request a withdrawal from an account's balance

     The amount moves from `activeBalance` to `heldBalance` at once (422 `INSUFFICIENT_BALANCE` and
    nothing recorded when it is not there); the withdrawal is then sent on chain from the account's
    deposit address. On Bitcoin it spends the account's confirmed outputs (reserved at once), pays
    exactly `amount` to `to` (P2WPKH, P2PKH, P2SH, P2WSH or P2TR), sends the change back to the
    account's native SegWit address, and `fee` (the network fee, at the node's fee rate within the
    network's bounds) is held and debited with the amount. Honours `Idempotency-Key`.

    Args:
        idempotency_key (str | Unset):
        body (CreateWithdrawalRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PostCustodyWithdrawalsResponse200
    """

    return sync_detailed(
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: CreateWithdrawalRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[ErrorEnvelope | PostCustodyWithdrawalsResponse200]:
    """Request a withdrawal from an account's balance

     The amount moves from `activeBalance` to `heldBalance` at once (422 `INSUFFICIENT_BALANCE` and
    nothing recorded when it is not there); the withdrawal is then sent on chain from the account's
    deposit address. On Bitcoin it spends the account's confirmed outputs (reserved at once), pays
    exactly `amount` to `to` (P2WPKH, P2PKH, P2SH, P2WSH or P2TR), sends the change back to the
    account's native SegWit address, and `fee` (the network fee, at the node's fee rate within the
    network's bounds) is held and debited with the amount. Honours `Idempotency-Key`.

    Args:
        idempotency_key (str | Unset):
        body (CreateWithdrawalRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PostCustodyWithdrawalsResponse200]
    """

    kwargs = _get_kwargs(
        body=body,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: CreateWithdrawalRequest,
    idempotency_key: str | Unset = UNSET,
) -> ErrorEnvelope | PostCustodyWithdrawalsResponse200 | None:
    """Request a withdrawal from an account's balance

     The amount moves from `activeBalance` to `heldBalance` at once (422 `INSUFFICIENT_BALANCE` and
    nothing recorded when it is not there); the withdrawal is then sent on chain from the account's
    deposit address. On Bitcoin it spends the account's confirmed outputs (reserved at once), pays
    exactly `amount` to `to` (P2WPKH, P2PKH, P2SH, P2WSH or P2TR), sends the change back to the
    account's native SegWit address, and `fee` (the network fee, at the node's fee rate within the
    network's bounds) is held and debited with the amount. Honours `Idempotency-Key`.

    Args:
        idempotency_key (str | Unset):
        body (CreateWithdrawalRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PostCustodyWithdrawalsResponse200
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
