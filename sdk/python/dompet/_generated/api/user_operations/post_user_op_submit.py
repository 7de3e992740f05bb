from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_envelope import ErrorEnvelope
from ...models.post_user_op_submit_response_200 import PostUserOpSubmitResponse200
from ...models.submit import Submit
from ...types import Response


def _get_kwargs(
    *,
    body: Submit,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/userOp/submit",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | PostUserOpSubmitResponse200 | None:
    if response.status_code == 200:
        response_200 = PostUserOpSubmitResponse200.from_dict(response.json())

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

    if response.status_code == 409:
        response_409 = ErrorEnvelope.from_dict(response.json())

        return response_409

    if response.status_code == 415:
        response_415 = ErrorEnvelope.from_dict(response.json())

        return response_415

    if response.status_code == 422:
        response_422 = ErrorEnvelope.from_dict(response.json())

        return response_422

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
) -> Response[ErrorEnvelope | PostUserOpSubmitResponse200]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: Submit,
) -> Response[ErrorEnvelope | PostUserOpSubmitResponse200]:
    """Submit a signed operation: charge the payer's gas tank and send it to the bundler

     Family S. Checks the owner's signature and the hash, charges the paying tank its maximum cost (the
    organization's when `isSponsored`, else the owner's), and sends the operation to the bundler: status
    `on_process`, then `success` or `failed` (events `userOp.success` / `userOp.failed`); the unused
    part of the charge is refunded. A sponsored operation is first judged by the app's gas sponsorship
    policy (`PUT /api/v1/client/gasTank/policy`), atomically with its debit: refused, it is `403
    SPONSORSHIP_DENIED` with `data.rule`, and nothing is charged or sent. An `eip7702` account's
    operation (`bundlerVersion` `0.8`) is signed over its hash itself (sign-typed-data of the hash
    call's `typedData`), and one that `delegates` the wallet needs `eip7702Auth`: the wallet's
    authorization of the network's Simple7702Account at its current nonce (POST /api/v1/wallet/sign-
    authorization).

    Args:
        body (Submit):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PostUserOpSubmitResponse200]
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
    body: Submit,
) -> ErrorEnvelope | PostUserOpSubmitResponse200 | None:
    """Submit a signed operation: charge the payer's gas tank and send it to the bundler

     Family S. Checks the owner's signature and the hash, charges the paying tank its maximum cost (the
    organization's when `isSponsored`, else the owner's), and sends the operation to the bundler: status
    `on_process`, then `success` or `failed` (events `userOp.success` / `userOp.failed`); the unused
    part of the charge is refunded. A sponsored operation is first judged by the app's gas sponsorship
    policy (`PUT /api/v1/client/gasTank/policy`), atomically with its debit: refused, it is `403
    SPONSORSHIP_DENIED` with `data.rule`, and nothing is charged or sent. An `eip7702` account's
    operation (`bundlerVersion` `0.8`) is signed over its hash itself (sign-typed-data of the hash
    call's `typedData`), and one that `delegates` the wallet needs `eip7702Auth`: the wallet's
    authorization of the network's Simple7702Account at its current nonce (POST /api/v1/wallet/sign-
    authorization).

    Args:
        body (Submit):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PostUserOpSubmitResponse200
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: Submit,
) -> Response[ErrorEnvelope | PostUserOpSubmitResponse200]:
    """Submit a signed operation: charge the payer's gas tank and send it to the bundler

     Family S. Checks the owner's signature and the hash, charges the paying tank its maximum cost (the
    organization's when `isSponsored`, else the owner's), and sends the operation to the bundler: status
    `on_process`, then `success` or `failed` (events `userOp.success` / `userOp.failed`); the unused
    part of the charge is refunded. A sponsored operation is first judged by the app's gas sponsorship
    policy (`PUT /api/v1/client/gasTank/policy`), atomically with its debit: refused, it is `403
    SPONSORSHIP_DENIED` with `data.rule`, and nothing is charged or sent. An `eip7702` account's
    operation (`bundlerVersion` `0.8`) is signed over its hash itself (sign-typed-data of the hash
    call's `typedData`), and one that `delegates` the wallet needs `eip7702Auth`: the wallet's
    authorization of the network's Simple7702Account at its current nonce (POST /api/v1/wallet/sign-
    authorization).

    Args:
        body (Submit):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PostUserOpSubmitResponse200]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: Submit,
) -> ErrorEnvelope | PostUserOpSubmitResponse200 | None:
    """Submit a signed operation: charge the payer's gas tank and send it to the bundler

     Family S. Checks the owner's signature and the hash, charges the paying tank its maximum cost (the
    organization's when `isSponsored`, else the owner's), and sends the operation to the bundler: status
    `on_process`, then `success` or `failed` (events `userOp.success` / `userOp.failed`); the unused
    part of the charge is refunded. A sponsored operation is first judged by the app's gas sponsorship
    policy (`PUT /api/v1/client/gasTank/policy`), atomically with its debit: refused, it is `403
    SPONSORSHIP_DENIED` with `data.rule`, and nothing is charged or sent. An `eip7702` account's
    operation (`bundlerVersion` `0.8`) is signed over its hash itself (sign-typed-data of the hash
    call's `typedData`), and one that `delegates` the wallet needs `eip7702Auth`: the wallet's
    authorization of the network's Simple7702Account at its current nonce (POST /api/v1/wallet/sign-
    authorization).

    Args:
        body (Submit):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PostUserOpSubmitResponse200
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
