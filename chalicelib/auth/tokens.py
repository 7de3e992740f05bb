"""The service's JWTs (EdDSA, `kid` in the header, keys published at /.well-known/jwks.json).

Two kinds: an *access* token for a user without a wallet (it may only create,
recover or import one) and a *wallet* token for wallet operations. Claims:
iss, aud, sub (user id), cid (client id), sid (the client's subject id), kind,
iat, exp, jti.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from enum import StrEnum

from chalicelib.auth import jwt_keys
from chalicelib.platform.clock import epoch
from chalicelib.platform.errors import unauthorized
from chalicelib.platform.settings import load_settings

AUDIENCE = "dompet-wallet-api"
INVALID_TOKEN = "INVALID_TOKEN"
TOKEN_EXPIRED = "TOKEN_EXPIRED"
LEEWAY_S = 5  # clock skew between the function instance that issued a token and the one that checks it


class TokenKind(StrEnum):
    ACCESS = "access"
    WALLET = "wallet"


@dataclass(frozen=True)
class Claims:
    user_id: str
    client_id: str
    sub_id: str
    kind: TokenKind
    issued_at: int
    expires_at: int
    token_id: str


@dataclass(frozen=True)
class IssuedToken:
    claims: Claims
    token: str


def issue(
    kind: TokenKind, *, user_id: str, client_id: str, sub_id: str, ttl_s: int, expires_at: int | None = None
) -> IssuedToken:
    """A signed JWT valid for `ttl_s`, or until `expires_at` (epoch s) when given; never beyond the maximum."""
    import jwt

    now = epoch()
    expiry = min(expires_at if expires_at is not None else now + ttl_s, now + jwt_keys.MAX_TOKEN_LIFETIME_S)
    claims = Claims(user_id, client_id, sub_id, kind, now, expiry, str(uuid.uuid4()))
    key = jwt_keys.load().current()
    payload = {
        "iss": load_settings().jwt_issuer,
        "aud": AUDIENCE,
        "sub": user_id,
        "cid": client_id,
        "sid": sub_id,
        "kind": kind.value,
        "iat": claims.issued_at,
        "exp": claims.expires_at,
        "jti": claims.token_id,
    }
    token = jwt.encode(payload, key.private_key(), algorithm="EdDSA", headers={"kid": key.kid})
    return IssuedToken(claims, token)


def verify(token: str) -> Claims:
    import jwt

    try:
        kid = jwt.get_unverified_header(token).get("kid")
    except jwt.PyJWTError:
        raise unauthorized(INVALID_TOKEN, "Token is malformed") from None
    key = jwt_keys.find(kid) if isinstance(kid, str) else None
    if key is None:
        raise unauthorized(INVALID_TOKEN, "Token was not signed by this service")
    try:
        payload = jwt.decode(
            token,
            key.public_key(),
            algorithms=["EdDSA"],
            audience=AUDIENCE,
            issuer=load_settings().jwt_issuer,
            # Times are checked below against the service's one clock (platform/clock), not the library's.
            options={"require": ["exp", "iat", "sub", "aud", "iss", "jti"], "verify_exp": False, "verify_iat": False},
        )
        issued_at, expires_at = payload["iat"], payload["exp"]
        if not isinstance(issued_at, int) or not isinstance(expires_at, int) or issued_at > epoch() + LEEWAY_S:
            raise unauthorized(INVALID_TOKEN, "Token is invalid")
        if expires_at <= epoch() - LEEWAY_S:
            raise unauthorized(TOKEN_EXPIRED, "Token has expired")
        return Claims(
            user_id=str(payload["sub"]),
            client_id=str(payload["cid"]),
            sub_id=str(payload["sid"]),
            kind=TokenKind(payload["kind"]),
            issued_at=issued_at,
            expires_at=expires_at,
            token_id=str(payload["jti"]),
        )
    except (jwt.PyJWTError, KeyError, ValueError):
        raise unauthorized(INVALID_TOKEN, "Token is invalid") from None
