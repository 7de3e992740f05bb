"""Deposits: every transfer of an accepted token seen to a deposit address, from first sight to its credit.

A deposit is keyed by (chainId, txHash, the log's position within its transaction) or `native`; a block's
`logIndex` changes when a transaction is re-mined in another block, the position within the transaction does
not. Its id is the UUIDv5 of that key, so records and event ids are stable across rescans and reorgs.

States (records.py): `pending` (seen; `pendingBalance`) → `credited` (confirmed; `activeBalance`), or
`reverted` (its transaction left the chain; nothing credited, or a correcting entry when that happened after the
credit). A reverted deposit whose transaction is mined again is followed: `pending` again at its new block.

Each move is ONE unit of work (platform/unit_of_work.py): the deposit's transition, the balance and its journal
entry, the invoice it pays, the watch list, and the event in the outbox. Every write is conditional on the state
it moves from, so rescans, duplicate watcher runs and crashes between steps never credit twice.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from chalicelib.custody import events, ledger, utxos
from chalicelib.custody.deposits import invoices
from chalicelib.custody.deposits.invoices import Invoice
from chalicelib.custody.deposits.records import WATCHED, Deposit, deposit_key
from chalicelib.custody.store import TABLE, busy, canonical_address, get, status_page
from chalicelib.custody.tokens import NAMESPACE, TokenOnNetwork, accepted
from chalicelib.platform import aws, clock, retry, unit_of_work
from chalicelib.platform.amounts import format_units
from chalicelib.platform.errors import not_found
from chalicelib.platform.logging import logger
from chalicelib.platform.pagination import MAX_LIMIT, AppendOnlyList, PageQuery, records_page
from chalicelib.platform.transitions import condition, create, transition
from chalicelib.platform.unit_of_work import Event, Plan

DEPOSIT_NOT_FOUND = "DEPOSIT_NOT_FOUND"
Seen = Literal["new", "followed", "again", "known"]

__all__ = ["Deposit", "Transfer"]


@dataclass(frozen=True)
class Transfer:
    """One transfer to a deposit address, as the watcher read it from a canonical block."""

    pair: TokenOnNetwork
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


def find(deposit: str) -> Deposit | None:
    item = get(**deposit_key(deposit))
    return Deposit.from_item(item) if item is not None else None


def _commit(build: Plan | Callable[[], Plan | None]) -> unit_of_work.Committed | None:
    return unit_of_work.commit(build, on_busy=busy)


def _watch(chain_id: int, deposit: str, block_number: int, phase: str) -> aws.TxItem:
    return aws.put("watch", TABLE, {**watch_key(chain_id, deposit), "blockNumber": block_number, "phase": phase}, None)


# --- first sight -------------------------------------------------------------------------------------------


def seen(transfer: Transfer, account: Mapping[str, Any]) -> Seen:
    """Record a transfer the watcher found in a canonical block: once per deposit id, whatever the rescans."""
    existing = find(transfer.id)
    if existing is not None:
        if existing.status in WATCHED and existing.blockHash != transfer.block_hash:
            return "followed" if _follow(existing, transfer) else "known"
        if existing.status != "reverted":
            return "known"
        # Reverted, and now in a canonical block again: pending again (a new revision, with its own events).
    match_invoice = True
    for _ in retry.attempts(3):
        try:
            _commit(lambda match=match_invoice: _seen_plan(transfer, account, existing, match))  # type: ignore[misc]
            return "again" if existing else "new"
        except aws.TransactionCancelledError as exc:
            if exc.condition_failed("deposit"):
                return "known"  # another watcher run recorded it first
            if exc.condition_failed("invoice-match"):
                match_invoice = False  # another transfer became the invoice's payment first
                continue
            raise
    return "known"


def _seen_plan(transfer: Transfer, account: Mapping[str, Any], existing: Deposit | None, match: bool) -> Plan:
    pair = transfer.pair
    app_id = str(account["appId"])
    invoice, matched, late = _invoice_for(account, transfer, match)
    revision = existing.rev + 1 if existing else 0
    tx_ref, first_of_tx = _tx_ref(transfer, account, existing)
    now = clock.iso_now()
    created_at = existing.createdAt if existing else now
    wallet = events.wallet_object(account, pair, transfer.to)
    fields: dict[str, object] = {
        **deposit_key(transfer.id),
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
        "invoiceId": invoice.id if invoice is not None else None,
        "late": late if invoice is not None else None,
        "revision": revision or None,
    }
    deposit = Deposit.model_validate({k: v for k, v in fields.items() if v is not None})
    if existing is None:
        record = create(deposit)
    else:  # the reverted record is replaced whole by its new revision
        record = aws.put(
            "deposit", TABLE, {**deposit.to_item(), **deposit.status_index().set}, condition(existing, "pending")
        )
    posting = ledger.post(
        deposit.accountId,
        pair,
        ledger.Movement(pending=transfer.value),
        "pending",
        "deposit seen",
        ("deposit", transfer.id),
    )
    items = [record, _watch(pair.network.chainId, transfer.id, transfer.block_number, "pending"), posting.item]
    if first_of_tx is not None:
        items.append(first_of_tx)
    lists = [posting.entry]
    if existing is None:
        lists += [
            (app_list(app_id), {"depositId": transfer.id, "createdAt": now}),
            (account_list(app_id, deposit.accountId), {"depositId": transfer.id, "createdAt": now}),
        ]
        if invoice is not None:
            lists.append((invoice_list(app_id, invoice.id), {"depositId": transfer.id, "createdAt": now}))
    if matched and invoice is not None:
        items.append(invoices.match_item(invoice, transfer.id))
        data = events.invoice_pending(invoice.to_item(), deposit.to_item(), pair, str(account["subId"]))
        event = Event(
            app_id,
            "deposit.invoice.pending_confirmation",
            f"deposit.invoice.pending_confirmation:{invoice.id}:{tx_ref}{_rev(revision)}",
            data,
        )
    else:
        data = events.wallet_pending(account, deposit.to_item(), pair)
        event = Event(
            app_id,
            "deposit.wallet.pending_confirmation",
            f"deposit.wallet.pending_confirmation:{wallet['walletId']}:{tx_ref}{_rev(revision)}",
            data,
        )
    # Another run recorded another deposit of the transaction to the account first: this one is not the first.
    return Plan(items, lists, event, replan_on=posting.replan_on | {"txref"})


def _tx_ref(transfer: Transfer, account: Mapping[str, Any], existing: Deposit | None) -> tuple[str, aws.TxItem | None]:
    """`<txHash>` as the reference API's ids have it, and the write that claims it. One transaction may pay one
    account several times (several logs, several Bitcoin outputs): the first of them recorded keeps `<txHash>`,
    each later one `<txHash>:<n>` (n: its position in the transaction), so each has its own event. The first one
    writes the account's marker of the transaction (`TXREF#…`, conditional: a concurrent run re-plans), so a
    later one reads one item, however many outputs the transaction has. A deposit seen again keeps its ref."""
    if existing is not None:
        return existing.txRef, None
    if transfer.ordinal == "native":
        return transfer.tx_hash, None
    marker = tx_ref_key(str(account["id"]), transfer.pair.network.chainId, transfer.tx_hash)
    if get(**marker) is not None:
        return f"{transfer.tx_hash}:{transfer.ordinal}", None
    return transfer.tx_hash, aws.put("txref", TABLE, {**marker, "depositId": transfer.id})


def tx_ref_key(account_id: str, chain_id: int, tx_hash: str) -> dict[str, str]:
    return {"pk": f"TXREF#{account_id}#{chain_id}#{tx_hash.lower()}", "sk": "TXREF"}


def _rev(revision: int) -> str:
    """Event ids of a deposit that came back after a reorg took it away: `:r<n>`, so they are new events."""
    return f":r{revision}" if revision else ""


def _invoice_for(account: Mapping[str, Any], transfer: Transfer, may_match: bool) -> tuple[Invoice | None, bool, bool]:
    """(the invoice the transfer relates to, whether it is that invoice's payment, whether it is late).

    The payment: the first transfer to the account for the invoice's network and token mined after the head the
    watcher knew when the invoice was made (`startBlock`) and no later (block time) than `expiresAt +
    bufferInSeconds`. A later one in that window is an extra payment
    (a wallet deposit naming the invoice, not late); one after the deadline of an invoice that expired unpaid is
    late (a wallet deposit naming it, until the next invoice of that token). Anything else is a plain wallet
    deposit."""
    invoice = _last_invoice(account, transfer.pair)
    if invoice is None or canonical_address(invoice.depositAddress) != canonical_address(transfer.to):
        return None, False, False  # none, or the account's other address type on this network
    deadline = clock.parse_iso(invoice.deadline).timestamp()
    if transfer.block_number <= invoice.startBlock:
        return None, False, False  # mined before the invoice existed: not for it
    unmatched = invoice.status == "pending" and invoice.matchedDeposit is None
    if transfer.block_time <= deadline:
        return invoice, may_match and unmatched, False
    if invoice.status == "expired" or unmatched:
        return invoice, False, True
    return None, False, False


def _last_invoice(account: Mapping[str, Any], pair: TokenOnNetwork) -> Invoice | None:
    marker = get(**invoices.open_key(str(account["id"]), pair))
    return invoices.find(str(marker["invoiceId"])) if marker else None


def _follow(existing: Deposit, transfer: Transfer) -> bool:
    """The deposit's transaction was re-mined in another block: follow it there (no balance change). A credited
    deposit re-mined elsewhere stays credited (its money is on chain either way)."""
    move = transition(
        existing,
        existing.status,
        expect={"blockHash": existing.blockHash},
        blockNumber=transfer.block_number,
        blockHash=transfer.block_hash,
        blockTime=transfer.block_time,
        logIndex=transfer.log_index,
    )
    watch = _watch(transfer.pair.network.chainId, transfer.id, transfer.block_number, existing.status)
    try:
        _commit(Plan([move, watch]))
    except aws.TransactionCancelledError:
        return False
    logger.info("deposit followed to another block", extra={"depositId": transfer.id})
    return True


# --- confirmation, revert ----------------------------------------------------------------------------------


def follow(deposit: Deposit, block_number: int, block_hash: str, log_index: int | None) -> bool:
    return _follow(deposit, to_transfer(deposit, block_number, block_hash, log_index))


def to_transfer(deposit: Deposit, block_number: int, block_hash: str, log_index: int | None) -> Transfer:
    return Transfer(
        pair=pair_of(deposit),
        tx_hash=deposit.txHash,
        ordinal=deposit.ordinal,
        log_index=log_index,
        sender=deposit.sender,
        to=deposit.to,
        value=deposit.amount,
        block_number=block_number,
        block_hash=block_hash,
        block_time=deposit.blockTime,
    )


def pair_of(deposit: Deposit) -> TokenOnNetwork:
    return accepted(deposit.network, deposit.tokenCode)


def credit(deposit: Deposit, account: Mapping[str, Any], confirmations: int) -> bool:
    """Confirmed on a canonical block: pending → credited, with the invoice it pays and its event, once."""
    try:
        return _commit(lambda: _credit_plan(deposit, account, confirmations)) is not None
    except aws.TransactionCancelledError as exc:
        if exc.condition_failed("deposit"):
            return False  # credited (or moved) by another run
        raise


def _credit_plan(deposit: Deposit, account: Mapping[str, Any], confirmations: int) -> Plan:
    pair = pair_of(deposit)
    value = deposit.amount
    now = clock.iso_now()
    invoice = invoices.find(deposit.invoiceId) if deposit.invoiceId else None
    outcome = None
    items: list[aws.TxItem] = []
    if (
        deposit.matchType == "invoice"
        and invoice is not None
        and invoice.status == "pending"
        and invoice.matchedDeposit == deposit.id
    ):
        if value == int(invoice.amountInDecimals):
            outcome = "paid"
            items += invoices.close_items(invoice, pair, "paid", paidAt=now, transactionHash=deposit.txHash)
            data = events.invoice_paid(invoice.to_item(), deposit.to_item(), pair, str(account["subId"]), now)
            event = Event(
                deposit.appId, "deposit.invoice.paid", f"deposit.invoice.paid:{invoice.id}:{_ref(deposit)}", data
            )
            reference = ("invoice", invoice.id)
        else:
            outcome = "failed"
            items += invoices.close_items(
                invoice,
                pair,
                "failed",
                failedAt=now,
                failedReason="amount_mismatch",
                transactionHash=deposit.txHash,
                receivedAmountInDecimals=str(value),
            )
            data = events.invoice_failed(invoice.to_item(), deposit.to_item(), pair, str(account["subId"]), now)
            event = Event(deposit.appId, "invoice.failed", f"invoice.failed:{invoice.id}:{_ref(deposit)}", data)
            reference = ("token_transfer", deposit.id)
    else:
        data = events.wallet_credited(account, deposit.to_item(), pair)
        event = Event(
            deposit.appId,
            "deposit.wallet.credited",
            f"deposit.wallet.credited:{deposit.id}{_rev(deposit.rev)}",
            data,
        )
        reference = ("token_transfer", deposit.id)
    posting = ledger.post(
        deposit.accountId,
        pair,
        ledger.Movement(active=value, pending=-value),
        "credit",
        f"deposit confirmed ({confirmations} confirmations)" + (f", invoice {outcome}" if outcome else ""),
        reference,
    )
    credited = transition(
        deposit,
        "credited",
        expect={"blockHash": deposit.blockHash},
        creditedAt=now,
        confirmations=confirmations,
        creditReferenceType=reference[0],
        creditReferenceId=reference[1],
        updatedAt=now,
        **({"invoiceOutcome": outcome} if outcome else {}),  # type: ignore[arg-type]
    )
    # Still watched for a while: a reorg deeper than the confirmations is caught and corrected (never deleted).
    watch = _watch(pair.network.chainId, deposit.id, deposit.blockNumber, "credited")
    if pair.blockchain_type == "bitcoin":  # on a UTXO chain the output is now the account's to spend
        wallet = events.account_wallet(account, pair, deposit.to)
        items.append(
            utxos.add_item(
                "utxo",
                pair.network.chainId,
                deposit.accountId,
                deposit.txHash,
                int(deposit.ordinal),
                value,
                deposit.to,
                str(wallet["addressType"]),
            )
        )
    return Plan([credited, watch, posting.item, *items], [posting.entry], event, replan_on=posting.replan_on)


def _ref(deposit: Deposit) -> str:
    """The `<txHash>` part of the confirmed events' ids: as its pending event had it (`txRef`), and a revision."""
    return deposit.txRef + _rev(deposit.rev)


def revert(deposit: Deposit, account: Mapping[str, Any]) -> bool:
    """Its transaction left the chain (or failed): pending → reverted and nothing credited; credited → reverted
    with a correcting entry (activeBalance may go below zero) and an alert."""
    try:
        return _commit(lambda: _revert_plan(deposit, account)) is not None
    except aws.TransactionCancelledError as exc:
        if exc.condition_failed("deposit"):
            return False
        raise


def _revert_plan(deposit: Deposit, account: Mapping[str, Any]) -> Plan:
    after_credit = deposit.status == "credited"
    pair = pair_of(deposit)
    value = deposit.amount
    now = clock.iso_now()
    movement = ledger.Movement(active=-value) if after_credit else ledger.Movement(pending=-value)
    posting = ledger.post(
        deposit.accountId,
        pair,
        movement,
        "correction" if after_credit else "pending_void",
        "deposit's transaction left the chain" + (" after its credit" if after_credit else ""),
        ("deposit", deposit.id),
        allow_negative=after_credit,
    )
    items: list[aws.TxItem] = [
        transition(
            deposit,
            "reverted",
            expect={"blockHash": deposit.blockHash},
            revertedAt=now,
            afterCredit=after_credit,
            updatedAt=now,
        ),
        aws.delete("watch", TABLE, watch_key(pair.network.chainId, deposit.id)),
        posting.item,
    ]
    if not after_credit and deposit.invoiceId and deposit.matchType == "invoice":
        # The invoice is free again: another payment may match it, or it expires after its deadline.
        items.append(invoices.unmatch_item(deposit.invoiceId, deposit.id))
    if after_credit and pair.blockchain_type == "bitcoin":
        items.append(
            utxos.gone_item(
                "utxo", utxos.utxo_key(pair.network.chainId, deposit.accountId, deposit.txHash, int(deposit.ordinal))
            )
        )
    if after_credit:
        logger.error(
            "credited deposit left the chain: correcting entry posted",
            extra={"depositId": deposit.id, "network": pair.network.name, "alert": True},
        )
    data = events.deposit_reverted(account, {**deposit.to_item(), "revertedAt": now}, pair, after_credit)
    event = Event(deposit.appId, "deposit.reverted", f"deposit.reverted:{deposit.id}{_rev(deposit.rev)}", data)
    return Plan(items, [posting.entry], event, replan_on=posting.replan_on)


def stop_watching(chain_id: int, deposit: str) -> None:
    aws.write(aws.delete("watch", TABLE, watch_key(chain_id, deposit)))


# --- reads -------------------------------------------------------------------------------------------------


def of_app(app_id: str, deposit: str) -> dict[str, Any]:
    try:
        uuid.UUID(deposit)
    except ValueError:
        raise not_found(DEPOSIT_NOT_FOUND, "No such deposit") from None
    item = get(**deposit_key(deposit))
    if item is None or item["appId"] != app_id:
        raise not_found(DEPOSIT_NOT_FOUND, "No such deposit")
    return item


def page(
    app_id: str, account_id: str | None, invoice_id: str | None, status: str | None, query: PageQuery
) -> tuple[list[dict[str, Any]], int]:
    if invoice_id is not None:
        return _invoice_page(app_id, invoice_id, account_id, status, query)
    if status is not None:
        return status_page("DEPOSIT", app_id, account_id, status, query)
    return _listed(account_list(app_id, account_id) if account_id else app_list(app_id), query)


def _invoice_page(
    app_id: str, invoice_id: str, account_id: str | None, status: str | None, query: PageQuery
) -> tuple[list[dict[str, Any]], int]:
    """A page of an invoice's deposits: its list's page; with a filter, the whole list (an invoice has few
    deposits), read page by page and filtered here."""
    entries = invoice_list(app_id, invoice_id)
    if status is None and account_id is None:
        return _listed(entries, query)
    records: list[dict[str, Any]] = []
    page_number, total = 1, None
    while total is None or (page_number - 1) * MAX_LIMIT < total:
        found, total = _listed(entries, PageQuery(page=page_number, limit=MAX_LIMIT))
        records += found
        page_number += 1
    kept = [
        r
        for r in records
        if (status is None or r["status"] == status) and (account_id is None or r["accountId"] == account_id)
    ]
    start = (query.page - 1) * query.limit
    return kept[start : start + query.limit], len(kept)


def _listed(entries_list: AppendOnlyList, query: PageQuery) -> tuple[list[dict[str, Any]], int]:
    return records_page(entries_list, query, "depositId", deposit_key)


def public(item: Deposit | Mapping[str, Any], head: int | None) -> dict[str, Any]:
    deposit = item if isinstance(item, Deposit) else Deposit.from_item(item)
    pair = pair_of(deposit)
    value = deposit.amount
    confirmations = max(0, head - deposit.blockNumber + 1) if head is not None and deposit.status == "pending" else None
    if deposit.status == "credited":
        confirmations = deposit.confirmations or 0
    stored = deposit.to_item()
    return {
        "id": deposit.id,
        "accountId": deposit.accountId,
        "walletId": deposit.walletId,
        "status": deposit.status,
        "matchType": deposit.matchType,
        "invoiceId": deposit.invoiceId,
        "late": bool(deposit.late),
        "network": deposit.network,
        "chainId": deposit.chainId,
        "tokenCode": deposit.tokenCode,
        "amount": format_units(value, pair.token.decimals),
        "amountInDecimals": str(value),
        "transaction": events.transaction_object(stored, pair),
        "blockNumber": deposit.blockNumber,
        "blockHash": deposit.blockHash,
        "logIndex": deposit.logIndex,
        "confirmations": confirmations,
        "confirmationsRequired": deposit.confirmationsRequired,
        "credit": (
            {
                **events.credit(pair, value, str(deposit.creditReferenceType), str(deposit.creditReferenceId)),
                "amount": format_units(value, pair.token.decimals),
            }
            if deposit.status == "credited"
            else None
        ),
        "invoiceOutcome": deposit.invoiceOutcome,
        "seenAt": deposit.seenAt,
        "creditedAt": deposit.creditedAt,
        "revertedAt": deposit.revertedAt,
        "createdAt": deposit.createdAt,
    }
