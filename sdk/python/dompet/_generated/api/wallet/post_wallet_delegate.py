from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.delegate_request import DelegateRequest
from ...models.error_envelope import ErrorEnvelope
from ...models.post_wallet_delegate_response_200 import PostWalletDelegateResponse200
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: DelegateRequest,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/wallet/delegate",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | PostWalletDelegateResponse200 | None:
    if response.status_code == 200:
        response_200 = PostWalletDelegateResponse200.from_dict(response.json())

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
) -> Response[ErrorEnvelope | PostWalletDelegateResponse200]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: DelegateRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[ErrorEnvelope | PostWalletDelegateResponse200]:
    """Delegate the wallet to a contract's code (EIP-7702), or revoke its delegation

     A set-code transaction (type 4) from the wallet to itself, carrying its own authorization of
    `contractAddress` at the transaction's nonce + 1, signed under the app's signing policies
    (`authorizations`, docs/policies.md). Once mined, the wallet's code is `0xef0100 ‖ contractAddress`;
    the zero address clears it. The wallet pays the gas. Recorded and tracked like every send (speed-up
    and cancel included); the authorization is listed in `GET /api/v1/wallet/signatures`. Honours
    `Idempotency-Key`.

    Args:
        idempotency_key (str | Unset):
        body (DelegateRequest): A set-code transaction from the wallet to itself carrying its own
            authorization of `contractAddress`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PostWalletDelegateResponse200]
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
    body: DelegateRequest,
    idempotency_key: str | Unset = UNSET,
) -> ErrorEnvelope | PostWalletDelegateResponse200 | None:
    """Delegate the wallet to a contract's code (EIP-7702), or revoke its delegation

     A set-code transaction (type 4) from the wallet to itself, carrying its own authorization of
    `contractAddress` at the transaction's nonce + 1, signed under the app's signing policies
    (`authorizations`, docs/policies.md). Once mined, the wallet's code is `0xef0100 ‖ contractAddress`;
    the zero address clears it. The wallet pays the gas. Recorded and tracked like every send (speed-up
    and cancel included); the authorization is listed in `GET /api/v1/wallet/signatures`. Honours
    `Idempotency-Key`.

    Args:
        idempotency_key (str | Unset):
        body (DelegateRequest): A set-code transaction from the wallet to itself carrying its own
            authorization of `contractAddress`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PostWalletDelegateResponse200
    """

    return sync_detailed(
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: DelegateRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[ErrorEnvelope | PostWalletDelegateResponse200]:
    """Delegate the wallet to a contract's code (EIP-7702), or revoke its delegation

     A set-code transaction (type 4) from the wallet to itself, carrying its own authorization of
    `contractAddress` at the transaction's nonce + 1, signed under the app's signing policies
    (`authorizations`, docs/policies.md). Once mined, the wallet's code is `0xef0100 ‖ contractAddress`;
    the zero address clears it. The wallet pays the gas. Recorded and tracked like every send (speed-up
    and cancel included); the authorization is listed in `GET /api/v1/wallet/signatures`. Honours
    `Idempotency-Key`.

    Args:
        idempotency_key (str | Unset):
        body (DelegateRequest): A set-code transaction from the wallet to itself carrying its own
            authorization of `contractAddress`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PostWalletDelegateResponse200]
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
    body: DelegateRequest,
    idempotency_key: str | Unset = UNSET,
) -> ErrorEnvelope | PostWalletDelegateResponse200 | None:
    """Delegate the wallet to a contract's code (EIP-7702), or revoke its delegation

     A set-code transaction (type 4) from the wallet to itself, carrying its own authorization of
    `contractAddress` at the transaction's nonce + 1, signed under the app's signing policies
    (`authorizations`, docs/policies.md). Once mined, the wallet's code is `0xef0100 ‖ contractAddress`;
    the zero address clears it. The wallet pays the gas. Recorded and tracked like every send (speed-up
    and cancel included); the authorization is listed in `GET /api/v1/wallet/signatures`. Honours
    `Idempotency-Key`.

    Args:
        idempotency_key (str | Unset):
        body (DelegateRequest): A set-code transaction from the wallet to itself carrying its own
            authorization of `contractAddress`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PostWalletDelegateResponse200
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
