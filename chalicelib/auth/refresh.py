"""Refresh tokens: opaque, single use, rotated on every refresh.

Stored only as SHA-256 hashes in the auth-state table (pk `RT#<hash>`) with a TTL.
Each login starts a family; a refresh marks the presented token used *and* stores the
new token in one transaction. Presenting a used token again means it leaked: the
whole family is revoked (pk `RTFAMILY#<id>`) and so is every JWT issued to the
user until then (users.revoke_tokens), so the thief and the user both have to log
in again.

Except within the reuse interval (settings.refresh_reuse_interval_s, Auth0's
"reuse interval"): a client that retries a refresh (two tabs, a lost response)
gets the very pair the first refresh returned. That pair is kept sealed under
the `sessions` KMS key on the used token's item, written in the same transaction
that marks it used, so every concurrent refresh of one token answers the same pair.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from chalicelib.auth import users
from chalicelib.auth.models import TokenPair
from chalicelib.platform import aws, kms_envelope, unit_of_work
from chalicelib.platform.clock import epoch
from chalicelib.platform.errors import unauthorized
from chalicelib.platform.secrets import digest, new_secret
from chalicelib.platform.settings import load_settings
from chalicelib.platform.unit_of_work import Plan

PREFIX = "drt"
INVALID_REFRESH_TOKEN = "INVALID_REFRESH_TOKEN"
REFRESH_TOKEN_REUSED = "REFRESH_TOKEN_REUSED"
SK = "STATE"
SESSIONS_KEY = "sessions"


@dataclass(frozen=True)
class RefreshGrant:
    client_id: str
    sub_id: str
    family_id: str


Mint = Callable[[RefreshGrant, str], TokenPair]


def issue(client_id: str, sub_id: str) -> str:
    """The first refresh token of a new family (at login)."""
    token = new_secret(PREFIX)
    aws.write(aws.put("refresh-token", "auth-state", _token_item(token, client_id, sub_id, str(uuid.uuid4()))))
    return token


def rotate(token: str, client_id: str, mint: Mint) -> TokenPair:
    """Use a refresh token once: `mint` makes the pair for the next token of the family. A repeat within the
    reuse interval answers the same pair; beyond it the family is revoked."""
    now = epoch()
    key = _key(token)
    item: dict[str, Any] | None = aws.table("auth-state").get_item(Key=key, ConsistentRead=True).get("Item")
    # DynamoDB deletes expired items lazily, so expiry is checked here too.
    if not item or int(item["expiresAt"]) <= now or item["clientId"] != client_id:
        raise unauthorized(INVALID_REFRESH_TOKEN, "Refresh token is invalid or expired")
    grant = RefreshGrant(client_id=client_id, sub_id=str(item["subId"]), family_id=str(item["familyId"]))
    if _family_revoked(grant.family_id, now):
        raise unauthorized(INVALID_REFRESH_TOKEN, "Refresh token is invalid or expired")
    if "usedAt" in item:
        return _repeat(token, item, grant)
    successor = new_secret(PREFIX)
    pair = mint(grant, successor)
    sealed = kms_envelope.seal(SESSIONS_KEY, pair.model_dump_json().encode(), _context(token))
    try:
        unit_of_work.commit(
            Plan(
                items=[
                    aws.update(
                        "used",
                        "auth-state",
                        key,
                        aws.Changes(set={"usedAt": now, "successor": sealed.to_item()}),
                        aws.Condition("attribute_not_exists(usedAt)"),
                    ),
                    aws.put(
                        "successor", "auth-state", _token_item(successor, client_id, grant.sub_id, grant.family_id)
                    ),
                ]
            )
        )
    except aws.TransactionCancelledError as exc:
        if exc.condition_failed("used") and "used" in exc.old:  # a concurrent refresh of this token won
            return _repeat(token, exc.old["used"], grant)
        raise
    # A concurrent reuse beyond the interval may have revoked the family while this pair was minted: its
    # revocation time is taken after the family is marked, so either it covers this pair's `iat`, or the
    # mark is visible here. Never hand out a pair the family's revocation may have missed.
    ensure_family_alive(grant.family_id)
    return pair


def _repeat(token: str, item: dict[str, Any], grant: RefreshGrant) -> TokenPair:
    """The token was used already: the same pair within the reuse interval, otherwise a leak."""
    now = epoch()
    interval = load_settings().refresh_reuse_interval_s
    if interval and now - int(item["usedAt"]) <= interval and "successor" in item:
        ensure_family_alive(grant.family_id)
        sealed = kms_envelope.Sealed.from_item(item["successor"])
        return TokenPair.model_validate_json(kms_envelope.open_sealed(SESSIONS_KEY, sealed, _context(token)))
    _revoke_family(grant.family_id, now + load_settings().refresh_token_ttl_s)
    # The cut-off is read from the clock only now, after the family is marked revoked: a concurrent refresh
    # that won the race either minted its tokens before this moment (covered by the cut-off) or sees the mark
    # when it checks the family before answering (ensure_family_alive).
    users.revoke_tokens(grant.client_id, grant.sub_id, epoch())
    raise unauthorized(REFRESH_TOKEN_REUSED, "Refresh token was already used; log in again")


def _key(token: str) -> dict[str, str]:
    return {"pk": f"RT#{digest(token)}", "sk": SK}


def _token_item(token: str, client_id: str, sub_id: str, family_id: str) -> dict[str, Any]:
    now = epoch()
    return {
        **_key(token),
        "clientId": client_id,
        "subId": sub_id,
        "familyId": family_id,
        "createdAt": now,
        "expiresAt": now + load_settings().refresh_token_ttl_s,
    }


def _context(token: str) -> dict[str, str]:
    return {"purpose": "refresh-successor", "token": digest(token)}


def ensure_family_alive(family_id: str) -> None:
    """Refuse to answer with tokens of a family that was revoked meanwhile."""
    if _family_revoked(family_id, epoch()):
        raise unauthorized(REFRESH_TOKEN_REUSED, "Refresh token was already used; log in again")


def _family_revoked(family_id: str, now: int) -> bool:
    item = (
        aws.table("auth-state").get_item(Key={"pk": f"RTFAMILY#{family_id}", "sk": SK}, ConsistentRead=True).get("Item")
    )
    return bool(item) and int(item["expiresAt"]) > now


def _revoke_family(family_id: str, until: int) -> None:
    revoked = {"pk": f"RTFAMILY#{family_id}", "sk": SK, "revokedAt": epoch(), "expiresAt": until}
    aws.write(aws.put("family-revoked", "auth-state", revoked, condition=None))
