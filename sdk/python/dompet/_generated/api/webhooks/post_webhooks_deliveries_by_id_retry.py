from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_envelope import ErrorEnvelope
from ...models.post_webhooks_deliveries_by_id_retry_response_200 import (
    PostWebhooksDeliveriesByIdRetryResponse200,
)
from ...types import Response


def _get_kwargs(
    id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/webhooks/deliveries/{id}/retry".format(
            id=quote(str(id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | PostWebhooksDeliveriesByIdRetryResponse200 | None:
    if response.status_code == 200:
        response_200 = PostWebhooksDeliveriesByIdRetryResponse200.from_dict(
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

    if response.status_code == 409:
        response_409 = ErrorEnvelope.from_dict(response.json())

        return response_409

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
) -> Response[ErrorEnvelope | PostWebhooksDeliveriesByIdRetryResponse200]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: str,
    *,
    client: AuthenticatedClient,
) -> Response[ErrorEnvelope | PostWebhooksDeliveriesByIdRetryResponse200]:
    """Deliver a failed delivery again (same event id), from attempt 1

     Family S. Only a `failed` delivery: it is pending again, due now, with the same event id and
    attempts counted from 1, to the app's current URL; `409 WEBHOOK_NOT_CONFIGURED` without one, `409
    WEBHOOK_PAUSED` while deliveries are paused in the console.

    Args:
        id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PostWebhooksDeliveriesByIdRetryResponse200]
    """

    kwargs = _get_kwargs(
        id=id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: str,
    *,
    client: AuthenticatedClient,
) -> ErrorEnvelope | PostWebhooksDeliveriesByIdRetryResponse200 | None:
    """Deliver a failed delivery again (same event id), from attempt 1

     Family S. Only a `failed` delivery: it is pending again, due now, with the same event id and
    attempts counted from 1, to the app's current URL; `409 WEBHOOK_NOT_CONFIGURED` without one, `409
    WEBHOOK_PAUSED` while deliveries are paused in the console.

    Args:
        id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PostWebhooksDeliveriesByIdRetryResponse200
    """

    return sync_detailed(
        id=id,
        client=client,
    ).parsed


async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient,
) -> Response[ErrorEnvelope | PostWebhooksDeliveriesByIdRetryResponse200]:
    """Deliver a failed delivery again (same event id), from attempt 1

     Family S. Only a `failed` delivery: it is pending again, due now, with the same event id and
    attempts counted from 1, to the app's current URL; `409 WEBHOOK_NOT_CONFIGURED` without one, `409
    WEBHOOK_PAUSED` while deliveries are paused in the console.

    Args:
        id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PostWebhooksDeliveriesByIdRetryResponse200]
    """

    kwargs = _get_kwargs(
        id=id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient,
) -> ErrorEnvelope | PostWebhooksDeliveriesByIdRetryResponse200 | None:
    """Deliver a failed delivery again (same event id), from attempt 1

     Family S. Only a `failed` delivery: it is pending again, due now, with the same event id and
    attempts counted from 1, to the app's current URL; `409 WEBHOOK_NOT_CONFIGURED` without one, `409
    WEBHOOK_PAUSED` while deliveries are paused in the console.

    Args:
        id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PostWebhooksDeliveriesByIdRetryResponse200
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
        )
    ).parsed
