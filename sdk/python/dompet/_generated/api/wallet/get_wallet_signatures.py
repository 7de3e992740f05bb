from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_envelope import ErrorEnvelope
from ...models.get_wallet_signatures_response_200 import GetWalletSignaturesResponse200
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
        "url": "/api/v1/wallet/signatures",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | GetWalletSignaturesResponse200 | None:
    if response.status_code == 200:
        response_200 = GetWalletSignaturesResponse200.from_dict(response.json())

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
) -> Response[ErrorEnvelope | GetWalletSignaturesResponse200]:
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
) -> Response[ErrorEnvelope | GetWalletSignaturesResponse200]:
    """Messages and typed data the wallet signed, newest first

     Each entry: `kind` (`personal_message`, `typed_data` or `authorization`), `hash` (the digest
    signed), the typed data's `primaryType`, `chainId` and `verifyingContract`, an authorization's
    `chainId` and `contractAddress`, and `createdAt`. Neither messages nor signatures are kept.

    Args:
        page (int | Unset): Page number, from 1. Default: 1.
        limit (int | Unset): Records per page, at most 100. Default: 20.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | GetWalletSignaturesResponse200]
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
) -> ErrorEnvelope | GetWalletSignaturesResponse200 | None:
    """Messages and typed data the wallet signed, newest first

     Each entry: `kind` (`personal_message`, `typed_data` or `authorization`), `hash` (the digest
    signed), the typed data's `primaryType`, `chainId` and `verifyingContract`, an authorization's
    `chainId` and `contractAddress`, and `createdAt`. Neither messages nor signatures are kept.

    Args:
        page (int | Unset): Page number, from 1. Default: 1.
        limit (int | Unset): Records per page, at most 100. Default: 20.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | GetWalletSignaturesResponse200
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
) -> Response[ErrorEnvelope | GetWalletSignaturesResponse200]:
    """Messages and typed data the wallet signed, newest first

     Each entry: `kind` (`personal_message`, `typed_data` or `authorization`), `hash` (the digest
    signed), the typed data's `primaryType`, `chainId` and `verifyingContract`, an authorization's
    `chainId` and `contractAddress`, and `createdAt`. Neither messages nor signatures are kept.

    Args:
        page (int | Unset): Page number, from 1. Default: 1.
        limit (int | Unset): Records per page, at most 100. Default: 20.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | GetWalletSignaturesResponse200]
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
) -> ErrorEnvelope | GetWalletSignaturesResponse200 | None:
    """Messages and typed data the wallet signed, newest first

     Each entry: `kind` (`personal_message`, `typed_data` or `authorization`), `hash` (the digest
    signed), the typed data's `primaryType`, `chainId` and `verifyingContract`, an authorization's
    `chainId` and `contractAddress`, and `createdAt`. Neither messages nor signatures are kept.

    Args:
        page (int | Unset): Page number, from 1. Default: 1.
        limit (int | Unset): Records per page, at most 100. Default: 20.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | GetWalletSignaturesResponse200
    """

    return (
        await asyncio_detailed(
            client=client,
            page=page,
            limit=limit,
        )
    ).parsed
