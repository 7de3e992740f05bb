"""Auth routes (both families), the JWKS and the signing-key rotation schedule."""

from __future__ import annotations

import json
from typing import Any

from chalice import Blueprint, Response

from chalicelib.auth import guards, jwt_keys, service
from chalicelib.auth.models import LoginRequest, RefreshRequest, SessionInfo, TokenPair, WhoAmI
from chalicelib.platform.consumers import scheduled
from chalicelib.platform.router import Call, Reply, document_route, route

bp = Blueprint(__name__)


@route(
    bp,
    "/api/v1/auth/login",
    "POST",
    summary="Log a user in on behalf of the client's backend",
    description="The client's backend vouches for its user `subId`. Users without a wallet get an access token "
    "(it may only create, recover or import a wallet), users with one a wallet token.",
    tag="Auth",
    guard=guards.client_secret,
    body=LoginRequest,
    response=TokenPair,
    message="login successfully",
)
def login(call: Call) -> Reply:
    return Reply(service.login(call.principal, call.body.subId), "login successfully")


@route(
    bp,
    "/api/v1/auth/refresh",
    "POST",
    summary="Exchange a refresh token for a new token pair",
    description="Refresh tokens are single use; presenting a used one again revokes every refresh token of that "
    "login and every access or wallet token issued to the user so far.",
    tag="Auth",
    guard=guards.client_secret,
    body=RefreshRequest,
    response=TokenPair,
    message="token refreshed successfully",
    errors={401: ("INVALID_REFRESH_TOKEN", "REFRESH_TOKEN_REUSED"), 503: ("LIST_BUSY",)},
)
def refresh(call: Call) -> Reply:
    return Reply(service.refresh_tokens(call.principal, call.body.refreshToken), "token refreshed successfully")


@route(
    bp,
    "/api/v1/auth/session",
    "GET",
    summary="Who the token belongs to",
    tag="Auth",
    guard=guards.any_user_token,
    response=SessionInfo,
    description="Family W, either token kind. The user behind the bearer token: its ids, the token's kind and "
    "expiry, and the wallet address once the user has a wallet.",
)
def session(call: Call) -> Reply:
    return Reply(service.session(call.principal))


@route(
    bp,
    "/api/v1/auth/whoami",
    "GET",
    summary="The app a signed request comes from",
    tag="Auth",
    guard=guards.signed_request,
    response=WhoAmI,
    description="Family S. Answers the app, client and organization a correctly signed request belongs to: the "
    "quickest way to check a signing implementation (see the `appSignature` scheme).",
)
def whoami(call: Call) -> Reply:
    app = call.principal
    return Reply(WhoAmI(appId=app.appId, clientId=app.clientId, organizationId=app.organizationId))


@document_route(bp, "/.well-known/jwks.json")
def jwks() -> Response:
    # A bare JWK Set (RFC 7517), not the envelope, so JWT libraries can read it directly.
    return Response(
        body=json.dumps(jwt_keys.load().jwks()),
        headers={"Content-Type": "application/jwk-set+json", "Cache-Control": "public, max-age=300"},
    )


def rotate_signing_keys(event: Any) -> None:
    # The same schedule (and first-deploy trigger) initialises and rotates.
    scheduled("rotate_signing_keys", event, jwt_keys.rotate)
