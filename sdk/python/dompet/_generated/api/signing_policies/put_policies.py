from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_envelope import ErrorEnvelope
from ...models.policy_body import PolicyBody
from ...models.put_policies_response_200 import PutPoliciesResponse200
from ...types import Response


def _get_kwargs(
    *,
    body: PolicyBody,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "put",
        "url": "/api/v1/policies",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | PutPoliciesResponse200 | None:
    if response.status_code == 200:
        response_200 = PutPoliciesResponse200.from_dict(response.json())

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
) -> Response[ErrorEnvelope | PutPoliciesResponse200]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: PolicyBody,
) -> Response[ErrorEnvelope | PutPoliciesResponse200]:
    """Set the app's signing policy (signed by the app's policy key)

     The cosigner verifies `signature` (Ed25519, by the policy key the operator registered for the app)
    over the RFC 8785 canonical JSON of `{appId, policy}` (this app's id: a document signed for another
    app is refused), checks the document and that its `version` is higher than the stored one, and keeps
    its own copy; from then on it applies it to every signature of the client's MPC wallets
    (docs/policies.md). `400 INVALID_POLICY` (`data.field` names the problem) or `POLICY_TOO_LARGE`;
    `403 POLICY_SIGNATURE_INVALID`; `409 NO_POLICY_KEY` (none registered) or `POLICY_VERSION_STALE` (the
    same or an older version: a signed document cannot be replayed); `503 SIGNER_UNAVAILABLE` (nothing
    stored, retry).

    Args:
        body (PolicyBody): `PUT /api/v1/policies`: the document and the policy key's signature of
            it for this app (canonical JSON).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PutPoliciesResponse200]
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
    body: PolicyBody,
) -> ErrorEnvelope | PutPoliciesResponse200 | None:
    """Set the app's signing policy (signed by the app's policy key)

     The cosigner verifies `signature` (Ed25519, by the policy key the operator registered for the app)
    over the RFC 8785 canonical JSON of `{appId, policy}` (this app's id: a document signed for another
    app is refused), checks the document and that its `version` is higher than the stored one, and keeps
    its own copy; from then on it applies it to every signature of the client's MPC wallets
    (docs/policies.md). `400 INVALID_POLICY` (`data.field` names the problem) or `POLICY_TOO_LARGE`;
    `403 POLICY_SIGNATURE_INVALID`; `409 NO_POLICY_KEY` (none registered) or `POLICY_VERSION_STALE` (the
    same or an older version: a signed document cannot be replayed); `503 SIGNER_UNAVAILABLE` (nothing
    stored, retry).

    Args:
        body (PolicyBody): `PUT /api/v1/policies`: the document and the policy key's signature of
            it for this app (canonical JSON).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PutPoliciesResponse200
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: PolicyBody,
) -> Response[ErrorEnvelope | PutPoliciesResponse200]:
    """Set the app's signing policy (signed by the app's policy key)

     The cosigner verifies `signature` (Ed25519, by the policy key the operator registered for the app)
    over the RFC 8785 canonical JSON of `{appId, policy}` (this app's id: a document signed for another
    app is refused), checks the document and that its `version` is higher than the stored one, and keeps
    its own copy; from then on it applies it to every signature of the client's MPC wallets
    (docs/policies.md). `400 INVALID_POLICY` (`data.field` names the problem) or `POLICY_TOO_LARGE`;
    `403 POLICY_SIGNATURE_INVALID`; `409 NO_POLICY_KEY` (none registered) or `POLICY_VERSION_STALE` (the
    same or an older version: a signed document cannot be replayed); `503 SIGNER_UNAVAILABLE` (nothing
    stored, retry).

    Args:
        body (PolicyBody): `PUT /api/v1/policies`: the document and the policy key's signature of
            it for this app (canonical JSON).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | PutPoliciesResponse200]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: PolicyBody,
) -> ErrorEnvelope | PutPoliciesResponse200 | None:
    """Set the app's signing policy (signed by the app's policy key)

     The cosigner verifies `signature` (Ed25519, by the policy key the operator registered for the app)
    over the RFC 8785 canonical JSON of `{appId, policy}` (this app's id: a document signed for another
    app is refused), checks the document and that its `version` is higher than the stored one, and keeps
    its own copy; from then on it applies it to every signature of the client's MPC wallets
    (docs/policies.md). `400 INVALID_POLICY` (`data.field` names the problem) or `POLICY_TOO_LARGE`;
    `403 POLICY_SIGNATURE_INVALID`; `409 NO_POLICY_KEY` (none registered) or `POLICY_VERSION_STALE` (the
    same or an older version: a signed document cannot be replayed); `503 SIGNER_UNAVAILABLE` (nothing
    stored, retry).

    Args:
        body (PolicyBody): `PUT /api/v1/policies`: the document and the policy key's signature of
            it for this app (canonical JSON).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | PutPoliciesResponse200
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
