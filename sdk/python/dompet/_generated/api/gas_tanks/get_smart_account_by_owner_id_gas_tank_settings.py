from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_envelope import ErrorEnvelope
from ...models.get_smart_account_by_owner_id_gas_tank_settings_response_200 import (
    GetSmartAccountByOwnerIdGasTankSettingsResponse200,
)
from ...types import Response


def _get_kwargs(
    owner_id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/smart-account/{owner_id}/gasTank/settings".format(
            owner_id=quote(str(owner_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | GetSmartAccountByOwnerIdGasTankSettingsResponse200 | None:
    if response.status_code == 200:
        response_200 = GetSmartAccountByOwnerIdGasTankSettingsResponse200.from_dict(
            response.json()
        )

        return response_200

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
) -> Response[ErrorEnvelope | GetSmartAccountByOwnerIdGasTankSettingsResponse200]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    owner_id: str,
    *,
    client: AuthenticatedClient,
) -> Response[ErrorEnvelope | GetSmartAccountByOwnerIdGasTankSettingsResponse200]:
    """Alert settings of an owner's gas tank

     Family S. `lowBalanceThreshold` (tank units; null: no alerts): when the tank's balance, after an
    operation settles, is below it, a signed `gasTank.low_balance` webhook event is sent to the app,
    once per crossing; a credited top-up that lifts the balance to the threshold or above arms it again,
    and so does a new setting. See docs/webhooks.md. `ownerId`: the owner record id or the owner's
    address.

    Args:
        owner_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | GetSmartAccountByOwnerIdGasTankSettingsResponse200]
    """

    kwargs = _get_kwargs(
        owner_id=owner_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    owner_id: str,
    *,
    client: AuthenticatedClient,
) -> ErrorEnvelope | GetSmartAccountByOwnerIdGasTankSettingsResponse200 | None:
    """Alert settings of an owner's gas tank

     Family S. `lowBalanceThreshold` (tank units; null: no alerts): when the tank's balance, after an
    operation settles, is below it, a signed `gasTank.low_balance` webhook event is sent to the app,
    once per crossing; a credited top-up that lifts the balance to the threshold or above arms it again,
    and so does a new setting. See docs/webhooks.md. `ownerId`: the owner record id or the owner's
    address.

    Args:
        owner_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | GetSmartAccountByOwnerIdGasTankSettingsResponse200
    """

    return sync_detailed(
        owner_id=owner_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    owner_id: str,
    *,
    client: AuthenticatedClient,
) -> Response[ErrorEnvelope | GetSmartAccountByOwnerIdGasTankSettingsResponse200]:
    """Alert settings of an owner's gas tank

     Family S. `lowBalanceThreshold` (tank units; null: no alerts): when the tank's balance, after an
    operation settles, is below it, a signed `gasTank.low_balance` webhook event is sent to the app,
    once per crossing; a credited top-up that lifts the balance to the threshold or above arms it again,
    and so does a new setting. See docs/webhooks.md. `ownerId`: the owner record id or the owner's
    address.

    Args:
        owner_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | GetSmartAccountByOwnerIdGasTankSettingsResponse200]
    """

    kwargs = _get_kwargs(
        owner_id=owner_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    owner_id: str,
    *,
    client: AuthenticatedClient,
) -> ErrorEnvelope | GetSmartAccountByOwnerIdGasTankSettingsResponse200 | None:
    """Alert settings of an owner's gas tank

     Family S. `lowBalanceThreshold` (tank units; null: no alerts): when the tank's balance, after an
    operation settles, is below it, a signed `gasTank.low_balance` webhook event is sent to the app,
    once per crossing; a credited top-up that lifts the balance to the threshold or above arms it again,
    and so does a new setting. See docs/webhooks.md. `ownerId`: the owner record id or the owner's
    address.

    Args:
        owner_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | GetSmartAccountByOwnerIdGasTankSettingsResponse200
    """

    return (
        await asyncio_detailed(
            owner_id=owner_id,
            client=client,
        )
    ).parsed
