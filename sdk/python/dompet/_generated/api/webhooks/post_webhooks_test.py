from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_envelope import ErrorEnvelope
from ...models.post_webhooks_test_response_200 import PostWebhooksTestResponse200
from ...types import Response


def _get_kwargs() -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/webhooks/test",
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | PostWebhooksTestResponse200 | None:
    if response.status_code == 200:
        response_200 = PostWebhooksTestResponse200.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = ErrorEnvelope.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ErrorEnvelope.from_dict(response.json())

        return response_403

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
) -> Response[ErrorEnvelope | PostWebhooksTestResponse200]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
) -> Response[ErrorEnvelope | PostWebhooksTestResponse200]:
    """Queue a webhook.test event to the configured URL

     Family S. Queues a `webhook.test` event (its `id` a random UUID) to the configured URL and answers
    its event and delivery ids; `409 WEBHOOK_NOT_CONFIGURED` without a URL, `409 WEBHOOK_PAUSED` while
    deliveries are paused in the console.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PostWebhooksTestResponse200]
    """

    kwargs = _get_kwargs()

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
) -> ErrorEnvelope | PostWebhooksTestResponse200 | None:
    """Queue a webhook.test event to the configured URL

     Family S. Queues a `webhook.test` event (its `id` a random UUID) to the configured URL and answers
    its event and delivery ids; `409 WEBHOOK_NOT_CONFIGURED` without a URL, `409 WEBHOOK_PAUSED` while
    deliveries are paused in the console.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PostWebhooksTestResponse200
    """

    return sync_detailed(
        client=client,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
) -> Response[ErrorEnvelope | PostWebhooksTestResponse200]:
    """Queue a webhook.test event to the configured URL

     Family S. Queues a `webhook.test` event (its `id` a random UUID) to the configured URL and answers
    its event and delivery ids; `409 WEBHOOK_NOT_CONFIGURED` without a URL, `409 WEBHOOK_PAUSED` while
    deliveries are paused in the console.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PostWebhooksTestResponse200]
    """

    kwargs = _get_kwargs()

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
) -> ErrorEnvelope | PostWebhooksTestResponse200 | None:
    """Queue a webhook.test event to the configured URL

     Family S. Queues a `webhook.test` event (its `id` a random UUID) to the configured URL and answers
    its event and delivery ids; `409 WEBHOOK_NOT_CONFIGURED` without a URL, `409 WEBHOOK_PAUSED` while
    deliveries are paused in the console.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PostWebhooksTestResponse200
    """

    return (
        await asyncio_detailed(
            client=client,
        )
    ).parsed
