from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_envelope import ErrorEnvelope
from ...models.post_user_op_sponsorship_check_response_200 import (
    PostUserOpSponsorshipCheckResponse200,
)
from ...models.sponsorship_check_request import SponsorshipCheckRequest
from ...types import Response


def _get_kwargs(
    *,
    body: SponsorshipCheckRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/userOp/sponsorship/check",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | PostUserOpSponsorshipCheckResponse200 | None:
    if response.status_code == 200:
        response_200 = PostUserOpSponsorshipCheckResponse200.from_dict(response.json())

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
) -> Response[ErrorEnvelope | PostUserOpSponsorshipCheckResponse200]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: SponsorshipCheckRequest,
) -> Response[ErrorEnvelope | PostUserOpSponsorshipCheckResponse200]:
    """Would the app's gas sponsorship policy pay for this operation, and what is left of each cap

     Family S. Either `{userOpId}` (an operation that was hashed) or the `signTransaction/estimate` body
    (`accountId`, `to`, `value`, `callData`). Judges it by the app's sponsorship policy now, as a
    sponsored submit would, and answers the rule that would refuse it and what is left of each cap (null
    where the policy sets none). Counts, charges and sends nothing.

    Args:
        body (SponsorshipCheckRequest): Either an operation that was hashed (`userOpId`), or a
            call to estimate (`accountId`, `to`, `value`,
            `callData`: the `signTransaction/estimate` body).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PostUserOpSponsorshipCheckResponse200]
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
    body: SponsorshipCheckRequest,
) -> ErrorEnvelope | PostUserOpSponsorshipCheckResponse200 | None:
    """Would the app's gas sponsorship policy pay for this operation, and what is left of each cap

     Family S. Either `{userOpId}` (an operation that was hashed) or the `signTransaction/estimate` body
    (`accountId`, `to`, `value`, `callData`). Judges it by the app's sponsorship policy now, as a
    sponsored submit would, and answers the rule that would refuse it and what is left of each cap (null
    where the policy sets none). Counts, charges and sends nothing.

    Args:
        body (SponsorshipCheckRequest): Either an operation that was hashed (`userOpId`), or a
            call to estimate (`accountId`, `to`, `value`,
            `callData`: the `signTransaction/estimate` body).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PostUserOpSponsorshipCheckResponse200
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: SponsorshipCheckRequest,
) -> Response[ErrorEnvelope | PostUserOpSponsorshipCheckResponse200]:
    """Would the app's gas sponsorship policy pay for this operation, and what is left of each cap

     Family S. Either `{userOpId}` (an operation that was hashed) or the `signTransaction/estimate` body
    (`accountId`, `to`, `value`, `callData`). Judges it by the app's sponsorship policy now, as a
    sponsored submit would, and answers the rule that would refuse it and what is left of each cap (null
    where the policy sets none). Counts, charges and sends nothing.

    Args:
        body (SponsorshipCheckRequest): Either an operation that was hashed (`userOpId`), or a
            call to estimate (`accountId`, `to`, `value`,
            `callData`: the `signTransaction/estimate` body).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PostUserOpSponsorshipCheckResponse200]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: SponsorshipCheckRequest,
) -> ErrorEnvelope | PostUserOpSponsorshipCheckResponse200 | None:
    """Would the app's gas sponsorship policy pay for this operation, and what is left of each cap

     Family S. Either `{userOpId}` (an operation that was hashed) or the `signTransaction/estimate` body
    (`accountId`, `to`, `value`, `callData`). Judges it by the app's sponsorship policy now, as a
    sponsored submit would, and answers the rule that would refuse it and what is left of each cap (null
    where the policy sets none). Counts, charges and sends nothing.

    Args:
        body (SponsorshipCheckRequest): Either an operation that was hashed (`userOpId`), or a
            call to estimate (`accountId`, `to`, `value`,
            `callData`: the `signTransaction/estimate` body).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PostUserOpSponsorshipCheckResponse200
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
