from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_envelope import ErrorEnvelope
from ...models.gas_tank_settings import GasTankSettings
from ...models.put_client_gas_tank_settings_response_200 import (
    PutClientGasTankSettingsResponse200,
)
from ...types import Response


def _get_kwargs(
    *,
    body: GasTankSettings,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "put",
        "url": "/api/v1/client/gasTank/settings",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | PutClientGasTankSettingsResponse200 | None:
    if response.status_code == 200:
        response_200 = PutClientGasTankSettingsResponse200.from_dict(response.json())

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
) -> Response[ErrorEnvelope | PutClientGasTankSettingsResponse200]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: GasTankSettings,
) -> Response[ErrorEnvelope | PutClientGasTankSettingsResponse200]:
    """Alert settings of the organization gas tank

     Family S. `lowBalanceThreshold` (tank units; null: no alerts): when the tank's balance, after an
    operation settles, is below it, a signed `gasTank.low_balance` webhook event is sent to the app,
    once per crossing; a credited top-up that lifts the balance to the threshold or above arms it again,
    and so does a new setting. See docs/webhooks.md.

    Args:
        body (GasTankSettings):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PutClientGasTankSettingsResponse200]
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
    body: GasTankSettings,
) -> ErrorEnvelope | PutClientGasTankSettingsResponse200 | None:
    """Alert settings of the organization gas tank

     Family S. `lowBalanceThreshold` (tank units; null: no alerts): when the tank's balance, after an
    operation settles, is below it, a signed `gasTank.low_balance` webhook event is sent to the app,
    once per crossing; a credited top-up that lifts the balance to the threshold or above arms it again,
    and so does a new setting. See docs/webhooks.md.

    Args:
        body (GasTankSettings):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PutClientGasTankSettingsResponse200
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: GasTankSettings,
) -> Response[ErrorEnvelope | PutClientGasTankSettingsResponse200]:
    """Alert settings of the organization gas tank

     Family S. `lowBalanceThreshold` (tank units; null: no alerts): when the tank's balance, after an
    operation settles, is below it, a signed `gasTank.low_balance` webhook event is sent to the app,
    once per crossing; a credited top-up that lifts the balance to the threshold or above arms it again,
    and so does a new setting. See docs/webhooks.md.

    Args:
        body (GasTankSettings):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PutClientGasTankSettingsResponse200]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: GasTankSettings,
) -> ErrorEnvelope | PutClientGasTankSettingsResponse200 | None:
    """Alert settings of the organization gas tank

     Family S. `lowBalanceThreshold` (tank units; null: no alerts): when the tank's balance, after an
    operation settles, is below it, a signed `gasTank.low_balance` webhook event is sent to the app,
    once per crossing; a credited top-up that lifts the balance to the threshold or above arms it again,
    and so does a new setting. See docs/webhooks.md.

    Args:
        body (GasTankSettings):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PutClientGasTankSettingsResponse200
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
