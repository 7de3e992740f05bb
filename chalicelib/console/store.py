"""The `console` table.

Items (pk / sk):
  USER#<userId>            / META            a console user: email, organization, role, argon2id hash, TOTP
  EMAIL#<email>            / META            -> userId (sign-in by email; an email belongs to one user)
  ORG#<orgId>              / MEMBER#<userId> a member, for the team page
  INVITE#<sha256(token)>   / META            an invite: organization, email, role; `usedAt` once accepted
  ORG#<orgId>              / INVITE#<id>     -> the invite's hash, for the team page
  SESSION#<sha256(token)>  / META            a signed-in browser (expiresAt: DynamoDB's TTL)
  THROTTLE#<kind>#<id>     / W#<window>      failed sign-ins in a window (expiresAt: TTL)
  AUDIT#<orgId>            / COUNT, SEQ#...  the organization's audit log (pagination.AppendOnlyList)

Tokens (sessions, invites) are 256-bit random values stored only as SHA-256 hashes.
"""

from __future__ import annotations

import contextlib
from typing import Any

from chalicelib.platform import aws
from chalicelib.platform.clock import epoch
from chalicelib.platform.pagination import AppendOnlyList

TABLE = "console"
META = "META"  # the sort key of single items


def _table() -> Any:
    return aws.table(TABLE)


def _get(pk: str, sk: str = META) -> dict[str, Any] | None:
    item: dict[str, Any] | None = _table().get_item(Key={"pk": pk, "sk": sk}, ConsistentRead=True).get("Item")
    return item


Appended = tuple[AppendOnlyList, dict[str, Any]]  # a record for a plan's `lists` (the audit log's entries)


def audit_list(organization_id: str) -> AppendOnlyList:
    return AppendOnlyList(TABLE, f"AUDIT#{organization_id}")


def app_audit_list(organization_id: str, app_id: str) -> AppendOnlyList:
    """The entries about one app (also in the organization's list): what the app's secret reads over the API."""
    return AppendOnlyList(TABLE, f"AUDIT#{organization_id}#APP#{app_id}")


# --- users ---------------------------------------------------------------------------------------------------


def user_key(user_id: str) -> dict[str, str]:
    return {"pk": f"USER#{user_id}", "sk": META}


def get_user(user_id: str) -> dict[str, Any] | None:
    return _get(f"USER#{user_id}")


def get_user_by_email(email: str) -> dict[str, Any] | None:
    found = _get(f"EMAIL#{email}")
    return get_user(str(found["userId"])) if found else None


def new_user_items(user: dict[str, Any]) -> list[aws.TxItem]:
    """A user, its email (which fails its condition when the email is taken) and its membership."""
    return [
        aws.put("user", TABLE, {**user_key(user["userId"]), **user}),
        aws.put("email", TABLE, {"pk": f"EMAIL#{user['email']}", "sk": META, "userId": user["userId"]}),
        aws.put("member", TABLE, member_item(user)),
    ]


def removed_user_items(user: dict[str, Any]) -> list[aws.TxItem]:
    return [
        aws.delete("user", TABLE, user_key(user["userId"]), aws.EXISTS),
        aws.delete("email", TABLE, {"pk": f"EMAIL#{user['email']}", "sk": META}),
        aws.delete("member", TABLE, member_key(user["organizationId"], user["userId"])),
    ]


def member_key(organization_id: str, user_id: str) -> dict[str, str]:
    return {"pk": f"ORG#{organization_id}", "sk": f"MEMBER#{user_id}"}


def member_item(user: dict[str, Any]) -> dict[str, Any]:
    return {
        **member_key(user["organizationId"], user["userId"]),
        "email": user["email"],
        "role": user["role"],
        "createdAt": user["createdAt"],
    }


def members(organization_id: str) -> list[dict[str, Any]]:
    return _query(f"ORG#{organization_id}", "MEMBER#")


def _query(pk: str, prefix: str) -> list[dict[str, Any]]:
    from boto3.dynamodb.conditions import Key

    items: list[dict[str, Any]] = []
    query: dict[str, Any] = {
        "KeyConditionExpression": Key("pk").eq(pk) & Key("sk").begins_with(prefix),
        "ConsistentRead": True,
    }
    while True:
        page = _table().query(**query)
        items += page["Items"]
        if "LastEvaluatedKey" not in page:
            return items
        query["ExclusiveStartKey"] = page["LastEvaluatedKey"]


# --- invites -------------------------------------------------------------------------------------------------


def invite_key(token_hash: str) -> dict[str, str]:
    return {"pk": f"INVITE#{token_hash}", "sk": META}


def get_invite(token_hash: str) -> dict[str, Any] | None:
    return _get(f"INVITE#{token_hash}")


def new_invite_items(token_hash: str, invite: dict[str, Any], expires_at: int) -> list[aws.TxItem]:
    listed = {
        "pk": f"ORG#{invite['organizationId']}",
        "sk": f"INVITE#{invite['inviteId']}",
        "tokenHash": token_hash,
        "email": invite.get("email"),
        "role": invite["role"],
        "createdAt": invite["createdAt"],
        "expiresAt": expires_at,
    }
    return [
        aws.put("invite", TABLE, {**invite_key(token_hash), **invite, "expiresAt": expires_at}),
        aws.put("invite-listed", TABLE, listed),
    ]


def invites(organization_id: str) -> list[dict[str, Any]]:
    """The organization's invites not yet expired (accepted ones included)."""
    now = epoch()
    return [i for i in _query(f"ORG#{organization_id}", "INVITE#") if int(i.get("expiresAt", 0)) > now]


# --- sessions ------------------------------------------------------------------------------------------------


def session_key(token_hash: str) -> dict[str, str]:
    return {"pk": f"SESSION#{token_hash}", "sk": META}


def get_session(token_hash: str) -> dict[str, Any] | None:
    item = _get(f"SESSION#{token_hash}")
    # DynamoDB deletes expired items late (up to days): an item past its expiry is no session.
    return item if item and int(item.get("expiresAt", 0)) > epoch() else None


def delete_session_item(token_hash: str) -> aws.TxItem:
    return aws.delete("session", TABLE, session_key(token_hash))


def delete_session(token_hash: str) -> None:
    aws.write(delete_session_item(token_hash))


def touch_session(token_hash: str, seen_at: int, expires_at: int) -> None:
    # Signed out meanwhile, or touched by a concurrent request: either is fine.
    with contextlib.suppress(aws.ConditionFailedError, aws.ItemBusyError):
        changes = aws.Changes(set={"seenAt": seen_at, "expiresAt": expires_at})
        aws.write(aws.update("session", TABLE, session_key(token_hash), changes))


# --- throttles -----------------------------------------------------------------------------------------------


def throttle_key(subject: str, window: int) -> dict[str, str]:
    return {"pk": f"THROTTLE#{subject}", "sk": f"W#{window}"}


def take_attempt(subject: str, window: int, limit: int | None, expires_at: int) -> bool:
    """Count one attempt in the subject's window unless `limit` are counted already (False then)."""
    allowed = (
        aws.Condition("attribute_not_exists(n) OR n < :limit", values={":limit": limit}) if limit is not None else None
    )
    changes = aws.Changes(add={"n": 1}, set={"expiresAt": expires_at})
    try:
        aws.write(aws.update("throttle", TABLE, throttle_key(subject, window), changes, condition=allowed))
    except aws.ConditionFailedError:
        return False
    return True


def give_back_attempt(subject: str, window: int) -> None:
    aws.write(aws.update("throttle", TABLE, throttle_key(subject, window), aws.Changes(add={"n": -1}), condition=None))
