from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_envelope import ErrorEnvelope
from ...models.get_custody_deposits_response_200 import GetCustodyDepositsResponse200
from ...models.get_custody_deposits_status_type_0 import GetCustodyDepositsStatusType0
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    page: int | Unset = 1,
    limit: int | Unset = 10,
    account_id: None | str | Unset = UNSET,
    invoice_id: None | str | Unset = UNSET,
    status: GetCustodyDepositsStatusType0 | None | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["page"] = page

    params["limit"] = limit

    json_account_id: None | str | Unset
    if isinstance(account_id, Unset):
        json_account_id = UNSET
    else:
        json_account_id = account_id
    params["accountId"] = json_account_id

    json_invoice_id: None | str | Unset
    if isinstance(invoice_id, Unset):
        json_invoice_id = UNSET
    else:
        json_invoice_id = invoice_id
    params["invoiceId"] = json_invoice_id

    json_status: None | str | Unset
    if isinstance(status, Unset):
        json_status = UNSET
    elif isinstance(status, GetCustodyDepositsStatusType0):
        json_status = status.value
    else:
        json_status = status
    params["status"] = json_status

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/custody/deposits",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | GetCustodyDepositsResponse200 | None:
    if response.status_code == 200:
        response_200 = GetCustodyDepositsResponse200.from_dict(response.json())

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
) -> Response[ErrorEnvelope | GetCustodyDepositsResponse200]:
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
    limit: int | Unset = 10,
    account_id: None | str | Unset = UNSET,
    invoice_id: None | str | Unset = UNSET,
    status: GetCustodyDepositsStatusType0 | None | Unset = UNSET,
) -> Response[ErrorEnvelope | GetCustodyDepositsResponse200]:
    """Deposits to the app's accounts, newest first

     Family S. Transfers seen to the app's deposit addresses: `pending` until confirmed, then `credited`
    (or `reverted` after a reorganisation). Query `page` (from 1) and `limit`; the answer is `{data,
    pagination}` with `total`, `totalPages`, `hasNext`, `hasPrev`.

    Args:
        page (int | Unset): Page number, from 1. Default: 1.
        limit (int | Unset): Records per page, at most 100. Default: 10.
        account_id (None | str | Unset):
        invoice_id (None | str | Unset):
        status (GetCustodyDepositsStatusType0 | None | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | GetCustodyDepositsResponse200]
    """

    kwargs = _get_kwargs(
        page=page,
        limit=limit,
        account_id=account_id,
        invoice_id=invoice_id,
        status=status,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    page: int | Unset = 1,
    limit: int | Unset = 10,
    account_id: None | str | Unset = UNSET,
    invoice_id: None | str | Unset = UNSET,
    status: GetCustodyDepositsStatusType0 | None | Unset = UNSET,
) -> ErrorEnvelope | GetCustodyDepositsResponse200 | None:
    """Deposits to the app's accounts, newest first

     Family S. Transfers seen to the app's deposit addresses: `pending` until confirmed, then `credited`
    (or `reverted` after a reorganisation). Query `page` (from 1) and `limit`; the answer is `{data,
    pagination}` with `total`, `totalPages`, `hasNext`, `hasPrev`.

    Args:
        page (int | Unset): Page number, from 1. Default: 1.
        limit (int | Unset): Records per page, at most 100. Default: 10.
        account_id (None | str | Unset):
        invoice_id (None | str | Unset):
        status (GetCustodyDepositsStatusType0 | None | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | GetCustodyDepositsResponse200
    """

    return sync_detailed(
        client=client,
        page=page,
        limit=limit,
        account_id=account_id,
        invoice_id=invoice_id,
        status=status,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    page: int | Unset = 1,
    limit: int | Unset = 10,
    account_id: None | str | Unset = UNSET,
    invoice_id: None | str | Unset = UNSET,
    status: GetCustodyDepositsStatusType0 | None | Unset = UNSET,
) -> Response[ErrorEnvelope | GetCustodyDepositsResponse200]:
    """Deposits to the app's accounts, newest first

     Family S. Transfers seen to the app's deposit addresses: `pending` until confirmed, then `credited`
    (or `reverted` after a reorganisation). Query `page` (from 1) and `limit`; the answer is `{data,
    pagination}` with `total`, `totalPages`, `hasNext`, `hasPrev`.

    Args:
        page (int | Unset): Page number, from 1. Default: 1.
        limit (int | Unset): Records per page, at most 100. Default: 10.
        account_id (None | str | Unset):
        invoice_id (None | str | Unset):
        status (GetCustodyDepositsStatusType0 | None | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | GetCustodyDepositsResponse200]
    """

    kwargs = _get_kwargs(
        page=page,
        limit=limit,
        account_id=account_id,
        invoice_id=invoice_id,
        status=status,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    page: int | Unset = 1,
    limit: int | Unset = 10,
    account_id: None | str | Unset = UNSET,
    invoice_id: None | str | Unset = UNSET,
    status: GetCustodyDepositsStatusType0 | None | Unset = UNSET,
) -> ErrorEnvelope | GetCustodyDepositsResponse200 | None:
    """Deposits to the app's accounts, newest first

     Family S. Transfers seen to the app's deposit addresses: `pending` until confirmed, then `credited`
    (or `reverted` after a reorganisation). Query `page` (from 1) and `limit`; the answer is `{data,
    pagination}` with `total`, `totalPages`, `hasNext`, `hasPrev`.

    Args:
        page (int | Unset): Page number, from 1. Default: 1.
        limit (int | Unset): Records per page, at most 100. Default: 10.
        account_id (None | str | Unset):
        invoice_id (None | str | Unset):
        status (GetCustodyDepositsStatusType0 | None | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | GetCustodyDepositsResponse200
    """

    return (
        await asyncio_detailed(
            client=client,
            page=page,
            limit=limit,
            account_id=account_id,
            invoice_id=invoice_id,
            status=status,
        )
    ).parsed
