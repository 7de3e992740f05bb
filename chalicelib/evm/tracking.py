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

Every change of a record is conditional on its `version` (optimistic concurrency). The tracker is ONE chain
of SQS messages per transaction: each message carries the step (`checks`) it expects; a duplicate delivery
or a stale message finds the record at another step and ends, and a step sends its one successor only
after its own conditional update succeeded.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from chalicelib.evm import nonces
from chalicelib.evm.rpc import batch
from chalicelib.evm.transactions import SignedTx
from chalicelib.platform import aws, clock, followups, retry, unit_of_work
from chalicelib.platform.chain import RpcError, rpc_call
from chalicelib.platform.errors import ApiError
from chalicelib.platform.logging import logger
from chalicelib.platform.networks import Network, resolve
from chalicelib.platform.pagination import AppendOnlyList, PageQuery
from chalicelib.platform.unit_of_work import Plan

TABLE = "wallet-transactions"
QUEUE = "tx-tracker"
SEND_EXPIRED = "SEND_EXPIRED"
FIRST_CHECK_S = 2
ORPHAN_CHECK_S = 120  # a record still `signing` then belongs to a request that died
WARN_EVERY_CHECKS = 200  # about two days at the longest delay: a transaction that long pending is logged
UNSETTLED = ("signing", "pending")
# One chain of follow-ups per transaction; the step token is the record's `checks`.
FOLLOW_UPS = followups.FollowUp(QUEUE, step_field="step")


class SendExpiredError(ApiError):
    """The send took so long that its nonce or its record was taken back: nothing was broadcast."""

    def __init__(self) -> None:
        super().__init__(503, SEND_EXPIRED, "The send took too long and was abandoned before its broadcast; retry")


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
    also_items: Sequence[aws.TxItem] = (),
) -> None:
    """Write the record (status `signing`) before the broadcast, in one transaction with the end of the
    nonce's lease (the record owns the nonce from here) and the Idempotency-Key's effect, then start the
    record's one tracker chain. SendExpiredError when the nonce's lease was taken back meanwhile.
    `list_count`: the owner's list counter as the caller read it (see `reads`)."""
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
        "createdAt": now,
        "updatedAt": now,
        "checks": 0,
        "version": 0,
    }
    also = [aws.put("transaction", TABLE, {k: v for k, v in item.items() if v is not None})]
    if allocation is not None:
        also.append(nonces.commit_item(allocation))
    also.extend(also_items)
    plan = Plan(
        items=also,
        lists=[(list_of(owner), {"hash": signed.hash, "createdAt": now})],
        effect={"txHash": signed.hash},
        list_counts=None if list_count is None else [list_count],
    )
    try:
        unit_of_work.commit(plan)
    except aws.TransactionCancelledError as exc:
        if exc.condition_failed("nonce-lease"):
            raise SendExpiredError() from None
        raise
    enqueue(signed.hash, 0, FIRST_CHECK_S)  # the one tracker chain of this transaction starts here


def claim(tx_hash: str) -> bool:
    """The send's last step before its broadcast: `signing` → `pending`. False when the tracker dropped
    the record first (its request looked dead): then it must not be broadcast."""
    return _transition(tx_hash, ("signing",), {"status": "pending"})


def abandon(tx_hash: str) -> bool:
    """The send stops before its claim (it will not broadcast): `signing` → `dropped`, the nonce given back in
    the same transaction, as the tracker would after ORPHAN_CHECK_S. False when already claimed or dropped."""
    for _ in retry.attempts(8, base_s=0.01, cap_s=0.2):
        item = get(tx_hash)
        if item is None or item["status"] != "signing":
            return False
        with contextlib.suppress(aws.ItemBusyError):
            if _drop_unsent(item, int(item.get("checks", 0))):
                return True
    return False


def mark_refused(signed: SignedTx, reason: str, give_back: bool) -> bool:
    """The nodes refused the broadcast: `pending` → `failed`, and (unless the caller chose the nonce) the
    nonce given back in the same transaction. False when the tracker settled it meanwhile (its verdict
    stands, and the nonce stays where it is)."""
    also = [nonces.give_back_item(signed.sender, signed.tx.chain_id, signed.tx.nonce)] if give_back else []
    return _transition(signed.hash, ("pending",), {"status": "failed", "failedReason": reason[:300]}, also)


def enqueue(tx_hash: str, step: int, delay_s: int) -> None:
    FOLLOW_UPS.send({"hash": tx_hash, "step": step}, delay_s)


def get(tx_hash: str) -> dict[str, Any] | None:
    item: dict[str, Any] | None = aws.table(TABLE).get_item(Key=_key(tx_hash), ConsistentRead=True).get("Item")
    return item


def page(owner: str, query: PageQuery) -> tuple[list[dict[str, Any]], int]:
    entries, total = list_of(owner).page(query)
    hashes = [str(e["hash"]) for e in entries]
    if not hashes:
        return [], total
    by_hash = {item["hash"]: item for item in aws.batch_get(TABLE, [_key(h) for h in hashes])}
    return [public(by_hash[h]) for h in hashes if h in by_hash], total


def public(item: dict[str, Any]) -> dict[str, Any]:
    """The record as the API shows it: numbers as in the receipt, money as decimal strings."""
    return {
        "hash": item["hash"],
        "status": item["status"],
        "network": item["network"],
        "chainId": str(item["chainId"]),
        "kind": item["kind"],
        "from": item["from"],
        "to": item.get("to"),
        "value": item["value"],
        "nonce": int(item["nonce"]),
        "blockNumber": int(item["blockNumber"]) if "blockNumber" in item else None,
        "blockHash": item.get("blockHash"),
        "gasUsed": item.get("gasUsed"),
        "effectiveGasPrice": item.get("effectiveGasPrice"),
        "failedReason": item.get("failedReason"),
        "createdAt": item["createdAt"],
        "updatedAt": item["updatedAt"],
        "txReceipt": json.loads(item["receipt"]),
    }


def on_message(body: dict[str, Any]) -> None:
    """The tracker queue's per-record handler (evm/functions.py)."""
    step = body.get("step")
    check(str(body["hash"]), int(step) if step is not None else None)


def check(tx_hash: str, step: int | None = None) -> None:
    """One tracker step: settle the transaction or look again later (exactly one successor).

    `step`: the `checks` count the record must be at; a message for another step is a duplicate delivery
    or a leftover and ends here (None: messages written before steps existed, and direct calls)."""
    item = get(tx_hash)
    if item is None or item["status"] not in UNSETTLED:
        return
    if followups.is_stale(step, item.get("checks", 0)):
        return
    checks = int(item.get("checks", 0)) + 1
    if item["status"] == "signing" and _age_s(item) < ORPHAN_CHECK_S:
        _again(item, checks)  # its request may still be on its way to the claim: no verdict yet
        return
    network = resolve(None, str(item["chainId"]))
    try:
        receipt, known = batch(
            network, [("eth_getTransactionReceipt", [tx_hash]), ("eth_getTransactionByHash", [tx_hash])]
        )
    except ApiError:
        _again(item, checks)  # no node answered: no verdict
        return
    if isinstance(receipt, RpcError) or isinstance(known, RpcError):
        _again(item, checks)
        return
    checked = {"checks": checks, **_node_gas_price(item, known)}
    if isinstance(receipt, dict):
        _settle(item, receipt, checked)
        return
    seen = known is not None
    if item["status"] == "signing":
        if seen:  # written before claims existed: it was broadcast, follow it
            if _update(item, {"status": "pending", **checked}):
                _enqueue_next(tx_hash, checks)
        else:  # never claimed, so never broadcast: its send ended with an error, it must not go out now
            _drop_unsent(item, checks)
        return
    if not seen:
        if _nonce_used_by_another(item, network):
            _update(
                item,
                {"status": "dropped", "failedReason": "its nonce was used by another transaction", "checks": checks},
            )
            return
        with contextlib.suppress(RpcError, ApiError):  # e.g. a node restarted and lost its pool
            rpc_call(network, "eth_sendRawTransaction", [item["raw"]])
    _again(item, checks, checked)


def _node_gas_price(item: dict[str, Any], known: Any) -> dict[str, Any]:
    """The stored receipt with the node's `gasPrice` for the transaction (for a typed transaction the node
    defines it: what it would charge now, what it charged once mined), when it differs from the stored one."""
    price = known.get("gasPrice") if isinstance(known, dict) else None
    if not isinstance(price, str) or not price.startswith("0x"):
        return {}
    try:
        stored = json.loads(str(item["receipt"]))
        node = str(int(price, 16))
    except (KeyError, ValueError, TypeError):
        return {}
    if not isinstance(stored, dict) or stored.get("type") != 2 or stored.get("gasPrice") == node:
        return {}
    return {"receipt": json.dumps({**stored, "gasPrice": node}, separators=(",", ":"))}


def _settle(item: dict[str, Any], receipt: dict[str, Any], checked: dict[str, Any]) -> None:
    ok = receipt.get("status") == "0x1"
    values = {
        "status": "mined" if ok else "failed",
        "blockNumber": int(receipt["blockNumber"], 16),
        "blockHash": receipt["blockHash"],
        "gasUsed": str(int(receipt["gasUsed"], 16)),
        "effectiveGasPrice": str(int(receipt.get("effectiveGasPrice") or "0x0", 16)),
        **({} if ok else {"failedReason": "reverted on chain"}),
        **checked,
    }
    if _update(item, values):
        logger.info("transaction settled", extra={"hash": item["hash"], "status": values["status"]})


def _drop_unsent(item: dict[str, Any], checks: int) -> bool:
    """`signing` → `dropped` for a transaction never claimed, so never broadcast; its nonce (unless the
    caller chose it) is given back in the same transaction."""
    also = (
        []
        if item.get("chosenNonce")
        else [nonces.give_back_item(str(item["from"]), int(item["chainId"]), int(item["nonce"]))]
    )
    values = {"status": "dropped", "failedReason": "its request ended before the broadcast", "checks": checks}
    return _update(item, values, also)


def _age_s(item: dict[str, Any]) -> float:
    return (clock.now() - clock.parse_iso(str(item["createdAt"]))).total_seconds()


def _nonce_used_by_another(item: dict[str, Any], network: Network) -> bool:
    """Proof that this transaction can never be mined: the account's mined nonce moved past it, and (asked
    after that read) our hash still has no receipt."""
    try:
        used = int(rpc_call(network, "eth_getTransactionCount", [item["from"], "latest"]), 16)
        if used <= int(item["nonce"]):
            return False
        return rpc_call(network, "eth_getTransactionReceipt", [item["hash"]]) is None
    except (RpcError, ApiError, TypeError, ValueError):
        return False  # no proof


def _again(item: dict[str, Any], checks: int, values: dict[str, Any] | None = None) -> None:
    """Count this check (with `values` learnt by it) and send the chain's one successor (a lost race means
    another step moved on)."""
    if not _update(item, values or {"checks": checks}):
        return
    if checks % WARN_EVERY_CHECKS == 0:
        logger.warning("transaction unsettled for long", extra={"hash": item["hash"], "checks": checks})
    _enqueue_next(str(item["hash"]), checks)


def _enqueue_next(tx_hash: str, checks: int) -> None:
    enqueue(tx_hash, checks, followups.doubling(FIRST_CHECK_S, checks))


def _update(item: dict[str, Any], values: dict[str, Any], also: Sequence[aws.TxItem] = ()) -> bool:
    """Change the record (and `also`, in the same transaction) if nobody changed it since `item` was read;
    False when another step moved it on. aws.ItemBusyError when a concurrent transaction held an item
    (no verdict: the send path retries, a tracker message fails and SQS delivers it again)."""
    seen = item.get("version")
    condition = (
        aws.Condition("#v = :seen", {"#v": "version"}, {":seen": seen})
        if seen is not None
        else aws.Condition("attribute_exists(pk) AND attribute_not_exists(#v)", {"#v": "version"})
    )
    change = aws.update(
        "record",
        TABLE,
        _key(str(item["hash"])),
        aws.Changes(set={**values, "updatedAt": clock.iso_now()}, add={"version": 1}),
        condition,
    )
    if not also:
        return nonces.write_if(change)
    try:
        aws.transact([change, *also])
        return True
    except aws.TransactionCancelledError as exc:
        if exc.condition_failed("record"):
            return False
        if exc.conflict:
            raise aws.ItemBusyError() from None
        raise


def _transition(
    tx_hash: str, from_states: tuple[str, ...], values: dict[str, Any], also: Sequence[aws.TxItem] = ()
) -> bool:
    """The send path's changes: from the states it expects, at whatever version the tracker left the record.
    No read first: the write is conditional on the state and moves the version on, so a tracker step that read
    the record before it fails its own version condition (False when the record is in none of `from_states`)."""
    states = {f":s{i}": state for i, state in enumerate(from_states)}
    change = aws.update(
        "record",
        TABLE,
        _key(tx_hash),
        aws.Changes(set={**values, "updatedAt": clock.iso_now()}, add={"version": 1}),
        aws.Condition(f"#status IN ({', '.join(states)})", {"#status": "status"}, states),
    )
    for _ in retry.attempts(8, base_s=0.01, cap_s=0.2):
        with contextlib.suppress(aws.ItemBusyError):
            if not also:
                return nonces.write_if(change)
            try:
                aws.transact([change, *also])
                return True
            except aws.TransactionCancelledError as exc:
                if exc.condition_failed("record"):
                    return False
                if not exc.conflict:
                    raise
    return False
