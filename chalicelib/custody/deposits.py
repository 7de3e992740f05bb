"""Deposits: every transfer of an accepted token seen to a deposit address, from first sight to its credit.

A deposit is keyed by (chainId, txHash, the log's position within its transaction) or `native`; a block's
`logIndex` changes when a transaction is re-mined in another block, the position within the transaction does
not. Its id is the UUIDv5 of that key, so records and event ids are stable across rescans and reorgs.

States: `pending` (seen; `pendingBalance`) → `credited` (confirmed; `activeBalance`), or `reverted` (its
transaction left the chain; nothing credited, or a correcting entry when that happened after the credit).
A reverted deposit whose transaction is mined again is followed: `pending` again at its new block.

Each move is ONE transaction (store.commit): the deposit's state, the balance and its journal entry, the
invoice it pays, the watch list, and the event in the outbox. Every write is conditional on the state it
moves from, so rescans, duplicate watcher runs and crashes between steps never credit twice.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any, Literal

from chalicelib.custody import events, invoices, ledger
from chalicelib.custody.store import TABLE, Event, Plan, commit, get, indexed_page, listed, status_keys
from chalicelib.custody.tokens import NAMESPACE, Accepted, accepted
from chalicelib.platform import aws, clock, retry
from chalicelib.platform.errors import not_found
from chalicelib.platform.logging import logger
from chalicelib.platform.pagination import AppendOnlyList, PageQuery

DEPOSIT_NOT_FOUND = "DEPOSIT_NOT_FOUND"
Seen = Literal["new", "followed", "again", "known"]


@dataclass(frozen=True)
class Transfer:
    """One transfer to a deposit address, as the watcher read it from a canonical block."""

    pair: Accepted
    tx_hash: str
    ordinal: str  # the log's position within its transaction, or "native"
    log_index: int | None
    sender: str
    to: str
    value: int
    block_number: int
    block_hash: str
    block_time: int  # the block's timestamp (unix seconds)

    @property
    def id(self) -> str:
        return deposit_id(self.pair.network.chainId, self.tx_hash, self.ordinal)


def deposit_id(chain_id: int, tx_hash: str, ordinal: str) -> str:
    return str(uuid.uuid5(NAMESPACE, f"deposit:{chain_id}:{tx_hash.lower()}:{ordinal}"))


def watch_key(chain_id: int, deposit: str) -> dict[str, str]:
    return {"pk": f"WATCH#{chain_id}", "sk": deposit}


def app_list(app_id: str) -> AppendOnlyList:
    return AppendOnlyList(TABLE, f"DEPOSITS#{app_id}")


def account_list(app_id: str, account_id: str) -> AppendOnlyList:
    return AppendOnlyList(TABLE, f"DEPOSITS#{app_id}#{account_id}")


def invoice_list(app_id: str, invoice_id: str) -> AppendOnlyList:
    return AppendOnlyList(TABLE, f"DEPOSITS#{app_id}#{invoice_id}")


def _key(deposit: str) -> dict[str, str]:
    return {"pk": f"DEPOSIT#{deposit}", "sk": "DEPOSIT"}


# --- first sight -------------------------------------------------------------------------------------------


def seen(transfer: Transfer, account: dict[str, Any]) -> Seen:
    """Record a transfer the watcher found in a canonical block: once per deposit id, whatever the rescans."""
    existing = get(**_key(transfer.id))
    if existing is not None:
        if existing["status"] in ("pending", "credited") and existing["blockHash"] != transfer.block_hash:
            return "followed" if _follow(existing, transfer) else "known"
        if existing["status"] != "reverted":
            return "known"
        # Reverted, and now in a canonical block again: pending again (a new revision, with its own events).
    match_invoice = True
    for _ in retry.attempts(3):
        try:
            commit(lambda match=match_invoice: _seen_plan(transfer, account, existing, match))  # type: ignore[misc]
            return "again" if existing else "new"
        except aws.TransactionCancelledError as exc:
            if exc.condition_failed("deposit"):
                return "known"  # another watcher run recorded it first
            if exc.condition_failed("invoice-match"):
                match_invoice = False  # another transfer became the invoice's payment first
                continue
            raise
    return "known"


def _seen_plan(transfer: Transfer, account: dict[str, Any], existing: dict[str, Any] | None, match: bool) -> Plan:
    pair = transfer.pair
    app_id = str(account["appId"])
    invoice, matched, late = _invoice_for(account, transfer, match)
    revision = int(existing.get("revision", 0)) + 1 if existing else 0
    tx_ref = _tx_ref(transfer, account)
    now = clock.iso_now()
    created_at = existing["createdAt"] if existing else now
    wallet = events.wallet_object(account, pair)
    deposit: dict[str, Any] = {
        **_key(transfer.id),
        "id": transfer.id,
        "appId": app_id,
        "accountId": account["id"],
        "userId": account["subId"],
        "walletId": wallet["walletId"],
        "network": pair.network.name,
        "chainId": pair.network.chainId,
        "tokenCode": pair.token.tokenCode,
        "tokenId": pair.id,
        "txHash": transfer.tx_hash,
        "txRef": tx_ref,
        "ordinal": transfer.ordinal,
        "logIndex": transfer.log_index,
        "from": transfer.sender,
        "to": transfer.to,
        "value": str(transfer.value),
        "blockNumber": transfer.block_number,
        "blockHash": transfer.block_hash,
        "blockTime": transfer.block_time,
        "confirmationsRequired": pair.network.confirmations,
        "status": "pending",
        "matchType": "invoice" if matched else "wallet",
        "seenAt": now,
        "createdAt": created_at,
        "updatedAt": now,
        **status_keys("DEPOSIT", app_id, str(account["id"]), "pending", created_at, transfer.id),
    }
    if invoice is not None:
        deposit["invoiceId"] = invoice["id"]
        deposit["late"] = late
    if revision:
        deposit["revision"] = revision
    deposit = {k: v for k, v in deposit.items() if v is not None}
    condition = (
        aws.Condition("attribute_not_exists(pk)")
        if existing is None
        else aws.Condition("#s = :reverted", {"#s": "status"}, {":reverted": "reverted"})
    )
    balance, entry = ledger.post(
        str(account["id"]),
        pair,
        ledger.Movement(pending=transfer.value),
        "pending",
        "deposit seen",
        ("deposit", transfer.id),
    )
    items = [
        aws.put("deposit", TABLE, deposit, condition),
        aws.put(
            "watch",
            TABLE,
            {**watch_key(pair.network.chainId, transfer.id), "blockNumber": transfer.block_number, "phase": "pending"},
            None,
        ),
        balance,
    ]
    lists = [entry]
    if existing is None:
        lists += [
            (app_list(app_id), {"depositId": transfer.id, "createdAt": now}),
            (account_list(app_id, str(account["id"])), {"depositId": transfer.id, "createdAt": now}),
        ]
        if invoice is not None:
            lists.append((invoice_list(app_id, str(invoice["id"])), {"depositId": transfer.id, "createdAt": now}))
    if matched and invoice is not None:
        items.append(
            aws.update(
                "invoice-match",
                TABLE,
                {"pk": invoice["pk"], "sk": "INVOICE"},
                aws.Changes(set={"matchedDeposit": transfer.id}),
                aws.Condition(
                    "#s = :pending AND attribute_not_exists(matchedDeposit)", {"#s": "status"}, {":pending": "pending"}
                ),
            )
        )
        data = events.invoice_pending(invoice, deposit, pair, str(account["subId"]))
        event = Event(
            app_id,
            "deposit.invoice.pending_confirmation",
            f"deposit.invoice.pending_confirmation:{invoice['id']}:{tx_ref}{_rev(revision)}",
            data,
        )
    else:
        data = events.wallet_pending(account, deposit, pair)
        event = Event(
            app_id,
            "deposit.wallet.pending_confirmation",
            f"deposit.wallet.pending_confirmation:{wallet['walletId']}:{tx_ref}{_rev(revision)}",
            data,
        )
    return Plan(items, lists, event)


def _tx_ref(transfer: Transfer, account: dict[str, Any]) -> str:
    """`<txHash>` as the seed's ids have it. One transaction may pay one account several times (several logs):
    the first of them keeps `<txHash>`, each later one `<txHash>:<n>` (n: its log's position in the transaction),
    so each has its own event."""
    if transfer.ordinal in ("native", "0"):
        return transfer.tx_hash
    earlier = [
        _key(deposit_id(transfer.pair.network.chainId, transfer.tx_hash, str(n))) for n in range(int(transfer.ordinal))
    ]
    for start in range(0, len(earlier), 100):
        if any(d["accountId"] == account["id"] for d in aws.batch_get(TABLE, earlier[start : start + 100])):
            return f"{transfer.tx_hash}:{transfer.ordinal}"
    return transfer.tx_hash


def _rev(revision: int) -> str:
    """Event ids of a deposit that came back after a reorg took it away: `:r<n>`, so they are new events."""
    return f":r{revision}" if revision else ""


def _invoice_for(
    account: dict[str, Any], transfer: Transfer, may_match: bool
) -> tuple[dict[str, Any] | None, bool, bool]:
    """(the invoice the transfer relates to, whether it is that invoice's payment, whether it is late).

    The payment: the first transfer to the account for the invoice's network and token mined after the head the
    watcher knew when the invoice was made (`startBlock`) and no later (block time) than `expiresAt +
    bufferInSeconds`. A later one in that window is an extra payment
    (a wallet deposit naming the invoice, not late); one after the deadline of an invoice that expired unpaid is
    late (a wallet deposit naming it, until the next invoice of that token). Anything else is a plain wallet
    deposit."""
    invoice = _last_invoice(account, transfer.pair)
    if invoice is None:
        return None, False, False
    deadline = clock.parse_iso(str(invoice["deadline"])).timestamp()
    if transfer.block_number <= int(invoice.get("startBlock", -1)):
        return None, False, False  # mined before the invoice existed: not for it
    in_time = transfer.block_time <= deadline
    if in_time:
        pays = may_match and invoice["status"] == "pending" and "matchedDeposit" not in invoice
        return invoice, pays, False
    if invoice["status"] == "expired" or (invoice["status"] == "pending" and "matchedDeposit" not in invoice):
        return invoice, False, True
    return None, False, False


def _last_invoice(account: dict[str, Any], pair: Accepted) -> dict[str, Any] | None:
    marker = get(**invoices.open_key(str(account["id"]), pair))
    return get(f"INVOICE#{marker['invoiceId']}", "INVOICE") if marker else None


def _follow(existing: dict[str, Any], transfer: Transfer) -> bool:
    """The deposit's transaction was re-mined in another block: follow it there (no balance change)."""
    move = aws.update(
        "deposit",
        TABLE,
        _key(transfer.id),
        aws.Changes(
            set={
                "blockNumber": transfer.block_number,
                "blockHash": transfer.block_hash,
                "blockTime": transfer.block_time,
                "logIndex": transfer.log_index,
                "updatedAt": clock.iso_now(),
            }
        ),
        # A credited deposit re-mined elsewhere stays credited (its money is on chain either way).
        aws.Condition(
            "#s = :was AND blockHash = :old",
            {"#s": "status"},
            {":was": existing["status"], ":old": existing["blockHash"]},
        ),
    )
    watch = aws.put(
        "watch",
        TABLE,
        {
            **watch_key(transfer.pair.network.chainId, transfer.id),
            "blockNumber": transfer.block_number,
            "phase": existing["status"],
        },
        None,
    )
    try:
        aws.transact([move, watch])
    except aws.TransactionCancelledError:
        return False
    logger.info("deposit followed to another block", extra={"depositId": transfer.id})
    return True


# --- confirmation, revert ----------------------------------------------------------------------------------


def follow(deposit: dict[str, Any], block_number: int, block_hash: str, log_index: int | None) -> bool:
    transfer = to_transfer(deposit, block_number, block_hash, log_index)
    return _follow(deposit, transfer)


def to_transfer(deposit: dict[str, Any], block_number: int, block_hash: str, log_index: int | None) -> Transfer:
    return Transfer(
        pair=pair_of(deposit),
        tx_hash=str(deposit["txHash"]),
        ordinal=str(deposit["ordinal"]),
        log_index=log_index,
        sender=str(deposit["from"]),
        to=str(deposit["to"]),
        value=int(deposit["value"]),
        block_number=block_number,
        block_hash=block_hash,
        block_time=int(deposit.get("blockTime", 0)),
    )


def pair_of(deposit: dict[str, Any]) -> Accepted:
    return accepted(str(deposit["network"]), str(deposit["tokenCode"]))


def credit(deposit: dict[str, Any], account: dict[str, Any], confirmations: int) -> bool:
    """Confirmed on a canonical block: pending → credited, with the invoice it pays and its event, once."""
    try:
        return commit(lambda: _credit_plan(deposit, account, confirmations)) is not None
    except aws.TransactionCancelledError as exc:
        if exc.condition_failed("deposit"):
            return False  # credited (or moved) by another run
        raise


def _credit_plan(deposit: dict[str, Any], account: dict[str, Any], confirmations: int) -> Plan:
    pair = pair_of(deposit)
    value = int(deposit["value"])
    now = clock.iso_now()
    app_id = str(deposit["appId"])
    invoice = get(f"INVOICE#{deposit['invoiceId']}", "INVOICE") if deposit.get("invoiceId") else None
    pays = (
        deposit["matchType"] == "invoice"
        and invoice is not None
        and invoice["status"] == "pending"
        and invoice.get("matchedDeposit") == deposit["id"]
    )
    outcome = None
    items: list[aws.TxItem] = []
    if pays and invoice is not None:
        if value == int(invoice["amountInDecimals"]):
            outcome = "paid"
            items += invoices.close_items(invoice, pair, "paid", {"paidAt": now, "transactionHash": deposit["txHash"]})
            data = events.invoice_paid(invoice, deposit, pair, str(account["subId"]), now)
            event = Event(app_id, "deposit.invoice.paid", f"deposit.invoice.paid:{invoice['id']}:{_ref(deposit)}", data)
            reference = ("invoice", str(invoice["id"]))
        else:
            outcome = "failed"
            items += invoices.close_items(
                invoice,
                pair,
                "failed",
                {
                    "failedAt": now,
                    "failedReason": "amount_mismatch",
                    "transactionHash": deposit["txHash"],
                    "receivedAmountInDecimals": str(value),
                },
            )
            data = events.invoice_failed(invoice, deposit, pair, str(account["subId"]), now)
            event = Event(app_id, "invoice.failed", f"invoice.failed:{invoice['id']}:{_ref(deposit)}", data)
            reference = ("token_transfer", str(deposit["id"]))
    else:
        data = events.wallet_credited(account, deposit, pair)
        event = Event(
            app_id,
            "deposit.wallet.credited",
            f"deposit.wallet.credited:{deposit['id']}{_rev(int(deposit.get('revision', 0)))}",
            data,
        )
        reference = ("token_transfer", str(deposit["id"]))
    balance, entry = ledger.post(
        str(deposit["accountId"]),
        pair,
        ledger.Movement(active=value, pending=-value),
        "credit",
        f"deposit confirmed ({confirmations} confirmations)" + (f", invoice {outcome}" if outcome else ""),
        reference,
    )
    changes = {
        "status": "credited",
        "creditedAt": now,
        "confirmations": confirmations,
        "creditReferenceType": reference[0],
        "creditReferenceId": reference[1],
        "updatedAt": now,
        **({"invoiceOutcome": outcome} if outcome else {}),
        **status_keys(
            "DEPOSIT", app_id, str(deposit["accountId"]), "credited", str(deposit["createdAt"]), str(deposit["id"])
        ),
    }
    items = [
        aws.update(
            "deposit",
            TABLE,
            _key(str(deposit["id"])),
            aws.Changes(set=changes),
            aws.Condition(
                "#s = :pending AND blockHash = :h",
                {"#s": "status"},
                {":pending": "pending", ":h": deposit["blockHash"]},
            ),
        ),
        # Still watched for a while: a reorg deeper than the confirmations is caught and corrected (never deleted).
        aws.put(
            "watch",
            TABLE,
            {
                **watch_key(pair.network.chainId, str(deposit["id"])),
                "blockNumber": int(deposit["blockNumber"]),
                "phase": "credited",
            },
            None,
        ),
        balance,
        *items,
    ]
    return Plan(items, [entry], event)


def _ref(deposit: dict[str, Any]) -> str:
    """The `<txHash>` part of the confirmed events' ids: as its pending event had it (`txRef`), and a revision."""
    return str(deposit.get("txRef") or deposit["txHash"]) + _rev(int(deposit.get("revision", 0)))


def revert(deposit: dict[str, Any], account: dict[str, Any]) -> bool:
    """Its transaction left the chain (or failed): pending → reverted and nothing credited; credited → reverted
    with a correcting entry (activeBalance may go below zero) and an alert."""
    after_credit = deposit["status"] == "credited"
    try:
        return commit(lambda: _revert_plan(deposit, account, after_credit)) is not None
    except aws.TransactionCancelledError as exc:
        if exc.condition_failed("deposit"):
            return False
        raise


def _revert_plan(deposit: dict[str, Any], account: dict[str, Any], after_credit: bool) -> Plan:
    pair = pair_of(deposit)
    value = int(deposit["value"])
    now = clock.iso_now()
    app_id = str(deposit["appId"])
    movement = ledger.Movement(active=-value) if after_credit else ledger.Movement(pending=-value)
    balance, entry = ledger.post(
        str(deposit["accountId"]),
        pair,
        movement,
        "correction" if after_credit else "pending_void",
        "deposit's transaction left the chain" + (" after its credit" if after_credit else ""),
        ("deposit", str(deposit["id"])),
        allow_negative=after_credit,
    )
    items: list[aws.TxItem] = [
        aws.update(
            "deposit",
            TABLE,
            _key(str(deposit["id"])),
            aws.Changes(
                set={
                    "status": "reverted",
                    "revertedAt": now,
                    "afterCredit": after_credit,
                    "updatedAt": now,
                    **status_keys(
                        "DEPOSIT",
                        app_id,
                        str(deposit["accountId"]),
                        "reverted",
                        str(deposit["createdAt"]),
                        str(deposit["id"]),
                    ),
                }
            ),
            aws.Condition(
                "#s = :was AND blockHash = :h",
                {"#s": "status"},
                {":was": deposit["status"], ":h": deposit["blockHash"]},
            ),
        ),
        aws.delete("watch", TABLE, watch_key(pair.network.chainId, str(deposit["id"]))),
        balance,
    ]
    if not after_credit and deposit.get("invoiceId") and deposit["matchType"] == "invoice":
        # The invoice is free again: another payment may match it, or it expires after its deadline.
        invoice_key = {"pk": f"INVOICE#{deposit['invoiceId']}", "sk": "INVOICE"}
        items.append(
            aws.update(
                "invoice-unmatch",
                TABLE,
                invoice_key,
                aws.Changes(remove=["matchedDeposit"]),
                aws.Condition("matchedDeposit = :d", values={":d": deposit["id"]}),
            )
        )
    if after_credit:
        logger.error(
            "credited deposit left the chain: correcting entry posted",
            extra={"depositId": deposit["id"], "network": pair.network.name, "alert": True},
        )
    data = events.deposit_reverted(account, {**deposit, "revertedAt": now}, pair, after_credit)
    event = Event(
        app_id, "deposit.reverted", f"deposit.reverted:{deposit['id']}{_rev(int(deposit.get('revision', 0)))}", data
    )
    return Plan(items, [entry], event)


def stop_watching(chain_id: int, deposit: str) -> None:
    aws.write(aws.delete("watch", TABLE, watch_key(chain_id, deposit)))


# --- reads -------------------------------------------------------------------------------------------------


def of_app(app_id: str, deposit: str) -> dict[str, Any]:
    try:
        uuid.UUID(deposit)
    except ValueError:
        raise not_found(DEPOSIT_NOT_FOUND, "No such deposit") from None
    item = get(**_key(deposit))
    if item is None or item["appId"] != app_id:
        raise not_found(DEPOSIT_NOT_FOUND, "No such deposit")
    return item


def page(
    app_id: str, account_id: str | None, invoice_id: str | None, status: str | None, query: PageQuery
) -> tuple[list[dict[str, Any]], int]:
    if invoice_id is not None:  # an invoice has few deposits: its list, filtered here
        records, _total = _listed(invoice_list(app_id, invoice_id), PageQuery(page=1, limit=100))
        records = [
            r
            for r in records
            if (status is None or r["status"] == status) and (account_id is None or r["accountId"] == account_id)
        ]
        start = (query.page - 1) * query.limit
        return records[start : start + query.limit], len(records)
    if status is not None:
        if account_id is not None:
            return indexed_page(
                "account-status", "accountStatusKey", f"DEPOSIT#{account_id}#{status}", query.page, query.limit
            )
        return indexed_page("status", "statusKey", f"DEPOSIT#{app_id}#{status}", query.page, query.limit)
    return _listed(account_list(app_id, account_id) if account_id else app_list(app_id), query)


def _listed(entries_list: AppendOnlyList, query: PageQuery) -> tuple[list[dict[str, Any]], int]:
    return listed(entries_list, query, "depositId", _key)


def public(deposit: dict[str, Any], head: int | None) -> dict[str, Any]:
    pair = pair_of(deposit)
    value = int(deposit["value"])
    block = int(deposit["blockNumber"])
    confirmations = max(0, head - block + 1) if head is not None and deposit["status"] == "pending" else None
    if deposit["status"] == "credited":
        confirmations = int(deposit.get("confirmations", 0))
    from chalicelib.platform.amounts import format_units

    return {
        "id": deposit["id"],
        "accountId": deposit["accountId"],
        "walletId": deposit["walletId"],
        "status": deposit["status"],
        "matchType": deposit["matchType"],
        "invoiceId": deposit.get("invoiceId"),
        "late": bool(deposit.get("late", False)),
        "network": deposit["network"],
        "chainId": int(deposit["chainId"]),
        "tokenCode": deposit["tokenCode"],
        "amount": format_units(value, pair.token.decimals),
        "amountInDecimals": str(value),
        "transaction": events.transaction_object(deposit, pair),
        "blockNumber": block,
        "blockHash": deposit["blockHash"],
        "logIndex": int(deposit["logIndex"]) if deposit.get("logIndex") is not None else None,
        "confirmations": confirmations,
        "confirmationsRequired": int(deposit["confirmationsRequired"]),
        "credit": (
            {
                **events.credit(pair, value, str(deposit["creditReferenceType"]), str(deposit["creditReferenceId"])),
                "amount": format_units(value, pair.token.decimals),
            }
            if deposit["status"] == "credited"
            else None
        ),
        "invoiceOutcome": deposit.get("invoiceOutcome"),
        "seenAt": deposit["seenAt"],
        "creditedAt": deposit.get("creditedAt"),
        "revertedAt": deposit.get("revertedAt"),
        "createdAt": deposit["createdAt"],
    }
