from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_envelope import ErrorEnvelope
from ...models.get_custody_networks_by_network_watcher_response_200 import (
    GetCustodyNetworksByNetworkWatcherResponse200,
)
from ...types import Response


def _get_kwargs(
    network: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/custody/networks/{network}/watcher".format(
            network=quote(str(network), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | GetCustodyNetworksByNetworkWatcherResponse200 | None:
    if response.status_code == 200:
        response_200 = GetCustodyNetworksByNetworkWatcherResponse200.from_dict(
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
) -> Response[ErrorEnvelope | GetCustodyNetworksByNetworkWatcherResponse200]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    network: str,
    *,
    client: AuthenticatedClient,
) -> Response[ErrorEnvelope | GetCustodyNetworksByNetworkWatcherResponse200]:
    """The deposit watcher of a network: cursor, head, lag

     Family S. Where the network's deposit watcher is: the last block scanned (`cursor`), the chain head
    and the lag between them.

    Args:
        network (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | GetCustodyNetworksByNetworkWatcherResponse200]
    """

    kwargs = _get_kwargs(
        network=network,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    network: str,
    *,
    client: AuthenticatedClient,
) -> ErrorEnvelope | GetCustodyNetworksByNetworkWatcherResponse200 | None:
    """The deposit watcher of a network: cursor, head, lag

     Family S. Where the network's deposit watcher is: the last block scanned (`cursor`), the chain head
    and the lag between them.

    Args:
        network (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | GetCustodyNetworksByNetworkWatcherResponse200
    """

    return sync_detailed(
        network=network,
        client=client,
    ).parsed


async def asyncio_detailed(
    network: str,
    *,
    client: AuthenticatedClient,
) -> Response[ErrorEnvelope | GetCustodyNetworksByNetworkWatcherResponse200]:
    """The deposit watcher of a network: cursor, head, lag

     Family S. Where the network's deposit watcher is: the last block scanned (`cursor`), the chain head
    and the lag between them.

    Args:
        network (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | GetCustodyNetworksByNetworkWatcherResponse200]
    """

    kwargs = _get_kwargs(
        network=network,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    network: str,
    *,
    client: AuthenticatedClient,
) -> ErrorEnvelope | GetCustodyNetworksByNetworkWatcherResponse200 | None:
    """The deposit watcher of a network: cursor, head, lag

     Family S. Where the network's deposit watcher is: the last block scanned (`cursor`), the chain head
    and the lag between them.

    Args:
        network (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | GetCustodyNetworksByNetworkWatcherResponse200
    """

    return (
        await asyncio_detailed(
            network=network,
            client=client,
        )
    ).parsed
