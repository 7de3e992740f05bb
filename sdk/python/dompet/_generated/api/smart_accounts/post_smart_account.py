from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.create_smart_account import CreateSmartAccount
from ...models.error_envelope import ErrorEnvelope
from ...models.post_smart_account_response_200 import PostSmartAccountResponse200
from ...types import Response


def _get_kwargs(
    *,
    body: CreateSmartAccount,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/smart-account",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | PostSmartAccountResponse200 | None:
    if response.status_code == 200:
        response_200 = PostSmartAccountResponse200.from_dict(response.json())

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

    if response.status_code == 422:
        response_422 = ErrorEnvelope.from_dict(response.json())

        return response_422

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
) -> Response[ErrorEnvelope | PostSmartAccountResponse200]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: CreateSmartAccount,
) -> Response[ErrorEnvelope | PostSmartAccountResponse200]:
    """Create (or return) the owner's smart accounts, one per network, and its gas tank

     Idempotent per owner address (any letter case) and app. Accounts are counterfactual
    (`not_deployed`): `aaAddress` is where the factory deploys the account with its first user
    operation. `accountType` `"eip7702"` (the owner an MPC wallet of the service): accounts at the
    wallet's own address, on the networks with EIP-7702 accounts, `deployed` once an operation delegated
    the wallet to Simple7702Account (docs/smart-accounts.md); asked again for an owner that has
    accounts, the other type's are added.

    Args:
        body (CreateSmartAccount):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PostSmartAccountResponse200]
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
    body: CreateSmartAccount,
) -> ErrorEnvelope | PostSmartAccountResponse200 | None:
    """Create (or return) the owner's smart accounts, one per network, and its gas tank

     Idempotent per owner address (any letter case) and app. Accounts are counterfactual
    (`not_deployed`): `aaAddress` is where the factory deploys the account with its first user
    operation. `accountType` `"eip7702"` (the owner an MPC wallet of the service): accounts at the
    wallet's own address, on the networks with EIP-7702 accounts, `deployed` once an operation delegated
    the wallet to Simple7702Account (docs/smart-accounts.md); asked again for an owner that has
    accounts, the other type's are added.

    Args:
        body (CreateSmartAccount):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PostSmartAccountResponse200
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: CreateSmartAccount,
) -> Response[ErrorEnvelope | PostSmartAccountResponse200]:
    """Create (or return) the owner's smart accounts, one per network, and its gas tank

     Idempotent per owner address (any letter case) and app. Accounts are counterfactual
    (`not_deployed`): `aaAddress` is where the factory deploys the account with its first user
    operation. `accountType` `"eip7702"` (the owner an MPC wallet of the service): accounts at the
    wallet's own address, on the networks with EIP-7702 accounts, `deployed` once an operation delegated
    the wallet to Simple7702Account (docs/smart-accounts.md); asked again for an owner that has
    accounts, the other type's are added.

    Args:
        body (CreateSmartAccount):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PostSmartAccountResponse200]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: CreateSmartAccount,
) -> ErrorEnvelope | PostSmartAccountResponse200 | None:
    """Create (or return) the owner's smart accounts, one per network, and its gas tank

     Idempotent per owner address (any letter case) and app. Accounts are counterfactual
    (`not_deployed`): `aaAddress` is where the factory deploys the account with its first user
    operation. `accountType` `"eip7702"` (the owner an MPC wallet of the service): accounts at the
    wallet's own address, on the networks with EIP-7702 accounts, `deployed` once an operation delegated
    the wallet to Simple7702Account (docs/smart-accounts.md); asked again for an owner that has
    accounts, the other type's are added.

    Args:
        body (CreateSmartAccount):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PostSmartAccountResponse200
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
