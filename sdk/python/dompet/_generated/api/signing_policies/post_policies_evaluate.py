from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_envelope import ErrorEnvelope
from ...models.evaluate_body import EvaluateBody
from ...models.post_policies_evaluate_response_200 import (
    PostPoliciesEvaluateResponse200,
)
from ...types import Response


def _get_kwargs(
    *,
    body: EvaluateBody,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/policies/evaluate",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | PostPoliciesEvaluateResponse200 | None:
    if response.status_code == 200:
        response_200 = PostPoliciesEvaluateResponse200.from_dict(response.json())

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
) -> Response[ErrorEnvelope | PostPoliciesEvaluateResponse200]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: EvaluateBody,
) -> Response[ErrorEnvelope | PostPoliciesEvaluateResponse200]:
    """Would the policy allow this? (nothing is signed or counted)

     Exactly one of `transaction` (`network`, `to`, `value` in wei, `data`), `message` (with `encoding`),
    `typedData` or `authorization` (`network` or `chainId`, "0" for any chain, and `contractAddress`,
    the delegate), checked as the wallet routes check them. The cosigner's engine decides as it would
    for a signature: `{allowed, rule, reason}`, `rule` the path of the deciding rule. With
    `walletAddress` (a wallet of the app's client, else `404 WALLET_NOT_FOUND`) the 24 h limits count
    that wallet's last 24 hours.

    Args:
        body (EvaluateBody): `POST /api/v1/policies/evaluate`: exactly one of `transaction`,
            `message`, `typedData`, `authorization`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PostPoliciesEvaluateResponse200]
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
    body: EvaluateBody,
) -> ErrorEnvelope | PostPoliciesEvaluateResponse200 | None:
    """Would the policy allow this? (nothing is signed or counted)

     Exactly one of `transaction` (`network`, `to`, `value` in wei, `data`), `message` (with `encoding`),
    `typedData` or `authorization` (`network` or `chainId`, "0" for any chain, and `contractAddress`,
    the delegate), checked as the wallet routes check them. The cosigner's engine decides as it would
    for a signature: `{allowed, rule, reason}`, `rule` the path of the deciding rule. With
    `walletAddress` (a wallet of the app's client, else `404 WALLET_NOT_FOUND`) the 24 h limits count
    that wallet's last 24 hours.

    Args:
        body (EvaluateBody): `POST /api/v1/policies/evaluate`: exactly one of `transaction`,
            `message`, `typedData`, `authorization`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PostPoliciesEvaluateResponse200
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: EvaluateBody,
) -> Response[ErrorEnvelope | PostPoliciesEvaluateResponse200]:
    """Would the policy allow this? (nothing is signed or counted)

     Exactly one of `transaction` (`network`, `to`, `value` in wei, `data`), `message` (with `encoding`),
    `typedData` or `authorization` (`network` or `chainId`, "0" for any chain, and `contractAddress`,
    the delegate), checked as the wallet routes check them. The cosigner's engine decides as it would
    for a signature: `{allowed, rule, reason}`, `rule` the path of the deciding rule. With
    `walletAddress` (a wallet of the app's client, else `404 WALLET_NOT_FOUND`) the 24 h limits count
    that wallet's last 24 hours.

    Args:
        body (EvaluateBody): `POST /api/v1/policies/evaluate`: exactly one of `transaction`,
            `message`, `typedData`, `authorization`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PostPoliciesEvaluateResponse200]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: EvaluateBody,
) -> ErrorEnvelope | PostPoliciesEvaluateResponse200 | None:
    """Would the policy allow this? (nothing is signed or counted)

     Exactly one of `transaction` (`network`, `to`, `value` in wei, `data`), `message` (with `encoding`),
    `typedData` or `authorization` (`network` or `chainId`, "0" for any chain, and `contractAddress`,
    the delegate), checked as the wallet routes check them. The cosigner's engine decides as it would
    for a signature: `{allowed, rule, reason}`, `rule` the path of the deciding rule. With
    `walletAddress` (a wallet of the app's client, else `404 WALLET_NOT_FOUND`) the 24 h limits count
    that wallet's last 24 hours.

    Args:
        body (EvaluateBody): `POST /api/v1/policies/evaluate`: exactly one of `transaction`,
            `message`, `typedData`, `authorization`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PostPoliciesEvaluateResponse200
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
