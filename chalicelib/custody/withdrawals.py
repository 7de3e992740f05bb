"""Withdrawals: amounts paid out of an account's off-chain balance to an address, on chain.

Request (`create`): in ONE transaction the amount moves from `activeBalance` to `heldBalance` (conditional:
never below zero), the app's daily total of the token grows (conditional on its limit), the withdrawal and its
journal entry are written and `withdraw.created` goes to the outbox. Then the withdrawal is queued for the
worker (sending.py). A failed condition changes nothing.

States: `pending` (held, queued) → `sending` (a worker holds it under a lease) → `sent` (its transaction is
recorded and broadcast; `txHash`) → `success` (mined with the network's confirmations: the held amount leaves the
ledger, `withdraw.success`) | `failed` (definitively not paid: the hold goes back to `activeBalance`,
`withdraw.failed` with a `reason`). A send that provably never reached the chain goes back to `pending`. A
`failed` withdrawal kept for review (`released` false: its amount still held) moves once more, by an operator's
decision that the chain allows: to `success` or to a release (review.py).
"""

from __future__ import annotations

import contextlib
import uuid
from typing import Any

from chalicelib.custody import accounts, ledger, limits
from chalicelib.custody.store import TABLE, Event, Plan, commit, get, indexed_page, listed, status_keys
from chalicelib.custody.tokens import Accepted, accepted
from chalicelib.platform import aws, clock, followups
from chalicelib.platform.amounts import format_units, parse_amount
from chalicelib.platform.chain import checksum_address
from chalicelib.platform.errors import ApiError, bad_request, not_found
from chalicelib.platform.pagination import AppendOnlyList, PageQuery
from chalicelib.tenancy.models import App

QUEUE = "custody-withdrawals"
OPEN = "OPEN_WITHDRAWALS"  # pk of the markers of withdrawals not yet ended
STALE_S = 300  # a withdrawal that has not moved for this long is queued again
# The worker's state checks make a duplicate message harmless: no step token.
FOLLOW_UPS = followups.FollowUp(QUEUE)
WITHDRAWAL_NOT_FOUND = "WITHDRAWAL_NOT_FOUND"
WITHDRAWAL_LIMIT_EXCEEDED = "WITHDRAWAL_LIMIT_EXCEEDED"
DAILY_LIMIT_EXCEEDED = "DAILY_LIMIT_EXCEEDED"
DESTINATION_NOT_ALLOWED = "DESTINATION_NOT_ALLOWED"
NETWORK_NOT_ON_ACCOUNT = "NETWORK_NOT_ON_ACCOUNT"


def app_list(app_id: str) -> AppendOnlyList:
    return AppendOnlyList(TABLE, f"WITHDRAWALS#{app_id}")


def account_list(app_id: str, account_id: str) -> AppendOnlyList:
    return AppendOnlyList(TABLE, f"WITHDRAWALS#{app_id}#{account_id}")


def key(withdrawal_id: str) -> dict[str, str]:
    return {"pk": f"WITHDRAWAL#{withdrawal_id}", "sk": "WITHDRAWAL"}


def create(
    app: App, account_id: str, network: str, token_code: str, to: str, amount: str, reference: str | None
) -> dict[str, Any]:
    account = accounts.of_app(app.appId, account_id)
    pair = accepted(network, token_code)
    destination = checksum_address(to, "to")
    base = parse_amount(amount, pair.token.decimals)
    wallet = next((w for w in account["wallets"] if w["network"] == pair.network.name), None)
    if wallet is None:
        raise bad_request(
            NETWORK_NOT_ON_ACCOUNT,
            f"The account has no address on {pair.network.name}",
            errors=[{"field": "network", "message": "the account has no deposit address here", "type": "network"}],
        )
    if destination.lower() == str(wallet["address"]).lower():
        raise bad_request(
            "INVALID_ADDRESS",
            "`to` is the account's own deposit address",
            errors=[{"field": "to", "message": "the account's own address", "type": "address"}],
        )
    limit = limits.limits_for(pair)
    if limit.per_withdrawal is not None and base > limit.per_withdrawal:
        raise ApiError(422, WITHDRAWAL_LIMIT_EXCEEDED, f"Above the per-withdrawal limit of {pair.token.symbol}")
    if not limits.allowed(app.appId, destination):
        raise ApiError(422, DESTINATION_NOT_ALLOWED, "The destination is not on the app's withdrawal allowlist")
    withdrawal_id = str(uuid.uuid4())
    now = clock.iso_now()
    record: dict[str, Any] = {
        **key(withdrawal_id),
        "id": withdrawal_id,
        "appId": app.appId,
        "accountId": account_id,
        "userId": account["subId"],
        "keyId": account["mpcSubId"],
        "keyAddress": account["ownerAddress"],
        "walletId": wallet["walletId"],
        "fromAddress": wallet["address"],
        "network": pair.network.name,
        "chainId": pair.network.chainId,
        "tokenCode": pair.token.tokenCode,
        "tokenAddress": pair.token.tokenAddress,
        "to": destination,
        "amountInDecimals": str(base),
        "fee": "0",
        "status": "pending",
        "attempts": 0,
        "createdAt": now,
        "updatedAt": now,
        **status_keys("WITHDRAWAL", app.appId, account_id, "pending", now, withdrawal_id),
    }
    if reference:
        record["reference"] = reference

    def plan() -> Plan:
        balance, entry = ledger.post(
            account_id,
            pair,
            ledger.Movement(active=-base, held=base),
            "hold",
            "withdrawal requested",
            ("withdrawal", withdrawal_id),
        )
        items = [
            aws.put("withdrawal", TABLE, record),
            aws.put("open-marker", TABLE, {"pk": OPEN, "sk": withdrawal_id}),  # until it ends: see requeue_stale
            balance,
            _daily(app.appId, pair, base, limit.per_day),
        ]
        if reference:
            items.append(
                aws.put(
                    "reference",
                    TABLE,
                    {"pk": f"WREF#{app.appId}#{reference}", "sk": "REF", "withdrawalId": withdrawal_id},
                )
            )
        from chalicelib.platform import idempotency

        pinned = idempotency.effect_item({"withdrawalId": withdrawal_id})
        if pinned is not None:
            items.append(pinned)
        lists = [
            entry,
            (app_list(app.appId), {"withdrawalId": withdrawal_id, "createdAt": now}),
            (account_list(app.appId, account_id), {"withdrawalId": withdrawal_id, "createdAt": now}),
        ]
        event = Event(app.appId, "withdraw.created", f"withdraw.created:{withdrawal_id}", event_data(record, pair))
        return Plan(items, lists, event)

    try:
        commit(plan, attempts=30)  # concurrent withdrawals of one account re-plan on the balance they raced for
    except aws.TransactionCancelledError as exc:
        if exc.condition_failed("reference"):
            raise ApiError(409, "DUPLICATE_REFERENCE", "A withdrawal of this app already has this reference") from None
        if exc.condition_failed("idempotency"):
            from chalicelib.platform import idempotency

            raise idempotency.lease_lost() from None
        raise
    enqueue(withdrawal_id)
    return record


def _daily(app_id: str, pair: Accepted, amount: int, per_day: int | None) -> aws.TxItem:
    """The app's withdrawn total of the token today grows by `amount`, within its daily limit. A string number
    (uint256 does not fit DynamoDB's 38 digits) updated by a conditional put on the value read."""
    day = limits.day_key(app_id, pair)
    item = get(day["pk"], day["sk"])
    used = int(item["used"]) if item else 0
    if per_day is not None and used + amount > per_day:
        raise ApiError(422, DAILY_LIMIT_EXCEEDED, f"Above the app's daily {pair.token.symbol} limit")
    condition = (
        aws.Condition("used = :u", values={":u": str(used)}) if item else aws.Condition("attribute_not_exists(pk)")
    )
    # a concurrent request that moved it makes this a "balance"-like lost race: commit() re-plans
    return aws.put("balance-daily", TABLE, {**day, "used": str(used + amount), "updatedAt": clock.iso_now()}, condition)


def enqueue(withdrawal_id: str, delay_s: int = 0) -> None:
    """Committed already: a send that fails is left to the sweep of stale withdrawals (requeue_stale)."""
    FOLLOW_UPS.send_committed({"withdrawalId": withdrawal_id}, delay_s, withdrawalId=withdrawal_id)


def event_data(record: dict[str, Any], pair: Accepted, **extra: Any) -> dict[str, Any]:
    """The withdrawal events' `data` (not shown in the seed; docs/custody.md). `debit`: what left the off-chain
    balance (`activeBalance` at `withdraw.created`, held until `withdraw.success`); a failed withdrawal has
    `release` instead when its amount went back to `activeBalance` (none when it is held for review)."""
    amount = int(record["amountInDecimals"])
    status = extra.pop("status", record["status"])
    transaction = extra.pop("transaction", None)
    released = extra.get("released")
    money = {
        "tokenCode": pair.token.tokenCode,
        "amount": pair.human(amount),
        "referenceType": "withdrawal",
        "referenceId": record["id"],
    }
    data: dict[str, Any] = {
        "appId": record["appId"],
        "userId": record["userId"],
        "withdrawal": {
            "id": record["id"],
            "accountId": record["accountId"],
            "status": status,
            "network": pair.network.name,
            "chainId": pair.network.chainId,
            "tokenCode": pair.token.tokenCode,
            "amount": pair.human(amount),
            "amountInDecimals": str(amount),
            "fee": pair.human(int(record.get("fee", "0"))),
            "from": record["fromAddress"],
            "to": record["to"],
            "reference": record.get("reference"),
            "txHash": extra.pop("txHash", record.get("txHash")),
            "reason": extra.pop("reason", record.get("failedReason")),
            "createdAt": record["createdAt"],
            **extra,
        },
        "token": pair.event_token(),
    }
    if transaction is not None:
        data["transaction"] = transaction
    if status == "failed":
        if released:
            data["release"] = money
    else:
        data["debit"] = money
    return data


def of_app(app_id: str, withdrawal_id: str) -> dict[str, Any]:
    try:
        uuid.UUID(withdrawal_id)
    except ValueError:
        raise not_found(WITHDRAWAL_NOT_FOUND, "No such withdrawal") from None
    item = get(**key(withdrawal_id))
    if item is None or item["appId"] != app_id:
        raise not_found(WITHDRAWAL_NOT_FOUND, "No such withdrawal")
    return item


def page(app_id: str, account_id: str | None, status: str | None, query: PageQuery) -> tuple[list[dict[str, Any]], int]:
    if status is not None:
        if account_id is not None:
            return indexed_page(
                "account-status", "accountStatusKey", f"WITHDRAWAL#{account_id}#{status}", query.page, query.limit
            )
        return indexed_page("status", "statusKey", f"WITHDRAWAL#{app_id}#{status}", query.page, query.limit)
    return listed(account_list(app_id, account_id) if account_id else app_list(app_id), query, "withdrawalId", key)


def public(record: dict[str, Any]) -> dict[str, Any]:
    pair = accepted(str(record["network"]), str(record["tokenCode"]))
    amount = int(record["amountInDecimals"])
    return {
        "id": record["id"],
        "accountId": record["accountId"],
        "status": record["status"],
        "network": record["network"],
        "chainId": int(record["chainId"]),
        "tokenCode": record["tokenCode"],
        "amount": format_units(amount, pair.token.decimals),
        "amountInDecimals": str(amount),
        "fee": format_units(int(record.get("fee", "0")), pair.token.decimals),
        "from": record["fromAddress"],
        "to": record["to"],
        "reference": record.get("reference"),
        "txHash": record.get("txHash"),
        "failedReason": record.get("failedReason"),
        "createdAt": record["createdAt"],
        "updatedAt": record["updatedAt"],
        "sentAt": record.get("sentAt"),
        "completedAt": record.get("completedAt"),
        "failedAt": record.get("failedAt"),
    }


def move(
    record: dict[str, Any],
    status: str,
    condition: aws.Condition,
    values: dict[str, Any] | None = None,
    remove: tuple[str, ...] = (),
) -> aws.TxItem:
    """The write that moves a withdrawal to `status` (with its index keys), conditional on `condition`."""
    changes = {
        "status": status,
        "updatedAt": clock.iso_now(),
        **status_keys(
            "WITHDRAWAL",
            str(record["appId"]),
            str(record["accountId"]),
            status,
            str(record["createdAt"]),
            str(record["id"]),
        ),
        **(values or {}),
    }
    return aws.update(
        "withdrawal", TABLE, key(str(record["id"])), aws.Changes(set=changes, remove=list(remove)), condition
    )


def requeue_stale(limit: int = 5000) -> int:
    """The schedule's safety net: withdrawals not yet ended whose last move is older than STALE_S (their message
    was lost, dead-lettered, or its worker died) are queued again; the worker's state checks make a duplicate
    message harmless."""
    from boto3.dynamodb.conditions import Key

    request: dict[str, Any] = {"KeyConditionExpression": Key("pk").eq(OPEN)}
    markers: list[dict[str, Any]] = []
    while len(markers) < limit:
        answer = aws.table(TABLE).query(**request)
        markers += answer["Items"]
        if "LastEvaluatedKey" not in answer:
            break
        request["ExclusiveStartKey"] = answer["LastEvaluatedKey"]
    records = aws.batch_get(TABLE, [key(str(m["sk"])) for m in markers[:limit]])
    cutoff = clock.iso_in(-STALE_S)
    queued = 0
    for record in records:
        if record["status"] in ("success", "failed"):
            with contextlib.suppress(Exception):
                aws.write(aws.delete("open-marker", TABLE, {"pk": OPEN, "sk": record["id"]}))
            continue
        if str(record["updatedAt"]) < cutoff:
            enqueue(str(record["id"]))
            queued += 1
    return queued


def closed_marker(withdrawal_id: str) -> aws.TxItem:
    """For the transaction that ends a withdrawal."""
    return aws.delete("open-marker", TABLE, {"pk": OPEN, "sk": withdrawal_id})
