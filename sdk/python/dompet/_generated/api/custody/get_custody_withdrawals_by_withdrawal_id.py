from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_envelope import ErrorEnvelope
from ...models.get_custody_withdrawals_by_withdrawal_id_response_200 import (
    GetCustodyWithdrawalsByWithdrawalIdResponse200,
)
from ...types import Response


def _get_kwargs(
    withdrawal_id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/custody/withdrawals/{withdrawal_id}".format(
            withdrawal_id=quote(str(withdrawal_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | GetCustodyWithdrawalsByWithdrawalIdResponse200 | None:
    if response.status_code == 200:
        response_200 = GetCustodyWithdrawalsByWithdrawalIdResponse200.from_dict(
            response.json()
        )

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
) -> Response[ErrorEnvelope | GetCustodyWithdrawalsByWithdrawalIdResponse200]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    withdrawal_id: str,
    *,
    client: AuthenticatedClient,
) -> Response[ErrorEnvelope | GetCustodyWithdrawalsByWithdrawalIdResponse200]:
    """One withdrawal

     Family S. One withdrawal with its transaction hash once sent and its failure reason if it failed.

    Args:
        withdrawal_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | GetCustodyWithdrawalsByWithdrawalIdResponse200]
    """

    kwargs = _get_kwargs(
        withdrawal_id=withdrawal_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    withdrawal_id: str,
    *,
    client: AuthenticatedClient,
) -> ErrorEnvelope | GetCustodyWithdrawalsByWithdrawalIdResponse200 | None:
    """One withdrawal

     Family S. One withdrawal with its transaction hash once sent and its failure reason if it failed.

    Args:
        withdrawal_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | GetCustodyWithdrawalsByWithdrawalIdResponse200
    """

    return sync_detailed(
        withdrawal_id=withdrawal_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    withdrawal_id: str,
    *,
    client: AuthenticatedClient,
) -> Response[ErrorEnvelope | GetCustodyWithdrawalsByWithdrawalIdResponse200]:
    """One withdrawal

     Family S. One withdrawal with its transaction hash once sent and its failure reason if it failed.

    Args:
        withdrawal_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | GetCustodyWithdrawalsByWithdrawalIdResponse200]
    """

    kwargs = _get_kwargs(
        withdrawal_id=withdrawal_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    withdrawal_id: str,
    *,
    client: AuthenticatedClient,
) -> ErrorEnvelope | GetCustodyWithdrawalsByWithdrawalIdResponse200 | None:
    """One withdrawal

     Family S. One withdrawal with its transaction hash once sent and its failure reason if it failed.

    Args:
        withdrawal_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | GetCustodyWithdrawalsByWithdrawalIdResponse200
    """

    return (
        await asyncio_detailed(
            withdrawal_id=withdrawal_id,
            client=client,
        )
    ).parsed
