"""MPC wallet records and their binding to users.

Table `wallets`:
* pk `WALLET#<walletId>`, sk `META`: the wallet (address, client, bound user, hash of
  secret0, origin);
* pk `ADDRESS#<address>`, sk `META`: walletId, so one key is one wallet (an import
  of a key that already is a wallet is refused).

The user item (table `users`) carries `walletId`/`walletAddress` once bound, and
`walletPending` while a creation runs, so concurrent creates for one user cannot
both make a wallet. Every binding change is one DynamoDB transaction.
"""

from __future__ import annotations

import contextlib
import time
from typing import Any, Literal

from pydantic import BaseModel

from chalicelib.auth import users
from chalicelib.auth.users import User
from chalicelib.platform import aws
from chalicelib.platform.clock import iso_now

PENDING_TTL_S = 120  # a creation that has not finished by then (its Lambda died) no longer blocks the user


class BindingConflictError(Exception):
    def __init__(self, reason: Literal["wallet_exists", "in_progress", "address_taken", "moved"]) -> None:
        super().__init__(reason)
        self.reason = reason


class Wallet(BaseModel):
    walletId: str
    address: str
    clientId: str
    subId: str  # the user the wallet is bound to
    userId: str
    secret0Hash: str
    origin: Literal["created", "imported"]
    createdAt: str
    updatedAt: str


def _wallet_key(wallet_id: str) -> dict[str, str]:
    return {"pk": f"WALLET#{wallet_id}", "sk": "META"}


def get(wallet_id: str) -> Wallet | None:
    item = aws.table("wallets").get_item(Key=_wallet_key(wallet_id), ConsistentRead=True).get("Item")
    return Wallet.model_validate({k: v for k, v in item.items() if k in Wallet.model_fields}) if item else None


def address_taken(address: str) -> bool:
    item = aws.table("wallets").get_item(Key={"pk": f"ADDRESS#{address}", "sk": "META"}, ConsistentRead=True)
    return "Item" in item


def reserve_user(user: User, wallet_id: str) -> None:
    """Mark `user` as getting `wallet_id`; Conflict if it has a wallet or another creation runs."""
    table = aws.table("users")
    now = int(time.time())
    try:
        table.update_item(
            Key=users.key(user.clientId, user.subId),
            UpdateExpression="SET walletPending = :w, walletPendingUntil = :until",
            ConditionExpression="attribute_exists(pk) AND attribute_not_exists(walletId) "
            "AND (attribute_not_exists(walletPending) OR walletPendingUntil < :now)",
            ExpressionAttributeValues={":w": wallet_id, ":until": now + PENDING_TTL_S, ":now": now},
        )
    except table.meta.client.exceptions.ConditionalCheckFailedException:
        current = users.get(user.clientId, user.subId)
        raise BindingConflictError("wallet_exists" if current and current.has_wallet else "in_progress") from None


def release_user(user: User, wallet_id: str) -> None:
    table = aws.table("users")
    # Already released, or taken over after expiry: nothing to undo.
    with contextlib.suppress(table.meta.client.exceptions.ConditionalCheckFailedException):
        table.update_item(
            Key=users.key(user.clientId, user.subId),
            UpdateExpression="REMOVE walletPending, walletPendingUntil",
            ConditionExpression="walletPending = :w",
            ExpressionAttributeValues={":w": wallet_id},
        )


def create(wallet: Wallet) -> None:
    """Store the wallet, claim its address and bind it to its (reserved) user, all or nothing."""
    users_table, wallets_table = aws.table("users").name, aws.table("wallets").name
    user_update = {
        "Update": {
            "TableName": users_table,
            "Key": _typed(users.key(wallet.clientId, wallet.subId)),
            "UpdateExpression": "SET walletId = :w, walletAddress = :a REMOVE walletPending, walletPendingUntil",
            "ConditionExpression": "walletPending = :w",
            "ExpressionAttributeValues": _typed({":w": wallet.walletId, ":a": wallet.address}),
        }
    }
    reasons = _transact(
        [
            {
                "Put": {
                    "TableName": wallets_table,
                    "Item": _typed({**_wallet_key(wallet.walletId), **wallet.model_dump()}),
                    "ConditionExpression": "attribute_not_exists(pk)",
                }
            },
            {
                "Put": {
                    "TableName": wallets_table,
                    "Item": _typed({"pk": f"ADDRESS#{wallet.address}", "sk": "META", "walletId": wallet.walletId}),
                    "ConditionExpression": "attribute_not_exists(pk)",
                }
            },
            user_update,
        ]
    )
    if reasons is None:
        return
    if reasons[1] == "ConditionalCheckFailed":
        raise BindingConflictError("address_taken")
    raise BindingConflictError("in_progress")  # the reservation expired and was taken over


def rebind(wallet: Wallet, user: User) -> Wallet:
    """Bind `wallet` to `user` (recovery); the previous user loses it and its tokens."""
    if wallet.subId == user.subId:
        return wallet
    now = int(time.time())
    moved = wallet.model_copy(update={"subId": user.subId, "userId": user.userId, "updatedAt": iso_now()})
    wallets_table, users_table = aws.table("wallets").name, aws.table("users").name
    reasons = _transact(
        [
            {
                "Update": {
                    "TableName": wallets_table,
                    "Key": _typed(_wallet_key(wallet.walletId)),
                    "UpdateExpression": "SET subId = :new, userId = :uid, updatedAt = :at",
                    "ConditionExpression": "subId = :old",
                    "ExpressionAttributeValues": _typed(
                        {":new": user.subId, ":uid": user.userId, ":at": moved.updatedAt, ":old": wallet.subId}
                    ),
                }
            },
            {
                "Update": {
                    "TableName": users_table,
                    "Key": _typed(users.key(user.clientId, user.subId)),
                    "UpdateExpression": "SET walletId = :w, walletAddress = :a",
                    "ConditionExpression": "attribute_exists(pk) AND attribute_not_exists(walletId) "
                    "AND (attribute_not_exists(walletPending) OR walletPendingUntil < :now)",
                    "ExpressionAttributeValues": _typed({":w": wallet.walletId, ":a": wallet.address, ":now": now}),
                }
            },
            {
                # The previous holder keeps its user record but no longer the wallet, and every token
                # it was issued stops working (it may be the one who lost the device).
                "Update": {
                    "TableName": users_table,
                    "Key": _typed(users.key(wallet.clientId, wallet.subId)),
                    "UpdateExpression": "REMOVE walletId, walletAddress SET tokensValidAfter = :after",
                    "ConditionExpression": "walletId = :w",
                    "ExpressionAttributeValues": _typed({":w": wallet.walletId, ":after": now + 1}),
                }
            },
        ]
    )
    if reasons is None:
        return moved
    if reasons[1] == "ConditionalCheckFailed":
        current = users.get(user.clientId, user.subId)
        raise BindingConflictError("wallet_exists" if current and current.has_wallet else "in_progress")
    raise BindingConflictError("moved")  # a concurrent recovery moved it first


def _transact(items: list[dict[str, Any]]) -> list[str] | None:
    """Run the transaction; None on success, else each item's cancellation code."""
    ddb = aws.client("dynamodb")
    try:
        ddb.transact_write_items(TransactItems=items)
        return None
    except ddb.exceptions.TransactionCanceledException as exc:
        reasons = [str(r.get("Code", "None")) for r in exc.response.get("CancellationReasons", [])]
        if "ConditionalCheckFailed" in reasons:
            return reasons
        if "TransactionConflict" in reasons:  # a concurrent transaction on the same user or wallet
            raise BindingConflictError("in_progress") from None
        raise


def _typed(values: dict[str, Any]) -> dict[str, Any]:
    from boto3.dynamodb.types import TypeSerializer

    serialize = TypeSerializer().serialize
    return {k: serialize(v) for k, v in values.items()}
