from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.create_wallet_request import CreateWalletRequest
from ...models.error_envelope import ErrorEnvelope
from ...models.post_account_create_response_200 import PostAccountCreateResponse200
from ...types import Response


def _get_kwargs(
    *,
    body: CreateWalletRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/account/create",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | PostAccountCreateResponse200 | None:
    if response.status_code == 200:
        response_200 = PostAccountCreateResponse200.from_dict(response.json())

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

    if response.status_code == 409:
        response_409 = ErrorEnvelope.from_dict(response.json())

        return response_409

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
) -> Response[ErrorEnvelope | PostAccountCreateResponse200]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: CreateWalletRequest,
) -> Response[ErrorEnvelope | PostAccountCreateResponse200]:
    """Create the user's MPC wallet

     Runs 2-of-3 threshold key generation (signer, cosigner, user). The user's share comes back once,
    sealed, as `secret0` (and as a file behind `secret0Link` for 5 minutes); no table stores it, the
    service keeps a hash of it. Needs the token of a user without a wallet; a second create is 409
    `WALLET_EXISTS`.

    Args:
        body (CreateWalletRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PostAccountCreateResponse200]
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
    body: CreateWalletRequest,
) -> ErrorEnvelope | PostAccountCreateResponse200 | None:
    """Create the user's MPC wallet

     Runs 2-of-3 threshold key generation (signer, cosigner, user). The user's share comes back once,
    sealed, as `secret0` (and as a file behind `secret0Link` for 5 minutes); no table stores it, the
    service keeps a hash of it. Needs the token of a user without a wallet; a second create is 409
    `WALLET_EXISTS`.

    Args:
        body (CreateWalletRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PostAccountCreateResponse200
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: CreateWalletRequest,
) -> Response[ErrorEnvelope | PostAccountCreateResponse200]:
    """Create the user's MPC wallet

     Runs 2-of-3 threshold key generation (signer, cosigner, user). The user's share comes back once,
    sealed, as `secret0` (and as a file behind `secret0Link` for 5 minutes); no table stores it, the
    service keeps a hash of it. Needs the token of a user without a wallet; a second create is 409
    `WALLET_EXISTS`.

    Args:
        body (CreateWalletRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PostAccountCreateResponse200]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: CreateWalletRequest,
) -> ErrorEnvelope | PostAccountCreateResponse200 | None:
    """Create the user's MPC wallet

     Runs 2-of-3 threshold key generation (signer, cosigner, user). The user's share comes back once,
    sealed, as `secret0` (and as a file behind `secret0Link` for 5 minutes); no table stores it, the
    service keeps a hash of it. Needs the token of a user without a wallet; a second create is 409
    `WALLET_EXISTS`.

    Args:
        body (CreateWalletRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PostAccountCreateResponse200
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
