from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_envelope import ErrorEnvelope
from ...models.post_wallet_send_transaction_response_200 import (
    PostWalletSendTransactionResponse200,
)
from ...models.send_transaction_request import SendTransactionRequest
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: SendTransactionRequest,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/wallet/send-transaction",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | PostWalletSendTransactionResponse200 | None:
    if response.status_code == 200:
        response_200 = PostWalletSendTransactionResponse200.from_dict(response.json())

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
) -> Response[ErrorEnvelope | PostWalletSendTransactionResponse200]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: SendTransactionRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[ErrorEnvelope | PostWalletSendTransactionResponse200]:
    """Sign and send a raw transaction

     Hex fields; `from` must be the wallet. Missing nonce, gas or fees are filled in; a given `gasPrice`
    makes a legacy transaction, an `authorizationList` (signed EIP-7702 tuples) a set-code transaction
    (type 4). Honours `Idempotency-Key`.

    Args:
        idempotency_key (str | Unset):
        body (SendTransactionRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PostWalletSendTransactionResponse200]
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
    body: SendTransactionRequest,
    idempotency_key: str | Unset = UNSET,
) -> ErrorEnvelope | PostWalletSendTransactionResponse200 | None:
    """Sign and send a raw transaction

     Hex fields; `from` must be the wallet. Missing nonce, gas or fees are filled in; a given `gasPrice`
    makes a legacy transaction, an `authorizationList` (signed EIP-7702 tuples) a set-code transaction
    (type 4). Honours `Idempotency-Key`.

    Args:
        idempotency_key (str | Unset):
        body (SendTransactionRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PostWalletSendTransactionResponse200
    """

    return sync_detailed(
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: SendTransactionRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[ErrorEnvelope | PostWalletSendTransactionResponse200]:
    """Sign and send a raw transaction

     Hex fields; `from` must be the wallet. Missing nonce, gas or fees are filled in; a given `gasPrice`
    makes a legacy transaction, an `authorizationList` (signed EIP-7702 tuples) a set-code transaction
    (type 4). Honours `Idempotency-Key`.

    Args:
        idempotency_key (str | Unset):
        body (SendTransactionRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PostWalletSendTransactionResponse200]
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
    body: SendTransactionRequest,
    idempotency_key: str | Unset = UNSET,
) -> ErrorEnvelope | PostWalletSendTransactionResponse200 | None:
    """Sign and send a raw transaction

     Hex fields; `from` must be the wallet. Missing nonce, gas or fees are filled in; a given `gasPrice`
    makes a legacy transaction, an `authorizationList` (signed EIP-7702 tuples) a set-code transaction
    (type 4). Honours `Idempotency-Key`.

    Args:
        idempotency_key (str | Unset):
        body (SendTransactionRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PostWalletSendTransactionResponse200
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
