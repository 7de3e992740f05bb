from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_envelope import ErrorEnvelope
from ...models.get_custody_invoices_by_invoice_id_response_200 import (
    GetCustodyInvoicesByInvoiceIdResponse200,
)
from ...types import Response


def _get_kwargs(
    invoice_id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/custody/invoices/{invoice_id}".format(
            invoice_id=quote(str(invoice_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | GetCustodyInvoicesByInvoiceIdResponse200 | None:
    if response.status_code == 200:
        response_200 = GetCustodyInvoicesByInvoiceIdResponse200.from_dict(
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
) -> Response[ErrorEnvelope | GetCustodyInvoicesByInvoiceIdResponse200]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    invoice_id: str,
    *,
    client: AuthenticatedClient,
) -> Response[ErrorEnvelope | GetCustodyInvoicesByInvoiceIdResponse200]:
    """One invoice

     Family S. One invoice: `pending` until a matching transfer is confirmed (`paid`), its expiry passes
    (`expired`) or a confirmed payment does not match (`failed`).

    Args:
        invoice_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | GetCustodyInvoicesByInvoiceIdResponse200]
    """

    kwargs = _get_kwargs(
        invoice_id=invoice_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    invoice_id: str,
    *,
    client: AuthenticatedClient,
) -> ErrorEnvelope | GetCustodyInvoicesByInvoiceIdResponse200 | None:
    """One invoice

     Family S. One invoice: `pending` until a matching transfer is confirmed (`paid`), its expiry passes
    (`expired`) or a confirmed payment does not match (`failed`).

    Args:
        invoice_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | GetCustodyInvoicesByInvoiceIdResponse200
    """

    return sync_detailed(
        invoice_id=invoice_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    invoice_id: str,
    *,
    client: AuthenticatedClient,
) -> Response[ErrorEnvelope | GetCustodyInvoicesByInvoiceIdResponse200]:
    """One invoice

     Family S. One invoice: `pending` until a matching transfer is confirmed (`paid`), its expiry passes
    (`expired`) or a confirmed payment does not match (`failed`).

    Args:
        invoice_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | GetCustodyInvoicesByInvoiceIdResponse200]
    """

    kwargs = _get_kwargs(
        invoice_id=invoice_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    invoice_id: str,
    *,
    client: AuthenticatedClient,
) -> ErrorEnvelope | GetCustodyInvoicesByInvoiceIdResponse200 | None:
    """One invoice

     Family S. One invoice: `pending` until a matching transfer is confirmed (`paid`), its expiry passes
    (`expired`) or a confirmed payment does not match (`failed`).

    Args:
        invoice_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | GetCustodyInvoicesByInvoiceIdResponse200
    """

    return (
        await asyncio_detailed(
            invoice_id=invoice_id,
            client=client,
        )
    ).parsed
