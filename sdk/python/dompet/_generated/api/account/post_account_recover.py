from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_envelope import ErrorEnvelope
from ...models.post_account_recover_response_200 import PostAccountRecoverResponse200
from ...models.recover_wallet_request import RecoverWalletRequest
from ...types import Response


def _get_kwargs(
    *,
    body: RecoverWalletRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/account/recover",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | PostAccountRecoverResponse200 | None:
    if response.status_code == 200:
        response_200 = PostAccountRecoverResponse200.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = ErrorEnvelope.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ErrorEnvelope.from_dict(response.json())

        return response_401

    if response.status_code == 409:
        response_409 = ErrorEnvelope.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = ErrorEnvelope.from_dict(response.json())

        return response_413

    if response.status_code == 415:
        response_415 = ErrorEnvelope.from_dict(response.json())

        return response_415

    if response.status_code == 422:
        response_422 = ErrorEnvelope.from_dict(response.json())

        return response_422

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
) -> Response[ErrorEnvelope | PostAccountRecoverResponse200]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: RecoverWalletRequest,
) -> Response[ErrorEnvelope | PostAccountRecoverResponse200]:
    """Bind an existing wallet to this user with its secret0

     JSON `{secret0}`, or multipart/form-data with the recovery file in part `file`. The wallet moves to
    the presenting user (of the same client); its previous user loses it and every token issued to them.
    Shares and secret0 stay the same (docs/mpc.md).

    Args:
        body (RecoverWalletRequest): JSON `{secret0}`; or multipart/form-data with the recovery
            file in part `file`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PostAccountRecoverResponse200]
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
    body: RecoverWalletRequest,
) -> ErrorEnvelope | PostAccountRecoverResponse200 | None:
    """Bind an existing wallet to this user with its secret0

     JSON `{secret0}`, or multipart/form-data with the recovery file in part `file`. The wallet moves to
    the presenting user (of the same client); its previous user loses it and every token issued to them.
    Shares and secret0 stay the same (docs/mpc.md).

    Args:
        body (RecoverWalletRequest): JSON `{secret0}`; or multipart/form-data with the recovery
            file in part `file`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PostAccountRecoverResponse200
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: RecoverWalletRequest,
) -> Response[ErrorEnvelope | PostAccountRecoverResponse200]:
    """Bind an existing wallet to this user with its secret0

     JSON `{secret0}`, or multipart/form-data with the recovery file in part `file`. The wallet moves to
    the presenting user (of the same client); its previous user loses it and every token issued to them.
    Shares and secret0 stay the same (docs/mpc.md).

    Args:
        body (RecoverWalletRequest): JSON `{secret0}`; or multipart/form-data with the recovery
            file in part `file`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PostAccountRecoverResponse200]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: RecoverWalletRequest,
) -> ErrorEnvelope | PostAccountRecoverResponse200 | None:
    """Bind an existing wallet to this user with its secret0

     JSON `{secret0}`, or multipart/form-data with the recovery file in part `file`. The wallet moves to
    the presenting user (of the same client); its previous user loses it and every token issued to them.
    Shares and secret0 stay the same (docs/mpc.md).

    Args:
        body (RecoverWalletRequest): JSON `{secret0}`; or multipart/form-data with the recovery
            file in part `file`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PostAccountRecoverResponse200
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
