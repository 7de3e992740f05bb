from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_envelope import ErrorEnvelope
from ...models.post_wallet_sign_typed_data_response_200 import (
    PostWalletSignTypedDataResponse200,
)
from ...models.sign_typed_data_request import SignTypedDataRequest
from ...types import Response


def _get_kwargs(
    *,
    body: SignTypedDataRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/wallet/sign-typed-data",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | PostWalletSignTypedDataResponse200 | None:
    if response.status_code == 200:
        response_200 = PostWalletSignTypedDataResponse200.from_dict(response.json())

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
) -> Response[ErrorEnvelope | PostWalletSignTypedDataResponse200]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: SignTypedDataRequest,
) -> Response[ErrorEnvelope | PostWalletSignTypedDataResponse200]:
    """Sign EIP-712 typed data (eth_signTypedData_v4)

     `typedData` is `{types, primaryType, domain, message}`; `EIP712Domain` may be left out of `types`
    (derived from the domain's fields, as ethers and viem do). The chain is the domain's `chainId`; no
    `network`. Malformed typed data (unknown type, missing field, a value out of range, a cycle, a
    primaryType not in types, over 64 KiB) is a 400 whose `data.errors[0].field` names the place; it is
    never signed. Verify with ethers or viem `verifyTypedData`. Listed in `GET
    /api/v1/wallet/signatures`.

    Args:
        body (SignTypedDataRequest): An EIP-712 document (`eth_signTypedData_v4`). The chain is
            the one its `domain.chainId` names.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PostWalletSignTypedDataResponse200]
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
    body: SignTypedDataRequest,
) -> ErrorEnvelope | PostWalletSignTypedDataResponse200 | None:
    """Sign EIP-712 typed data (eth_signTypedData_v4)

     `typedData` is `{types, primaryType, domain, message}`; `EIP712Domain` may be left out of `types`
    (derived from the domain's fields, as ethers and viem do). The chain is the domain's `chainId`; no
    `network`. Malformed typed data (unknown type, missing field, a value out of range, a cycle, a
    primaryType not in types, over 64 KiB) is a 400 whose `data.errors[0].field` names the place; it is
    never signed. Verify with ethers or viem `verifyTypedData`. Listed in `GET
    /api/v1/wallet/signatures`.

    Args:
        body (SignTypedDataRequest): An EIP-712 document (`eth_signTypedData_v4`). The chain is
            the one its `domain.chainId` names.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PostWalletSignTypedDataResponse200
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: SignTypedDataRequest,
) -> Response[ErrorEnvelope | PostWalletSignTypedDataResponse200]:
    """Sign EIP-712 typed data (eth_signTypedData_v4)

     `typedData` is `{types, primaryType, domain, message}`; `EIP712Domain` may be left out of `types`
    (derived from the domain's fields, as ethers and viem do). The chain is the domain's `chainId`; no
    `network`. Malformed typed data (unknown type, missing field, a value out of range, a cycle, a
    primaryType not in types, over 64 KiB) is a 400 whose `data.errors[0].field` names the place; it is
    never signed. Verify with ethers or viem `verifyTypedData`. Listed in `GET
    /api/v1/wallet/signatures`.

    Args:
        body (SignTypedDataRequest): An EIP-712 document (`eth_signTypedData_v4`). The chain is
            the one its `domain.chainId` names.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PostWalletSignTypedDataResponse200]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: SignTypedDataRequest,
) -> ErrorEnvelope | PostWalletSignTypedDataResponse200 | None:
    """Sign EIP-712 typed data (eth_signTypedData_v4)

     `typedData` is `{types, primaryType, domain, message}`; `EIP712Domain` may be left out of `types`
    (derived from the domain's fields, as ethers and viem do). The chain is the domain's `chainId`; no
    `network`. Malformed typed data (unknown type, missing field, a value out of range, a cycle, a
    primaryType not in types, over 64 KiB) is a 400 whose `data.errors[0].field` names the place; it is
    never signed. Verify with ethers or viem `verifyTypedData`. Listed in `GET
    /api/v1/wallet/signatures`.

    Args:
        body (SignTypedDataRequest): An EIP-712 document (`eth_signTypedData_v4`). The chain is
            the one its `domain.chainId` names.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PostWalletSignTypedDataResponse200
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
