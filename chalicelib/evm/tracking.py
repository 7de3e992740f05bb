"""Records of sent transactions and the tracker that follows each to its end.

Table `wallet-transactions`:
* pk `TX#<hash>`, sk `TX`: the record (owner, network, nonce, kind, status, the receipt answered at send
  time, the raw transaction, and once known the block, gas used and fee);
* each owner's list (`WALLET#<owner>`, pagination.AppendOnlyList) of `{hash, createdAt}`, written in the
  same transaction as the record (and as the end of the nonce's lease, and the Idempotency-Key's effect).

States (docs/wallets.md, "Tracking"):

    signing ──claim──▶ pending ──receipt──▶ mined | failed (reverted)
       │                  ├──refused at broadcast──▶ failed          (nonce given back)
       │                  └──nonce used by another, no receipt──▶ dropped
       └──request died before the claim (checked after ORPHAN_CHECK_S)──▶ dropped (nonce given back)

`signing`: recorded, not broadcast. The send moves it to `pending` (`claim`) BEFORE it broadcasts, and the
tracker moves a `signing` record to `dropped` only after ORPHAN_CHECK_S; both moves are conditional on the
record's `version`, so exactly one wins: a dropped transaction is never broadcast by its send, and a
claimed one is never dropped for being unknown. `pending` means "on its way": the tracker re-broadcasts it
while the nodes do not know it, and declares it `dropped` only when its nonce is provably used by another
transaction (the account's mined nonce is past it and our hash has no receipt).

The table above is data: `EvmTransaction.machine`; every move is `transitions.transition(...)`, conditional on
the record's status and `version` as read (optimistic concurrency), except the send path's own two moves
(`claim`, `mark_refused`), which are conditional on the status alone and still move the version on, so a tracker
step that read the record before them fails its own version condition. The tracker is ONE chain
of SQS messages per transaction: each message carries the step (`checks`) it expects; a duplicate delivery
or a stale message finds the record at another step and ends, and a step sends its one successor only
after its own conditional update succeeded.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from pydantic import ConfigDict

from chalicelib.evm import nonces
from chalicelib.evm.transactions import SignedAuthorization, SignedTx, UnsignedTx
from chalicelib.platform import aws, clock, followups, retry, unit_of_work
from chalicelib.platform.errors import RetryLaterError
from chalicelib.platform.networks import Network
from chalicelib.platform.pagination import AppendOnlyList, PageQuery
from chalicelib.platform.transitions import ABSENT, Machine, Move, Stateful, moved, transition
from chalicelib.platform.unit_of_work import Plan
from chalicelib.platform.wire import WireModel

TABLE = "wallet-transactions"
QUEUE = "tx-tracker"
SEND_EXPIRED = "SEND_EXPIRED"
FIRST_CHECK_S = 2
ORPHAN_CHECK_S = 120  # a record still `signing` then belongs to a request that died
CANCEL_GAS = 21_000  # a 0-value send to an address without code
UNSETTLED = ("signing", "pending")
# One chain of follow-ups per transaction; the step token is the record's `checks`.
FOLLOW_UPS = followups.FollowUp(QUEUE, step_field="step")
# The safety net of that chain: an unsettled record that has not moved for QUIET_S is handed a step again. Longer
# than the longest delay between two steps (followups.MAX_DELAY_S) and the queue's visibility timeout.
QUIET_S = 1_800
UNSETTLED_DUE = followups.Requeue(TABLE, frozenset(UNSETTLED), QUIET_S)


class SendExpiredError(RetryLaterError):
    """The send took so long that its nonce or its record was taken back: nothing was broadcast."""

    def __init__(self) -> None:
        super().__init__(SEND_EXPIRED, "The send took too long and was abandoned before its broadcast; retry", 1)


class Attempt(WireModel):
    """One replacement at the record's nonce: its hash, fees and why it was signed."""

    model_config = ConfigDict(extra="ignore")

    hash: str
    reason: str  # bump | speed_up | cancel
    gasPrice: str | None = None
    maxFeePerGas: str | None = None
    maxPriorityFeePerGas: str | None = None
    cancel: bool = False  # a no-op at the nonce (a cancel, or a bump of one)
    createdAt: str

    def public(self) -> dict[str, Any]:
        shown: dict[str, Any] = {"hash": self.hash}
        if self.gasPrice is not None:
            shown["gasPrice"] = self.gasPrice
        else:
            shown.update(maxFeePerGas=self.maxFeePerGas, maxPriorityFeePerGas=self.maxPriorityFeePerGas)
        return {**shown, "reason": self.reason, "createdAt": self.createdAt}


class EvmTransaction(Stateful):
    """A sent transaction's record (pk `TX#<hash>`, sk `TX`). The sender is the item's `from` (`sender`)."""

    machine: ClassVar[Machine] = Machine(
        name="record",
        table=TABLE,
        states=frozenset({"signing", "pending", "mined", "failed", "dropped", "cancelled"}),
        initial=frozenset({"signing"}),
        final=frozenset({"failed", "dropped"}),
        moves=(
            Move("signing", "signing"),  # a check of a young record: counted, no verdict
            Move("signing", "pending"),  # claimed by its send, before its broadcast
            Move("signing", "dropped"),  # never claimed: its send ended (abandon, or the orphan check)
            Move("pending", "pending"),  # a check: counted, the node's gas price learnt
            Move("pending", "mined"),
            Move("pending", "failed"),  # reverted; or refused at its broadcast
            Move("pending", "dropped"),  # its nonce used by another transaction
            Move("pending", "cancelled"),  # its cancel (a no-op at its nonce) was mined
            Move("mined", "pending"),  # a reorg took it out of the chain
            Move("mined", "mined"),  # mined again in another block
            Move("cancelled", "pending"),
            Move("cancelled", "cancelled"),
            # The owner's reports of a settled record, until it is done with it.
            Move("failed", "failed", requires={"ownerDone": ABSENT}),
            Move("dropped", "dropped", requires={"ownerDone": ABSENT}),
        ),
        version="version",
        stamp="updatedAt",
    )

    hash: str
    walletId: str
    network: str
    chainId: int
    kind: str
    status: str
    to: str | None = None
    value: str
    nonce: int
    receipt: str
    raw: str
    chosenNonce: bool = False
    nonceSpan: int = 1  # 2: it carries its sender's own authorization, which takes the next nonce too (nonces.py)
    ref: str | None = None  # what the owner's transaction is for (pipeline.send)
    createdAt: str
    updatedAt: str
    checks: int = 0
    version: int
    blockNumber: int | None = None
    blockHash: str | None = None
    gasUsed: str | None = None
    effectiveGasPrice: str | None = None
    failedReason: str | None = None
    # Replacements signed at the same nonce (bumps, speed-ups, cancels), oldest first; `raw` is the newest one's.
    attempts: list[Attempt] = []
    minedHash: str | None = None
    pricedAt: str | None = None  # when the newest signature was made (absent: createdAt)
    stuckAlerted: bool = False
    atCeiling: bool = False
    reports: int = 0  # steps that told the owner of the settled record (engine.Owner.on_settled)
    ownerDone: bool | None = None  # True: the owner is done with the settled record, its follow-ups end

    @property
    def sender(self) -> str:
        return str((self.model_extra or {})["from"])

    def status_index(self) -> aws.Changes:
        """Unsettled, it is in the table's `due` index (every move sets its due time QUIET_S ahead); settled, not."""
        if self.status in UNSETTLED:
            return aws.Changes(set=UNSETTLED_DUE.due(0))
        return aws.Changes(remove=list(followups.ENDED))

    @property
    def hashes(self) -> list[str]:
        """Every hash signed at this record's nonce, the first send's first."""
        return [self.hash, *(a.hash for a in self.attempts)]

    @property
    def latest_hash(self) -> str:
        return self.attempts[-1].hash if self.attempts else self.hash

    @property
    def cancelling(self) -> bool:
        """Whether the newest signature is a cancel (a no-op at the nonce): a bump re-prices the no-op."""
        return bool(self.attempts) and self.attempts[-1].cancel

    def unsigned(self) -> UnsignedTx:
        """The newest signed transaction's fields (from the receipt answered at send time and the newest fees)."""
        sent = json.loads(self.receipt)
        legacy = sent.get("type") == 0
        latest = self.attempts[-1] if self.attempts else None
        gas_price = (latest.gasPrice if latest else sent.get("gasPrice")) if legacy else None
        max_fee = None if legacy else (latest.maxFeePerGas if latest else sent.get("maxFeePerGas"))
        priority = None if legacy else (latest.maxPriorityFeePerGas if latest else sent.get("maxPriorityFeePerGas"))
        cancel = self.cancelling
        return UnsignedTx(
            chain_id=self.chainId,
            nonce=self.nonce,
            to=self.sender if cancel else self.to,
            value=0 if cancel else int(self.value),
            data=b"" if cancel else bytes.fromhex(str(sent.get("data") or "0x")[2:]),
            gas=CANCEL_GAS if cancel else int(sent["gasLimit"]),
            gas_price=None if gas_price is None else int(gas_price),
            max_fee=None if max_fee is None else int(max_fee),
            max_priority_fee=None if priority is None else int(priority),
            authorization_list=()
            if cancel
            else tuple(SignedAuthorization.from_wire(entry) for entry in sent.get("authorizationList") or ()),
        )


def _key(tx_hash: str) -> dict[str, str]:
    return {"pk": f"TX#{tx_hash.lower()}", "sk": "TX"}


def list_of(owner: str) -> AppendOnlyList:
    return AppendOnlyList(TABLE, f"WALLET#{owner}")


@dataclass(frozen=True)
class SendState:
    """What a send reads from DynamoDB before it records, in one consistent BatchGetItem."""

    nonce_item: dict[str, Any] | None  # the nonce item ({} when absent); None when the caller chose the nonce
    list_count: int  # the owner's list counter


def read_send_state(owner: str, address: str, chain_id: int, *, with_nonce: bool) -> SendState:
    """The nonce item (for nonces.allocate) and the owner's list counter (for record): one round trip
    instead of two. Both are only the first round's view; the conditional writes that use them re-read on
    a lost race."""
    counter = list_of(owner)
    keys: dict[str, list[dict[str, Any]]] = {TABLE: [counter.counter_key]}
    if with_nonce:
        keys[nonces.TABLE] = [nonces.key(address, chain_id)]
    found = aws.batch_get_tables(keys)
    nonce_item = (found[nonces.TABLE] or [{}])[0] if with_nonce else None
    return SendState(nonce_item, counter.count_in(found[TABLE][0] if found[TABLE] else None))


def record(
    owner: str,
    network: Network,
    signed: SignedTx,
    kind: str,
    receipt: dict[str, Any],
    allocation: nonces.Allocation | None,
    list_count: int | None = None,
    also: Plan | None = None,
    ref: str | None = None,
) -> EvmTransaction:
    """Write the record (status `signing`) before the broadcast, in one unit of work with the end of the nonce's
    lease (the record owns the nonce from here), the Idempotency-Key's effect and the caller's `also` (its own
    items, lists and event, which go or fail with the record), then start the record's one tracker chain; the
    record as written. SendExpiredError when the nonce's lease was taken back meanwhile.
    `list_count`: the owner's list counter as the caller read it (see `read_send_state`)."""
    now = clock.iso_now()
    item = {
        **_key(signed.hash),
        "hash": signed.hash,
        "walletId": owner,
        "network": network.name,
        "chainId": network.chainId,
        "kind": kind,
        "from": signed.sender,
        "to": signed.tx.to,
        "value": str(signed.tx.value),
        "nonce": signed.tx.nonce,
        "status": "signing",
        "receipt": json.dumps(receipt, separators=(",", ":")),
        "raw": "0x" + signed.raw.hex(),  # re-broadcast while the nodes do not know it
        "chosenNonce": allocation is None,
        "nonceSpan": allocation.span if allocation is not None and allocation.span > 1 else None,
        "ref": ref,
        "createdAt": now,
        "updatedAt": now,
        "checks": 0,
        "version": 0,
    }
    tx = EvmTransaction.from_item({k: v for k, v in item.items() if v is not None})
    own = [aws.put("transaction", TABLE, {**tx.to_item(), **tx.status_index().set})]
    if allocation is not None:
        own.append(nonces.commit_item(allocation))
    plan = _with(
        Plan(
            items=own,
            lists=[(list_of(owner), {"hash": signed.hash, "createdAt": now})],
            effect={"txHash": signed.hash},
            list_counts=None if list_count is None else [list_count],
        ),
        also,
    )
    try:
        unit_of_work.commit(plan)
    except aws.TransactionCancelledError as exc:
        if exc.condition_failed("nonce-lease"):
            raise SendExpiredError() from None
        raise
    enqueue(signed.hash, 0, FIRST_CHECK_S)  # the one tracker chain of this transaction starts here
    return tx


def _with(plan: Plan, also: Plan | None) -> Plan:
    """`plan` and the caller's `also` as one plan (the caller's lists after the record's own)."""
    if also is None:
        return plan
    if also.effect is not None or also.numbered is not None:
        raise ValueError("the record's plan holds the Idempotency-Key's effect; `also` may not number items")
    counts = None
    if plan.list_counts is not None and (not also.lists or also.list_counts is not None):
        counts = [*plan.list_counts, *(also.list_counts or [])]
    return Plan(
        items=[*plan.items, *also.items],
        lists=[*plan.lists, *also.lists],
        event=also.event,
        effect=plan.effect,
        replan_on=plan.replan_on | also.replan_on,
        list_counts=counts,
    )


def claim(tx: EvmTransaction) -> EvmTransaction | None:
    """The send's last step before its broadcast: `signing` → `pending`; the record as claimed. None when the
    tracker dropped the record first (its request looked dead): then it must not be broadcast."""
    return moved(tx, "pending") if _send_path(transition(tx, "pending", any_version=True)) else None


def abandon(tx_hash: str) -> bool:
    """The send stops before its claim (it will not broadcast): `signing` → `dropped`, the nonce given back in
    the same transaction, as the tracker would after ORPHAN_CHECK_S. False when already claimed or dropped."""
    for _ in retry.attempts(8, base_s=0.01, cap_s=0.2):
        tx = read(tx_hash)
        if tx is None or tx.status != "signing":
            return False
        with contextlib.suppress(aws.ItemBusyError):
            if drop_unsent(tx, tx.checks):
                return True
    return False


def mark_refused(tx: EvmTransaction, reason: str, give_back: bool) -> bool:
    """The nodes refused the broadcast of the claimed `tx`: `pending` → `failed`, and (unless the caller chose the
    nonce) the nonce given back in the same transaction. False when the tracker settled it meanwhile (its verdict
    stands, and the nonce stays where it is)."""
    also = [nonces.give_back_item(tx.sender, tx.chainId, tx.nonce, tx.nonceSpan)] if give_back else []
    return _send_path(transition(tx, "failed", any_version=True, failedReason=reason[:300]), also)


def reorged_out(tx: EvmTransaction) -> bool:
    """A reorg took the mined `tx` out of the chain: `mined` → `pending`, and its tracker chain starts again
    (re-broadcast, then settled anew). False when the record moved since it was read, or a transaction held it."""
    with contextlib.suppress(aws.ItemBusyError):
        if move(tx, "pending", minedHash=None):
            enqueue(tx.hash, tx.checks, FIRST_CHECK_S)
            return True
    return False


def remined(tx: EvmTransaction, block_number: int, block_hash: str) -> bool:
    """The mined `tx` was mined again in another block (a reorg): the record follows it there. False when the
    record moved since it was read, or a transaction held it."""
    with contextlib.suppress(aws.ItemBusyError):
        return move(tx, tx.status, blockNumber=block_number, blockHash=block_hash)
    return False


def enqueue(tx_hash: str, step: int, delay_s: int) -> None:
    FOLLOW_UPS.send({"hash": tx_hash, "step": step}, delay_s)


def requeue_quiet(limit: int = 5000) -> int:
    """The schedule's safety net: a step for each unsettled record whose follow-ups went quiet (leased for QUIET_S;
    a step of a chain that is alive after all ends at its step check)."""
    return UNSETTLED_DUE.sweep(lambda item: enqueue(str(item["hash"]), int(item.get("checks", 0)), 0), limit)


def read(tx_hash: str) -> EvmTransaction | None:
    """The record of any hash signed at its nonce (consistent read; a replacement's hash leads to it), or None."""
    table = aws.table(TABLE)
    item = table.get_item(Key=_key(tx_hash), ConsistentRead=True).get("Item")
    if item is not None and "aliasOf" in item:
        item = table.get_item(Key=_key(str(item["aliasOf"])), ConsistentRead=True).get("Item")
    return None if item is None else EvmTransaction.from_item(item)


def replace(
    tx: EvmTransaction, signed: SignedTx, reason: str, cancel: bool, effect: dict[str, str] | None = None
) -> EvmTransaction | None:
    """Record the replacement `signed` (same nonce) before its broadcast: appended to the record's attempts, its
    raw transaction the one re-broadcast from now on, and its hash an alias of the record, in one transaction
    (with the Idempotency-Key's `effect`), conditional on the record as read (`pending`, its version). The
    record as moved; None when it moved meanwhile (mined, or replaced by another step): nothing is recorded then
    and `signed` must not be broadcast."""
    now = clock.iso_now()
    unsigned = signed.tx
    attempt = Attempt(
        hash=signed.hash,
        reason=reason,
        gasPrice=None if unsigned.gas_price is None else str(unsigned.gas_price),
        maxFeePerGas=None if unsigned.max_fee is None else str(unsigned.max_fee),
        maxPriorityFeePerGas=None if unsigned.max_priority_fee is None else str(unsigned.max_priority_fee),
        cancel=cancel,
        createdAt=now,
    )
    attempts = [*tx.attempts, attempt]
    changes: dict[str, Any] = {
        "attempts": [a.model_dump(exclude_none=True) for a in attempts],
        "raw": "0x" + signed.raw.hex(),
        "pricedAt": now,
        "atCeiling": False,
    }
    alias = {**_key(signed.hash), "aliasOf": tx.hash, "walletId": tx.walletId, "createdAt": now}
    plan = Plan(items=[transition(tx, "pending", **changes), aws.put("alias", TABLE, alias)], effect=effect)
    try:
        unit_of_work.commit(plan, attempts=1, on_busy=aws.ItemBusyError)
    except aws.TransactionCancelledError as exc:
        if exc.condition_failed(EvmTransaction.machine.name):
            return None
        raise
    return moved(tx, "pending", **changes)


def page(owner: str, query: PageQuery) -> tuple[list[dict[str, Any]], int]:
    entries, total = list_of(owner).page(query)
    hashes = [str(e["hash"]) for e in entries]
    if not hashes:
        return [], total
    found = [EvmTransaction.from_item(item) for item in aws.batch_get(TABLE, [_key(h) for h in hashes])]
    by_hash = {tx.hash: tx for tx in found}
    return [public(by_hash[h]) for h in hashes if h in by_hash], total


def public(tx: EvmTransaction) -> dict[str, Any]:
    """The record as the API shows it: numbers as in the receipt, money as decimal strings."""
    return {
        "hash": tx.hash,
        "status": tx.status,
        "network": tx.network,
        "chainId": str(tx.chainId),
        "kind": tx.kind,
        "from": tx.sender,
        "to": tx.to,
        "value": tx.value,
        "nonce": tx.nonce,
        "blockNumber": tx.blockNumber,
        "blockHash": tx.blockHash,
        "gasUsed": tx.gasUsed,
        "effectiveGasPrice": tx.effectiveGasPrice,
        "failedReason": tx.failedReason,
        "minedHash": tx.minedHash,
        "replacements": [a.public() for a in tx.attempts],
        "createdAt": tx.createdAt,
        "updatedAt": tx.updatedAt,
        "txReceipt": json.loads(tx.receipt),
    }


def drop_unsent(tx: EvmTransaction, checks: int) -> bool:
    """`signing` → `dropped` for a transaction never claimed, so never broadcast; its nonce (unless the
    caller chose it) is given back in the same transaction."""
    also = [] if tx.chosenNonce else [nonces.give_back_item(tx.sender, tx.chainId, tx.nonce, tx.nonceSpan)]
    dropped = transition(tx, "dropped", failedReason="its request ended before the broadcast", checks=checks)
    return nonces.write_with(dropped, also)


def move(tx: EvmTransaction, to: str, **changes: Any) -> bool:
    """Move the record if nobody changed it since `tx` was read; False when another step moved it on.
    aws.ItemBusyError when a concurrent transaction held it (no verdict: the send path retries, a tracker
    message fails and SQS delivers it again)."""
    return nonces.write_with(transition(tx, to, **changes), _spared(tx, to))


def _spared(tx: EvmTransaction, to: str) -> list[aws.TxItem]:
    """The rest of a span the chain will not use: its no-op replacement was mined instead (`cancelled`), or another
    transaction used its nonce (`dropped`), so the sender's own authorization never raised the next nonce."""
    if tx.nonceSpan > 1 and to in ("cancelled", "dropped") and tx.status in UNSETTLED:
        return [nonces.give_back_item(tx.sender, tx.chainId, tx.nonce + 1, tx.nonceSpan - 1)]
    return []


def _send_path(change: aws.TxItem, also: Sequence[aws.TxItem] = ()) -> bool:
    """The send path's own moves, which do not read the record first (conditional on its status alone): a
    transaction holding an item is waited out. False when the record is no longer in the status it had."""
    for _ in retry.attempts(8, base_s=0.01, cap_s=0.2):
        with contextlib.suppress(aws.ItemBusyError):
            return nonces.write_with(change, also)
    return False
