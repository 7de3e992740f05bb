"""Invoices: an expected payment of one token on one network to an account's deposit address.

An account has one address per network, so a transfer is matched to an invoice by (account, network, token):
at most one invoice is open per triple (`OPEN#...`, 409 INVOICE_ALREADY_PENDING for a second). `reference` is
unique per app (409 DUPLICATE_REFERENCE), for good.

States: `pending` → `paid` | `failed` | `expired`, all final (docs/custody.md):
* the first transfer seen (by block time) no later than `expiresAt + bufferInSeconds` is the invoice's payment
  (`matchedDeposit`); when it is confirmed the invoice is `paid` (amount equal) or `failed` (amount differs:
  the money is credited to the account as a wallet deposit, never lost);
* a transfer seen while the invoice already has its payment, or after the deadline, is a wallet deposit that
  names the invoice (`invoiceId`, `late`);
* the expiry sweep expires a pending invoice past its deadline unless a payment seen in time is confirming
  (seen before the deadline, confirmed after it: still paid); if that payment leaves the chain, the invoice
  is free again and expires at the next sweep after its deadline.
"""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any

from chalicelib.custody import accounts, events
from chalicelib.custody.store import TABLE, Event, Plan, commit, get, indexed_page, listed, status_keys
from chalicelib.custody.tokens import Accepted, accepted
from chalicelib.platform import aws, clock
from chalicelib.platform.amounts import parse_amount
from chalicelib.platform.errors import bad_request, conflict, not_found
from chalicelib.platform.logging import logger
from chalicelib.platform.pagination import AppendOnlyList, PageQuery
from chalicelib.platform.settings import load_settings
from chalicelib.tenancy.models import App

INVOICE_NOT_FOUND = "INVOICE_NOT_FOUND"
INVOICE_ALREADY_PENDING = "INVOICE_ALREADY_PENDING"
DUPLICATE_REFERENCE = "DUPLICATE_REFERENCE"
NETWORK_NOT_ON_ACCOUNT = "NETWORK_NOT_ON_ACCOUNT"
EXPIRING = "EXPIRING"  # pk of the pending invoices by deadline, for the expiry sweep


def app_list(app_id: str) -> AppendOnlyList:
    return AppendOnlyList(TABLE, f"INVOICES#{app_id}")


def account_list(app_id: str, account_id: str) -> AppendOnlyList:
    return AppendOnlyList(TABLE, f"INVOICES#{app_id}#{account_id}")


def open_key(account_id: str, pair: Accepted) -> dict[str, str]:
    return {"pk": f"OPEN#{account_id}#{pair.key}", "sk": "OPEN"}


def create(
    app: App, account_id: str, network: str, token_code: str, amount: str, reference: str, expires_in_s: int | None
) -> dict[str, Any]:
    account = accounts.of_app(app.appId, account_id)
    pair = accepted(network, token_code)
    base = parse_amount(amount, pair.token.decimals)
    if not any(w["network"] == pair.network.name for w in account["wallets"]):
        raise bad_request(
            NETWORK_NOT_ON_ACCOUNT,
            f"The account was created before {pair.network.name} offered custody and has no address there",
            errors=[{"field": "network", "message": "the account has no deposit address here", "type": "network"}],
        )
    settings = load_settings()
    now = clock.now()
    expires_at = now + dt.timedelta(seconds=expires_in_s or settings.invoice_expires_s)
    buffer_s = settings.invoice_buffer_s
    invoice_id = str(uuid.uuid4())
    wallet = events.wallet_object(account, pair)
    from chalicelib.custody import watcher

    # Transfers in blocks up to the head the watcher knew when the invoice was made were sent before it: they
    # are never its payment. (A head the watcher had not seen yet may let a payment sent just before count.)
    cursor = get(**watcher.cursor_key(pair.network.chainId)) or {}
    start_block = int(cursor["head"]) if "head" in cursor else int(cursor.get("next", 1)) - 1
    created_at = clock.iso(now)
    invoice = {
        "pk": f"INVOICE#{invoice_id}",
        "sk": "INVOICE",
        "id": invoice_id,
        "appId": app.appId,
        "accountId": account_id,
        "userId": account["subId"],
        "network": pair.network.name,
        "chainId": pair.network.chainId,
        "tokenCode": pair.token.tokenCode,
        "amountInDecimals": str(base),
        "reference": reference,
        "walletId": wallet["walletId"],
        "depositAddress": wallet["address"],
        "expiresAt": clock.iso(expires_at),
        "bufferInSeconds": buffer_s,
        "deadline": clock.iso(expires_at + dt.timedelta(seconds=buffer_s)),
        "startBlock": start_block,
        "status": "pending",
        "createdAt": created_at,
        **status_keys("INVOICE", app.appId, account_id, "pending", created_at, invoice_id),
    }
    items = [
        aws.put("invoice", TABLE, invoice),
        aws.put("reference", TABLE, {"pk": f"REF#{app.appId}#{reference}", "sk": "REF", "invoiceId": invoice_id}),
        # One open invoice per (account, network, token): a closed one's marker may be taken over.
        aws.put(
            "open",
            TABLE,
            {**open_key(account_id, pair), "invoiceId": invoice_id, "open": True},
            aws.Condition("attribute_not_exists(pk) OR #o = :closed", {"#o": "open"}, {":closed": False}),
        ),
        aws.put(
            "expiring", TABLE, {"pk": EXPIRING, "sk": f"{invoice['deadline']}#{invoice_id}", "invoiceId": invoice_id}
        ),
    ]
    from chalicelib.platform import idempotency

    pinned = idempotency.effect_item({"invoiceId": invoice_id})  # a lost answer is never a second invoice
    if pinned is not None:
        items.append(pinned)
    lists = [
        (app_list(app.appId), {"invoiceId": invoice_id, "createdAt": created_at}),
        (account_list(app.appId, account_id), {"invoiceId": invoice_id, "createdAt": created_at}),
    ]
    try:
        commit(lambda: Plan(items, lists))
    except aws.TransactionCancelledError as exc:
        if exc.condition_failed("idempotency"):
            raise idempotency.lease_lost() from None
        if exc.condition_failed("reference"):
            raise conflict(DUPLICATE_REFERENCE, "An invoice of this app already has this reference") from None
        if exc.condition_failed("open"):
            raise conflict(
                INVOICE_ALREADY_PENDING,
                f"The account already has a pending {pair.token.tokenCode} invoice on {pair.network.name}",
            ) from None
        raise
    return invoice


def of_app(app_id: str, invoice_id: str) -> dict[str, Any]:
    try:
        uuid.UUID(invoice_id)
    except ValueError:
        raise not_found(INVOICE_NOT_FOUND, "No such invoice") from None
    invoice = get(f"INVOICE#{invoice_id}", "INVOICE")
    if invoice is None or invoice["appId"] != app_id:
        raise not_found(INVOICE_NOT_FOUND, "No such invoice")
    return invoice


def by_reference(app_id: str, reference: str) -> dict[str, Any] | None:
    pointer = get(f"REF#{app_id}#{reference}", "REF")
    return get(f"INVOICE#{pointer['invoiceId']}", "INVOICE") if pointer else None


def page(app_id: str, account_id: str | None, status: str | None, query: PageQuery) -> tuple[list[dict[str, Any]], int]:
    if status is not None:
        if account_id is not None:
            return indexed_page(
                "account-status", "accountStatusKey", f"INVOICE#{account_id}#{status}", query.page, query.limit
            )
        return indexed_page("status", "statusKey", f"INVOICE#{app_id}#{status}", query.page, query.limit)
    chosen = account_list(app_id, account_id) if account_id else app_list(app_id)
    return listed(chosen, query, "invoiceId", lambda i: {"pk": f"INVOICE#{i}", "sk": "INVOICE"})


def public(invoice: dict[str, Any]) -> dict[str, Any]:
    from chalicelib.platform.amounts import format_units
    from chalicelib.platform.networks import registry

    network = registry().by_name(str(invoice["network"]))
    token = network.custody_token(str(invoice["tokenCode"])) if network else None
    decimals = token.decimals if token else 0
    return {
        "id": invoice["id"],
        "accountId": invoice["accountId"],
        "status": invoice["status"],
        "network": invoice["network"],
        "chainId": int(invoice["chainId"]),
        "tokenCode": invoice["tokenCode"],
        "amount": format_units(int(invoice["amountInDecimals"]), decimals),
        "amountInDecimals": invoice["amountInDecimals"],
        "reference": invoice["reference"],
        "walletId": invoice["walletId"],
        "depositAddress": invoice["depositAddress"],
        "expiresAt": invoice["expiresAt"],
        "bufferInSeconds": int(invoice["bufferInSeconds"]),
        "createdAt": invoice["createdAt"],
        "paidAt": invoice.get("paidAt"),
        "failedAt": invoice.get("failedAt"),
        "expiredAt": invoice.get("expiredAt"),
        "transactionHash": invoice.get("transactionHash"),
        "depositId": invoice.get("matchedDeposit"),
        "failedReason": invoice.get("failedReason"),
        "receivedAmountInDecimals": invoice.get("receivedAmountInDecimals"),
    }


def close_items(invoice: dict[str, Any], pair: Accepted, status: str, values: dict[str, Any]) -> list[aws.TxItem]:
    """The writes that end a pending invoice (for the caller's transaction): its state, its open marker, its
    place in the expiry sweep."""
    return [
        aws.update(
            "invoice",
            TABLE,
            {"pk": invoice["pk"], "sk": "INVOICE"},
            aws.Changes(
                set={
                    "status": status,
                    **values,
                    **status_keys(
                        "INVOICE", invoice["appId"], invoice["accountId"], status, invoice["createdAt"], invoice["id"]
                    ),
                }
            ),
            aws.Condition("#s = :pending", {"#s": "status"}, {":pending": "pending"}),
        ),
        aws.update(
            "open",
            TABLE,
            open_key(str(invoice["accountId"]), pair),
            aws.Changes(set={"open": False}),
            aws.Condition("invoiceId = :i", values={":i": invoice["id"]}),
        ),
        aws.delete("expiring", TABLE, {"pk": EXPIRING, "sk": f"{invoice['deadline']}#{invoice['id']}"}),
    ]


def expire_due(limit: int = 100, read_at_most: int = 2000) -> int:
    """The expiry sweep: pending invoices past `expiresAt + bufferInSeconds` without a payment confirming, once the
    watcher of their network has scanned past that deadline (a payment mined in time but not scanned yet by a
    lagging watcher still pays the invoice)."""
    from boto3.dynamodb.conditions import Key

    from chalicelib.custody import watcher

    request: dict[str, Any] = {
        "KeyConditionExpression": Key("pk").eq(EXPIRING) & Key("sk").lte(clock.iso_now()),  # `<deadline>#<id>`
        "ConsistentRead": True,
        "Limit": 200,
    }
    scanned: dict[int, float] = {}
    expired = read = 0
    while expired < limit and read < read_at_most:
        answer = aws.table(TABLE).query(**request)
        for marker in answer["Items"]:
            read += 1
            invoice = get(f"INVOICE#{marker['invoiceId']}", "INVOICE")
            if invoice is None or invoice["status"] != "pending" or invoice.get("matchedDeposit"):
                continue  # settled, or a payment seen in time is confirming (then it is paid or failed)
            chain_id = int(invoice["chainId"])
            if chain_id not in scanned:
                cursor = get(**watcher.cursor_key(chain_id)) or {}
                scanned[chain_id] = float(cursor.get("scannedTime", 0))
            if scanned[chain_id] < clock.parse_iso(str(invoice["deadline"])).timestamp():
                continue  # the watcher has not read the chain up to the deadline yet
            if _expire(invoice):
                expired += 1
            if expired >= limit:
                break
        if "LastEvaluatedKey" not in answer:
            break
        request["ExclusiveStartKey"] = answer["LastEvaluatedKey"]
    return expired


def _expire(invoice: dict[str, Any]) -> bool:
    pair = accepted(str(invoice["network"]), str(invoice["tokenCode"]))
    now = clock.iso_now()
    items = close_items(invoice, pair, "expired", {"expiredAt": now})
    items[0] = aws.update(
        "invoice",
        TABLE,
        {"pk": invoice["pk"], "sk": "INVOICE"},
        aws.Changes(
            set={
                "status": "expired",
                "expiredAt": now,
                **status_keys(
                    "INVOICE", invoice["appId"], invoice["accountId"], "expired", invoice["createdAt"], invoice["id"]
                ),
            }
        ),
        aws.Condition(
            "#s = :pending AND attribute_not_exists(matchedDeposit)", {"#s": "status"}, {":pending": "pending"}
        ),
    )
    data = events.invoice_expired(invoice, pair, str(invoice["userId"]), now)
    event = Event(str(invoice["appId"]), "invoice.expired", f"invoice.expired:{invoice['id']}", data)
    try:
        commit(lambda: Plan(items, [], event))
    except aws.TransactionCancelledError:
        return False  # a payment was seen meanwhile, or another sweep expired it
    logger.info("invoice expired", extra={"invoiceId": invoice["id"]})
    return True
