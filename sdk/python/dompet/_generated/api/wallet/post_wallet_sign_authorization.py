from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_envelope import ErrorEnvelope
from ...models.post_wallet_sign_authorization_response_200 import (
    PostWalletSignAuthorizationResponse200,
)
from ...models.sign_authorization_request import SignAuthorizationRequest
from ...types import Response


def _get_kwargs(
    *,
    body: SignAuthorizationRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/wallet/sign-authorization",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | PostWalletSignAuthorizationResponse200 | None:
    if response.status_code == 200:
        response_200 = PostWalletSignAuthorizationResponse200.from_dict(response.json())

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
) -> Response[ErrorEnvelope | PostWalletSignAuthorizationResponse200]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: SignAuthorizationRequest,
) -> Response[ErrorEnvelope | PostWalletSignAuthorizationResponse200]:
    """Sign an EIP-7702 authorization (the wallet delegates to a contract's code)

     `network` or `chainId` (`"0"`: valid on any chain, then `nonce` is required), `contractAddress` (the
    delegate; the zero address revokes) and optional `nonce` (default: the wallet's pending nonce on
    that chain; a type-4 transaction the wallet sends itself needs that nonce + 1). The cosigner hashes
    keccak256(0x05 ‖ rlp([chainId, address, nonce])) itself and decides it under the app's signing
    policies (`authorizations`, docs/policies.md; chain id 0 only where a policy allows it). The answer
    is an `authorizationList` entry: `{chainId, address, nonce, yParity, r, s, hash}`, low s. Verify
    with viem `verifyAuthorization` or eth-account. Listed in `GET /api/v1/wallet/signatures`.

    Args:
        body (SignAuthorizationRequest): An EIP-7702 authorization: the wallet lets
            `contractAddress`'s code run as its own account.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PostWalletSignAuthorizationResponse200]
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
    body: SignAuthorizationRequest,
) -> ErrorEnvelope | PostWalletSignAuthorizationResponse200 | None:
    """Sign an EIP-7702 authorization (the wallet delegates to a contract's code)

     `network` or `chainId` (`"0"`: valid on any chain, then `nonce` is required), `contractAddress` (the
    delegate; the zero address revokes) and optional `nonce` (default: the wallet's pending nonce on
    that chain; a type-4 transaction the wallet sends itself needs that nonce + 1). The cosigner hashes
    keccak256(0x05 ‖ rlp([chainId, address, nonce])) itself and decides it under the app's signing
    policies (`authorizations`, docs/policies.md; chain id 0 only where a policy allows it). The answer
    is an `authorizationList` entry: `{chainId, address, nonce, yParity, r, s, hash}`, low s. Verify
    with viem `verifyAuthorization` or eth-account. Listed in `GET /api/v1/wallet/signatures`.

    Args:
        body (SignAuthorizationRequest): An EIP-7702 authorization: the wallet lets
            `contractAddress`'s code run as its own account.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PostWalletSignAuthorizationResponse200
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: SignAuthorizationRequest,
) -> Response[ErrorEnvelope | PostWalletSignAuthorizationResponse200]:
    """Sign an EIP-7702 authorization (the wallet delegates to a contract's code)

     `network` or `chainId` (`"0"`: valid on any chain, then `nonce` is required), `contractAddress` (the
    delegate; the zero address revokes) and optional `nonce` (default: the wallet's pending nonce on
    that chain; a type-4 transaction the wallet sends itself needs that nonce + 1). The cosigner hashes
    keccak256(0x05 ‖ rlp([chainId, address, nonce])) itself and decides it under the app's signing
    policies (`authorizations`, docs/policies.md; chain id 0 only where a policy allows it). The answer
    is an `authorizationList` entry: `{chainId, address, nonce, yParity, r, s, hash}`, low s. Verify
    with viem `verifyAuthorization` or eth-account. Listed in `GET /api/v1/wallet/signatures`.

    Args:
        body (SignAuthorizationRequest): An EIP-7702 authorization: the wallet lets
            `contractAddress`'s code run as its own account.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PostWalletSignAuthorizationResponse200]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: SignAuthorizationRequest,
) -> ErrorEnvelope | PostWalletSignAuthorizationResponse200 | None:
    """Sign an EIP-7702 authorization (the wallet delegates to a contract's code)

     `network` or `chainId` (`"0"`: valid on any chain, then `nonce` is required), `contractAddress` (the
    delegate; the zero address revokes) and optional `nonce` (default: the wallet's pending nonce on
    that chain; a type-4 transaction the wallet sends itself needs that nonce + 1). The cosigner hashes
    keccak256(0x05 ‖ rlp([chainId, address, nonce])) itself and decides it under the app's signing
    policies (`authorizations`, docs/policies.md; chain id 0 only where a policy allows it). The answer
    is an `authorizationList` entry: `{chainId, address, nonce, yParity, r, s, hash}`, low s. Verify
    with viem `verifyAuthorization` or eth-account. Listed in `GET /api/v1/wallet/signatures`.

    Args:
        body (SignAuthorizationRequest): An EIP-7702 authorization: the wallet lets
            `contractAddress`'s code run as its own account.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PostWalletSignAuthorizationResponse200
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
