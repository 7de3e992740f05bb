"""Refresh tokens: opaque, single use, rotated on every refresh.

Stored only as SHA-256 hashes in the auth-state table (pk `RT#<hash>`) with a TTL.
Each login starts a family; refreshing marks the presented token used and issues
the next one in the family. Presenting a used token again means it leaked: the
whole family is revoked (pk `RTFAMILY#<id>`) and so is every JWT issued to the
user until then (users.revoke_tokens), so the thief and the user both have to log
in again.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from chalicelib.auth import users
from chalicelib.platform import aws
from chalicelib.platform.clock import epoch
from chalicelib.platform.errors import unauthorized
from chalicelib.platform.secrets import digest, new_secret
from chalicelib.platform.settings import load_settings

PREFIX = "drt"
INVALID_REFRESH_TOKEN = "INVALID_REFRESH_TOKEN"
REFRESH_TOKEN_REUSED = "REFRESH_TOKEN_REUSED"
SK = "STATE"


@dataclass(frozen=True)
class RefreshGrant:
    client_id: str
    sub_id: str
    family_id: str


def issue(client_id: str, sub_id: str, family_id: str | None = None) -> str:
    token = new_secret(PREFIX)
    now = epoch()
    aws.table("auth-state").put_item(
        Item={
            "pk": f"RT#{digest(token)}",
            "sk": SK,
            "clientId": client_id,
            "subId": sub_id,
            "familyId": family_id or str(uuid.uuid4()),
            "createdAt": now,
            "expiresAt": now + load_settings().refresh_token_ttl_s,
        },
        ConditionExpression="attribute_not_exists(pk)",
    )
    return token


def redeem(token: str, client_id: str) -> RefreshGrant:
    """Use a refresh token once; the caller issues the next one with the same family."""
    table = aws.table("auth-state")
    now = epoch()
    key = {"pk": f"RT#{digest(token)}", "sk": SK}
    item: dict[str, Any] | None = table.get_item(Key=key, ConsistentRead=True).get("Item")
    # DynamoDB deletes expired items lazily, so expiry is checked here too.
    if not item or int(item["expiresAt"]) <= now or item["clientId"] != client_id:
        raise unauthorized(INVALID_REFRESH_TOKEN, "Refresh token is invalid or expired")
    family_id = str(item["familyId"])
    if _family_revoked(family_id, now):
        raise unauthorized(INVALID_REFRESH_TOKEN, "Refresh token is invalid or expired")
    try:
        aws.write(
            aws.update(
                "refresh-token",
                "auth-state",
                key,
                aws.Changes(set={"usedAt": now}),
                aws.Condition("attribute_not_exists(usedAt)"),
            )
        )
    except aws.ConditionFailedError:
        _revoke_family(family_id, now + load_settings().refresh_token_ttl_s)
        # The cut-off is read from the clock only now, after the family is marked revoked: a concurrent
        # refresh that won the race either minted its tokens before this moment (covered by the cut-off)
        # or sees the mark when it checks the family before answering (ensure_family_alive).
        users.revoke_tokens(client_id, str(item["subId"]), epoch())
        raise unauthorized(REFRESH_TOKEN_REUSED, "Refresh token was already used; log in again") from None
    return RefreshGrant(client_id=client_id, sub_id=str(item["subId"]), family_id=family_id)


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
    aws.table("auth-state").put_item(
        Item={"pk": f"RTFAMILY#{family_id}", "sk": SK, "revokedAt": epoch(), "expiresAt": until}
    )
