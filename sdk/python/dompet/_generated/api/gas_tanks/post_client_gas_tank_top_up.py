from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.client_top_up import ClientTopUp
from ...models.error_envelope import ErrorEnvelope
from ...models.post_client_gas_tank_top_up_response_200 import (
    PostClientGasTankTopUpResponse200,
)
from ...types import Response


def _get_kwargs(
    *,
    body: ClientTopUp,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/client/gasTank/topUp",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | PostClientGasTankTopUpResponse200 | None:
    if response.status_code == 200:
        response_200 = PostClientGasTankTopUpResponse200.from_dict(response.json())

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
) -> Response[ErrorEnvelope | PostClientGasTankTopUpResponse200]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: ClientTopUp,
) -> Response[ErrorEnvelope | PostClientGasTankTopUpResponse200]:
    """Top up the organization gas tank

     Credited once the chain shows the USDT transfer to the pool from the address that signed
    `<chainId>.<txHash>`, with the network's confirmations and its block still the chain's; a
    transaction credits once in the whole service. The signature is checked first: a claim by anyone but
    the sender is refused and stores nothing. `immediate: false` answers at once and checks about 20 s
    later (the record is `pending` until then).

    Args:
        body (ClientTopUp):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PostClientGasTankTopUpResponse200]
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
    body: ClientTopUp,
) -> ErrorEnvelope | PostClientGasTankTopUpResponse200 | None:
    """Top up the organization gas tank

     Credited once the chain shows the USDT transfer to the pool from the address that signed
    `<chainId>.<txHash>`, with the network's confirmations and its block still the chain's; a
    transaction credits once in the whole service. The signature is checked first: a claim by anyone but
    the sender is refused and stores nothing. `immediate: false` answers at once and checks about 20 s
    later (the record is `pending` until then).

    Args:
        body (ClientTopUp):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PostClientGasTankTopUpResponse200
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: ClientTopUp,
) -> Response[ErrorEnvelope | PostClientGasTankTopUpResponse200]:
    """Top up the organization gas tank

     Credited once the chain shows the USDT transfer to the pool from the address that signed
    `<chainId>.<txHash>`, with the network's confirmations and its block still the chain's; a
    transaction credits once in the whole service. The signature is checked first: a claim by anyone but
    the sender is refused and stores nothing. `immediate: false` answers at once and checks about 20 s
    later (the record is `pending` until then).

    Args:
        body (ClientTopUp):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PostClientGasTankTopUpResponse200]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: ClientTopUp,
) -> ErrorEnvelope | PostClientGasTankTopUpResponse200 | None:
    """Top up the organization gas tank

     Credited once the chain shows the USDT transfer to the pool from the address that signed
    `<chainId>.<txHash>`, with the network's confirmations and its block still the chain's; a
    transaction credits once in the whole service. The signature is checked first: a claim by anyone but
    the sender is refused and stores nothing. `immediate: false` answers at once and checks about 20 s
    later (the record is `pending` until then).

    Args:
        body (ClientTopUp):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PostClientGasTankTopUpResponse200
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
