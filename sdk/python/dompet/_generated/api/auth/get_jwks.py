from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.get_jwks_response_200 import GetJwksResponse200
from ...types import Response


def _get_kwargs() -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/.well-known/jwks.json",
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> GetJwksResponse200 | None:
    if response.status_code == 200:
        response_200 = GetJwksResponse200.from_dict(response.json())

        return response_200

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[GetJwksResponse200]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
) -> Response[GetJwksResponse200]:
    """Public keys of the service's JWTs (a bare JWK Set, RFC 7517, not the envelope)

     EdDSA (Ed25519) keys by `kid`; a retired key stays published for 30 days. Served bare so that JWT
    libraries can read it.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[GetJwksResponse200]
    """

    kwargs = _get_kwargs()

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
) -> GetJwksResponse200 | None:
    """Public keys of the service's JWTs (a bare JWK Set, RFC 7517, not the envelope)

     EdDSA (Ed25519) keys by `kid`; a retired key stays published for 30 days. Served bare so that JWT
    libraries can read it.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        GetJwksResponse200
    """

    return sync_detailed(
        client=client,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
) -> Response[GetJwksResponse200]:
    """Public keys of the service's JWTs (a bare JWK Set, RFC 7517, not the envelope)

     EdDSA (Ed25519) keys by `kid`; a retired key stays published for 30 days. Served bare so that JWT
    libraries can read it.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[GetJwksResponse200]
    """

    kwargs = _get_kwargs()

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
) -> GetJwksResponse200 | None:
    """Public keys of the service's JWTs (a bare JWK Set, RFC 7517, not the envelope)

     EdDSA (Ed25519) keys by `kid`; a retired key stays published for 30 days. Served bare so that JWT
    libraries can read it.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        GetJwksResponse200
    """

    return (
        await asyncio_detailed(
            client=client,
        )
    ).parsed
