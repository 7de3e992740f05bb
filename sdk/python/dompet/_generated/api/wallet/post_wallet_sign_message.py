from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_envelope import ErrorEnvelope
from ...models.post_wallet_sign_message_response_200 import (
    PostWalletSignMessageResponse200,
)
from ...models.sign_message_request import SignMessageRequest
from ...types import Response


def _get_kwargs(
    *,
    body: SignMessageRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/wallet/sign-message",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | PostWalletSignMessageResponse200 | None:
    if response.status_code == 200:
        response_200 = PostWalletSignMessageResponse200.from_dict(response.json())

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

    if response.status_code == 503:
        response_503 = ErrorEnvelope.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ErrorEnvelope | PostWalletSignMessageResponse200]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: SignMessageRequest,
) -> Response[ErrorEnvelope | PostWalletSignMessageResponse200]:
    """Sign an EIP-191 personal message (personal_sign)

     Signs keccak256("\\x19Ethereum Signed Message:\\n" + length + message), as ethers `signMessage` and
    viem `signMessage` do; verify with `verifyMessage`. `message` is text (its UTF-8 bytes) or, with
    `encoding: hex`, 0x-prefixed bytes; at most 64 KiB (`400 MESSAGE_TOO_LARGE`; bad hex `400
    INVALID_MESSAGE`). No `network`: a personal message is not bound to a chain. `secret`: A+C sign
    instead of A+B (`401 INVALID_SECRET`). Listed in `GET /api/v1/wallet/signatures`.

    Args:
        body (SignMessageRequest): An EIP-191 personal message (`personal_sign`). No `network`:
            the signature is not bound to a chain.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PostWalletSignMessageResponse200]
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
    body: SignMessageRequest,
) -> ErrorEnvelope | PostWalletSignMessageResponse200 | None:
    """Sign an EIP-191 personal message (personal_sign)

     Signs keccak256("\\x19Ethereum Signed Message:\\n" + length + message), as ethers `signMessage` and
    viem `signMessage` do; verify with `verifyMessage`. `message` is text (its UTF-8 bytes) or, with
    `encoding: hex`, 0x-prefixed bytes; at most 64 KiB (`400 MESSAGE_TOO_LARGE`; bad hex `400
    INVALID_MESSAGE`). No `network`: a personal message is not bound to a chain. `secret`: A+C sign
    instead of A+B (`401 INVALID_SECRET`). Listed in `GET /api/v1/wallet/signatures`.

    Args:
        body (SignMessageRequest): An EIP-191 personal message (`personal_sign`). No `network`:
            the signature is not bound to a chain.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PostWalletSignMessageResponse200
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: SignMessageRequest,
) -> Response[ErrorEnvelope | PostWalletSignMessageResponse200]:
    """Sign an EIP-191 personal message (personal_sign)

     Signs keccak256("\\x19Ethereum Signed Message:\\n" + length + message), as ethers `signMessage` and
    viem `signMessage` do; verify with `verifyMessage`. `message` is text (its UTF-8 bytes) or, with
    `encoding: hex`, 0x-prefixed bytes; at most 64 KiB (`400 MESSAGE_TOO_LARGE`; bad hex `400
    INVALID_MESSAGE`). No `network`: a personal message is not bound to a chain. `secret`: A+C sign
    instead of A+B (`401 INVALID_SECRET`). Listed in `GET /api/v1/wallet/signatures`.

    Args:
        body (SignMessageRequest): An EIP-191 personal message (`personal_sign`). No `network`:
            the signature is not bound to a chain.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PostWalletSignMessageResponse200]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: SignMessageRequest,
) -> ErrorEnvelope | PostWalletSignMessageResponse200 | None:
    """Sign an EIP-191 personal message (personal_sign)

     Signs keccak256("\\x19Ethereum Signed Message:\\n" + length + message), as ethers `signMessage` and
    viem `signMessage` do; verify with `verifyMessage`. `message` is text (its UTF-8 bytes) or, with
    `encoding: hex`, 0x-prefixed bytes; at most 64 KiB (`400 MESSAGE_TOO_LARGE`; bad hex `400
    INVALID_MESSAGE`). No `network`: a personal message is not bound to a chain. `secret`: A+C sign
    instead of A+B (`401 INVALID_SECRET`). Listed in `GET /api/v1/wallet/signatures`.

    Args:
        body (SignMessageRequest): An EIP-191 personal message (`personal_sign`). No `network`:
            the signature is not bound to a chain.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PostWalletSignMessageResponse200
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
