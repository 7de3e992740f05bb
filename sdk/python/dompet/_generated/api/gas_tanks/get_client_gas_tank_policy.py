from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_envelope import ErrorEnvelope
from ...models.get_client_gas_tank_policy_response_200 import (
    GetClientGasTankPolicyResponse200,
)
from ...types import Response


def _get_kwargs() -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/client/gasTank/policy",
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | GetClientGasTankPolicyResponse200 | None:
    if response.status_code == 200:
        response_200 = GetClientGasTankPolicyResponse200.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = ErrorEnvelope.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ErrorEnvelope.from_dict(response.json())

        return response_403

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
) -> Response[ErrorEnvelope | GetClientGasTankPolicyResponse200]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
) -> Response[ErrorEnvelope | GetClientGasTankPolicyResponse200]:
    """The app's gas sponsorship policy

     Family S, per app. Which sponsored user operations (`isSponsored: true`) the organization tank pays
    for: caps per owner (24 h amount and count, 30-day amount), per operation, for the whole app per 24
    h, the networks, the contracts and functions an operation may call, and an activation window.
    Amounts are tank units (USDT at 18 decimals), counted from the charges the usage history shows (the
    initial deduction, then the settled amount); windows are rolling. A refused submit is `403
    SPONSORSHIP_DENIED` with `data.rule`; nothing is charged or sent. See docs/smart-accounts.md.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | GetClientGasTankPolicyResponse200]
    """

    kwargs = _get_kwargs()

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
) -> ErrorEnvelope | GetClientGasTankPolicyResponse200 | None:
    """The app's gas sponsorship policy

     Family S, per app. Which sponsored user operations (`isSponsored: true`) the organization tank pays
    for: caps per owner (24 h amount and count, 30-day amount), per operation, for the whole app per 24
    h, the networks, the contracts and functions an operation may call, and an activation window.
    Amounts are tank units (USDT at 18 decimals), counted from the charges the usage history shows (the
    initial deduction, then the settled amount); windows are rolling. A refused submit is `403
    SPONSORSHIP_DENIED` with `data.rule`; nothing is charged or sent. See docs/smart-accounts.md.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | GetClientGasTankPolicyResponse200
    """

    return sync_detailed(
        client=client,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
) -> Response[ErrorEnvelope | GetClientGasTankPolicyResponse200]:
    """The app's gas sponsorship policy

     Family S, per app. Which sponsored user operations (`isSponsored: true`) the organization tank pays
    for: caps per owner (24 h amount and count, 30-day amount), per operation, for the whole app per 24
    h, the networks, the contracts and functions an operation may call, and an activation window.
    Amounts are tank units (USDT at 18 decimals), counted from the charges the usage history shows (the
    initial deduction, then the settled amount); windows are rolling. A refused submit is `403
    SPONSORSHIP_DENIED` with `data.rule`; nothing is charged or sent. See docs/smart-accounts.md.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | GetClientGasTankPolicyResponse200]
    """

    kwargs = _get_kwargs()

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
) -> ErrorEnvelope | GetClientGasTankPolicyResponse200 | None:
    """The app's gas sponsorship policy

     Family S, per app. Which sponsored user operations (`isSponsored: true`) the organization tank pays
    for: caps per owner (24 h amount and count, 30-day amount), per operation, for the whole app per 24
    h, the networks, the contracts and functions an operation may call, and an activation window.
    Amounts are tank units (USDT at 18 decimals), counted from the charges the usage history shows (the
    initial deduction, then the settled amount); windows are rolling. A refused submit is `403
    SPONSORSHIP_DENIED` with `data.rule`; nothing is charged or sent. See docs/smart-accounts.md.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | GetClientGasTankPolicyResponse200
    """

    return (
        await asyncio_detailed(
            client=client,
        )
    ).parsed
