from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_envelope import ErrorEnvelope
from ...models.key_rotation_body import KeyRotationBody
from ...models.put_policies_key_response_200 import PutPoliciesKeyResponse200
from ...types import Response


def _get_kwargs(
    *,
    body: KeyRotationBody,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "put",
        "url": "/api/v1/policies/key",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | PutPoliciesKeyResponse200 | None:
    if response.status_code == 200:
        response_200 = PutPoliciesKeyResponse200.from_dict(response.json())

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
) -> Response[ErrorEnvelope | PutPoliciesKeyResponse200]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: KeyRotationBody,
) -> Response[ErrorEnvelope | PutPoliciesKeyResponse200]:
    """Rotate the app's policy key (signed by the current key)

     The current key signs the canonical JSON of `{action: "rotate-policy-key", appId, publicKey,
    sequence}` with `sequence` one more than the current key's (the operator's registration is 1). `400
    INVALID_POLICY_KEY`; `403 POLICY_SIGNATURE_INVALID`; `409 NO_POLICY_KEY`. The stored policy stays in
    force; later documents must be signed by the new key.

    Args:
        body (KeyRotationBody): `PUT /api/v1/policies/key`: the new key, signed by the current
            one.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PutPoliciesKeyResponse200]
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
    body: KeyRotationBody,
) -> ErrorEnvelope | PutPoliciesKeyResponse200 | None:
    """Rotate the app's policy key (signed by the current key)

     The current key signs the canonical JSON of `{action: "rotate-policy-key", appId, publicKey,
    sequence}` with `sequence` one more than the current key's (the operator's registration is 1). `400
    INVALID_POLICY_KEY`; `403 POLICY_SIGNATURE_INVALID`; `409 NO_POLICY_KEY`. The stored policy stays in
    force; later documents must be signed by the new key.

    Args:
        body (KeyRotationBody): `PUT /api/v1/policies/key`: the new key, signed by the current
            one.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PutPoliciesKeyResponse200
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: KeyRotationBody,
) -> Response[ErrorEnvelope | PutPoliciesKeyResponse200]:
    """Rotate the app's policy key (signed by the current key)

     The current key signs the canonical JSON of `{action: "rotate-policy-key", appId, publicKey,
    sequence}` with `sequence` one more than the current key's (the operator's registration is 1). `400
    INVALID_POLICY_KEY`; `403 POLICY_SIGNATURE_INVALID`; `409 NO_POLICY_KEY`. The stored policy stays in
    force; later documents must be signed by the new key.

    Args:
        body (KeyRotationBody): `PUT /api/v1/policies/key`: the new key, signed by the current
            one.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PutPoliciesKeyResponse200]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: KeyRotationBody,
) -> ErrorEnvelope | PutPoliciesKeyResponse200 | None:
    """Rotate the app's policy key (signed by the current key)

     The current key signs the canonical JSON of `{action: "rotate-policy-key", appId, publicKey,
    sequence}` with `sequence` one more than the current key's (the operator's registration is 1). `400
    INVALID_POLICY_KEY`; `403 POLICY_SIGNATURE_INVALID`; `409 NO_POLICY_KEY`. The stored policy stays in
    force; later documents must be signed by the new key.

    Args:
        body (KeyRotationBody): `PUT /api/v1/policies/key`: the new key, signed by the current
            one.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PutPoliciesKeyResponse200
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
