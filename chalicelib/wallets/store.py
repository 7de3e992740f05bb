"""MPC wallet records and their binding to users.

Table `wallets`:
* pk `WALLET#<walletId>`, sk `META`: the wallet (address, client, bound user, hash of
  secret0, origin);
* pk `ADDRESS#<address>`, sk `META`: walletId, so one key is one wallet (an import
  of a key that already is a wallet is refused);
* pk `SIGNATURES#<walletId>`: the wallet's list of message signatures (history.py).

The user item (table `users`) carries `walletId`/`walletAddress` once bound, and
`walletPending` while a creation runs, so concurrent creates for one user cannot
both make a wallet. Every binding change is one DynamoDB transaction.
"""

from __future__ import annotations

import contextlib
from typing import Any, Literal

from chalicelib.auth import users
from chalicelib.auth.users import User
from chalicelib.platform import aws, clock, unit_of_work
from chalicelib.platform.unit_of_work import Plan
from chalicelib.platform.wire import WireModel

PENDING_TTL_S = 120  # a creation that has not finished by then (its Lambda died) no longer blocks the user


class BindingConflictError(Exception):
    def __init__(self, reason: Literal["wallet_exists", "in_progress", "address_taken", "moved"]) -> None:
        super().__init__(reason)
        self.reason = reason


class BoundWallet(WireModel):
    """The wallet a user is bound to, as the user's record names it: `walletId` and `walletAddress` are written
    there in the same transaction that binds or moves the wallet, so reading the user is enough to know it."""

    walletId: str
    address: str


class Wallet(BoundWallet):
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


def at_address(address: str) -> Wallet | None:
    """The wallet whose address is `address` (EIP-55), or None."""
    item = aws.table("wallets").get_item(Key={"pk": f"ADDRESS#{address}", "sk": "META"}, ConsistentRead=True)
    wallet_id = item.get("Item", {}).get("walletId")
    return get(str(wallet_id)) if wallet_id else None


def of_client(client_id: str, limit: int, max_reads: int = 5) -> tuple[list[User], bool]:
    """The client's users bound to a wallet (their records name it: `walletId`, `walletAddress`), in order of
    subId: at most `limit`, and whether more may follow. A Query of the client's partition of `users`, at most
    `max_reads` pages of it."""
    from boto3.dynamodb.conditions import Attr, Key

    query: dict[str, Any] = {
        "KeyConditionExpression": Key("pk").eq(users.key(client_id, "")["pk"]) & Key("sk").begins_with("SUB#"),
        "FilterExpression": Attr("walletAddress").exists(),
        "ConsistentRead": True,
    }
    found: list[User] = []
    for _ in range(max_reads):
        page = aws.table("users").query(**query)
        found += [User.model_validate({k: v for k, v in i.items() if k in User.model_fields}) for i in page["Items"]]
        if len(found) > limit or "LastEvaluatedKey" not in page:
            return found[:limit], len(found) > limit
        query["ExclusiveStartKey"] = page["LastEvaluatedKey"]
    return found[:limit], True


def reserve_user(user: User, wallet_id: str) -> None:
    """Mark `user` as getting `wallet_id`; Conflict if it has a wallet or another creation runs."""
    now = clock.epoch()
    try:
        aws.write(
            aws.update(
                "user",
                "users",
                users.key(user.clientId, user.subId),
                aws.Changes(set={"walletPending": wallet_id, "walletPendingUntil": now + PENDING_TTL_S}),
                _user_free(now),
            )
        )
    except aws.ConditionFailedError as exc:
        raise BindingConflictError("wallet_exists" if exc.old and exc.old.get("walletId") else "in_progress") from None


def release_user(user: User, wallet_id: str) -> None:
    # Already released, or taken over after expiry: nothing to undo.
    with contextlib.suppress(aws.ConditionFailedError):
        aws.write(
            aws.update(
                "user",
                "users",
                users.key(user.clientId, user.subId),
                aws.Changes(remove=["walletPending", "walletPendingUntil"]),
                aws.Condition("walletPending = :w", values={":w": wallet_id}),
            )
        )


def create(wallet: Wallet) -> None:
    """Store the wallet, claim its address and bind it to its (reserved) user, all or nothing."""
    try:
        _transact(
            [
                aws.put("wallet", "wallets", {**_wallet_key(wallet.walletId), **wallet.model_dump()}),
                aws.put(
                    "address", "wallets", {"pk": f"ADDRESS#{wallet.address}", "sk": "META", "walletId": wallet.walletId}
                ),
                aws.update(
                    "user",
                    "users",
                    users.key(wallet.clientId, wallet.subId),
                    aws.Changes(
                        set={"walletId": wallet.walletId, "walletAddress": wallet.address},
                        remove=["walletPending", "walletPendingUntil"],
                    ),
                    aws.Condition("walletPending = :w", values={":w": wallet.walletId}),
                ),
            ]
        )
    except aws.TransactionCancelledError as exc:
        if exc.condition_failed("address"):
            raise BindingConflictError("address_taken") from None
        raise BindingConflictError("in_progress") from None  # the reservation expired and was taken over


def rebind(wallet: Wallet, user: User) -> Wallet:
    """Bind `wallet` to `user` (recovery); the previous user loses it and its tokens."""
    if wallet.subId == user.subId:
        return wallet
    now = clock.epoch()
    moved = wallet.model_copy(update={"subId": user.subId, "userId": user.userId, "updatedAt": clock.iso_now()})
    try:
        _transact(
            [
                aws.update(
                    "wallet",
                    "wallets",
                    _wallet_key(wallet.walletId),
                    aws.Changes(set={"subId": user.subId, "userId": user.userId, "updatedAt": moved.updatedAt}),
                    aws.Condition("subId = :old", values={":old": wallet.subId}),
                ),
                aws.update(
                    "new-holder",
                    "users",
                    users.key(user.clientId, user.subId),
                    aws.Changes(set={"walletId": wallet.walletId, "walletAddress": wallet.address}),
                    _user_free(now),
                ),
                # The previous holder keeps its user record but no longer the wallet, and every token
                # it was issued stops working (it may be the one who lost the device).
                aws.update(
                    "previous-holder",
                    "users",
                    users.key(wallet.clientId, wallet.subId),
                    aws.Changes(set={"tokensValidAfter": now + 1}, remove=["walletId", "walletAddress"]),
                    aws.Condition("walletId = :w", values={":w": wallet.walletId}),
                ),
            ]
        )
    except aws.TransactionCancelledError as exc:
        if exc.condition_failed("new-holder"):
            holder = exc.old.get("new-holder")
            raise BindingConflictError(
                "wallet_exists" if holder and holder.get("walletId") else "in_progress"
            ) from None
        raise BindingConflictError("moved") from None  # a concurrent recovery moved it first
    return moved


def _user_free(now: int) -> aws.Condition:
    """The user exists, has no wallet and no creation of one is running (or it outlived its reservation)."""
    return aws.Condition(
        "attribute_exists(pk) AND attribute_not_exists(walletId) "
        "AND (attribute_not_exists(walletPending) OR walletPendingUntil < :now)",
        values={":now": now},
    )


def _transact(items: list[aws.TxItem]) -> None:
    """`items` in one unit of work, once: a concurrent transaction on the same user or wallet is "in_progress" (the
    caller answers it, the client retries); a failed condition raises aws.TransactionCancelledError."""
    unit_of_work.commit(Plan(items=items), attempts=1, on_busy=lambda: BindingConflictError("in_progress"))
