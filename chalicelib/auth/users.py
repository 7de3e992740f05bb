"""End users, keyed by the client and the client's own subject id (`subId`).

Item: pk `CLIENT#<clientId>`, sk `SUB#<subId>`: userId, createdAt and, once a
wallet is bound, walletId and walletAddress (written by wallets.store).
"""

from __future__ import annotations

import contextlib
import uuid
from typing import Any

from chalicelib.platform import aws
from chalicelib.platform.clock import iso_now
from chalicelib.platform.wire import WireModel


class User(WireModel):
    userId: str
    clientId: str
    subId: str
    createdAt: str
    walletId: str | None = None
    walletAddress: str | None = None
    tokensValidAfter: int | None = None  # epoch s; JWTs issued before it are revoked

    @property
    def has_wallet(self) -> bool:
        return self.walletAddress is not None


def key(client_id: str, sub_id: str) -> dict[str, str]:
    return {"pk": f"CLIENT#{client_id}", "sk": f"SUB#{sub_id}"}


def get(client_id: str, sub_id: str) -> User | None:
    item: dict[str, Any] | None = (
        aws.table("users").get_item(Key=key(client_id, sub_id), ConsistentRead=True).get("Item")
    )
    return User.model_validate({k: v for k, v in item.items() if k in User.model_fields}) if item else None


def get_or_create(client_id: str, sub_id: str) -> User:
    existing = get(client_id, sub_id)
    if existing:
        return existing
    user = User(userId=str(uuid.uuid4()), clientId=client_id, subId=sub_id, createdAt=iso_now())
    try:
        aws.write(aws.put("user", "users", {**key(client_id, sub_id), **user.model_dump(exclude_none=True)}))
    except aws.ConditionFailedError:
        # A concurrent first login created it: use that one.
        raced = get(client_id, sub_id)
        assert raced is not None
        return raced
    return user


def revoke_tokens(client_id: str, sub_id: str, now: int) -> None:
    """Invalidate every JWT issued to the user so far (their refresh token leaked)."""
    # +1: `iat` has whole seconds, and a token issued in the revoking second must not survive. Only ever
    # moved forward: a slower revocation with an earlier clock reading must not re-validate tokens.
    cut_off = aws.update(
        "user",
        "users",
        key(client_id, sub_id),
        aws.Changes(set={"tokensValidAfter": now + 1}),
        aws.Condition(
            "attribute_exists(pk) AND (attribute_not_exists(#t) OR #t < :after)",
            {"#t": "tokensValidAfter"},
            {":after": now + 1},
        ),
    )
    with contextlib.suppress(aws.ConditionFailedError):
        aws.write(cut_off)
