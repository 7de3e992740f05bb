"""Nonces for concurrent sends from one address on one chain: each nonce has exactly one owner at a time.

One item per (address, chain) in table `nonces`:

* `next`: the next nonce never handed out (it only ever grows);
* `given`: nonces handed out whose transaction will never be on chain (given back, handed out again first);
* `inflight`: leases `<nonce>:<until>:<token>` of nonces a send holds but has not recorded yet (the random
  token tells apart two leases of one nonce taken in the same second: one send's lease is never another's).

Who owns a nonce, and the only ways it changes hands:

1. `allocate` hands one out under a lease: the smallest given-back nonce at or above the chain's pending
   nonce, else `max(next, pending)` (`next` moves past it). Given-back nonces below the chain's pending
   nonce were used by something else and are forgotten. One conditional write.
2. The send records its signed transaction in ONE transaction with `commit_item(...)`, which removes the
   lease on condition that it is still there: from then on the transaction record (its tracker) owns the
   nonce. A send whose lease was taken from it cannot record, so it never broadcasts.
3. Before recording, the send gives the nonce back with `release(...)`: lease removed and nonce given back
   in one write, on condition that the lease is still there (so a record that did commit, or a recovery
   that already gave it back, makes it a no-op).
4. A lease past its time belongs to a send that died before recording (it never broadcast): the next
   allocation removes it and gives the nonce back (unless the chain shows it used), one write per lease,
   conditional on the lease still being there.
5. After recording, only the record's own state change gives the nonce back (`give_back_item`, in the same
   transaction as the record's move to `failed`/`dropped`): a record moves there once, so the nonce comes
   back once.

Every give-back is conditional on the ownership it ends, so none can happen twice: the duplicate nonce of
issue 9 came from a nonce given back twice (e.g. by a lease recovery and by the tracker, or by a send whose
record write had in fact committed) and from `release` moving `next` back under a nonce handed out again.
"""

from __future__ import annotations

import contextlib
import secrets
from dataclasses import dataclass
from typing import Any

from chalicelib.platform import aws, clock, retry
from chalicelib.platform.errors import ApiError
from chalicelib.platform.logging import logger

TABLE = "nonces"
NONCE_BUSY = "NONCE_BUSY"
LEASE_S = 120  # longer than any send may run (the function's timeout); past it the send is presumed dead
ATTEMPTS = 25


def key(address: str, chain_id: int) -> dict[str, str]:
    return {"pk": f"NONCE#{address}#{chain_id}", "sk": "NONCE"}


@dataclass(frozen=True)
class Allocation:
    address: str
    chain_id: int
    nonce: int
    lease: str  # the `inflight` entry `<nonce>:<until>:<token>` this allocation owns


def write_if(item: aws.TxItem) -> bool:
    """One conditional write: True when done, False when its condition failed; aws.ItemBusyError on a conflict
    with a transaction in progress (the nonce and record items take part in transactions)."""
    try:
        aws.write(item)
        return True
    except aws.ConditionFailedError:
        return False


def _lease(nonce: int, now: int) -> str:
    return f"{nonce}:{now + LEASE_S}:{secrets.token_hex(8)}"


def _lease_nonce(lease: str) -> int:
    return int(lease.split(":")[0])


def _lease_until(lease: str) -> int:
    return int(lease.split(":")[1])


def allocate(address: str, chain_id: int, chain_pending: int, item_read: dict[str, Any] | None = None) -> Allocation:
    """A nonce for a new transaction, under a lease of LEASE_S seconds; `chain_pending` is the node's pending
    nonce for `address` (what the chain has used or holds). `item_read`: the nonce item as the caller just read
    it (consistently, e.g. in a batch with its other reads; {} when absent), used by the first round."""
    for attempt in retry.attempts(ATTEMPTS, base_s=0.005, cap_s=0.3):
        item: dict[str, Any] = (
            item_read
            if item_read is not None and attempt == 0
            else aws.table(TABLE).get_item(Key=key(address, chain_id), ConsistentRead=True).get("Item") or {}
        )
        now = clock.epoch()
        lost = [lease for lease in item.get("inflight", set()) if _lease_until(lease) < now]
        if lost:  # sends that died before recording: their nonces never went out
            for lease in lost:
                _recover(address, chain_id, lease, chain_pending)
            continue
        stored = int(item["next"]) if "next" in item else None
        free = sorted(int(n) for n in item.get("given", set()))
        usable = [n for n in free if n >= chain_pending]
        stale = {n for n in free if n < chain_pending}
        names = {"#n": "next"}
        if usable:
            nonce = usable[0]
            lease = _lease(nonce, now)
            changes = aws.Changes(add={"inflight": {lease}}, delete={"given": {nonce, *stale}})
            condition = aws.Condition(
                "#n = :seen AND contains(#g, :one)",
                {**names, "#g": "given"},
                {
                    ":seen": stored,
                    ":one": nonce,
                },
            )
        else:
            nonce = max(stored or 0, chain_pending)
            lease = _lease(nonce, now)
            changes = aws.Changes(
                set={"next": nonce + 1}, add={"inflight": {lease}}, delete={"given": stale} if stale else {}
            )
            condition = (
                aws.Condition("attribute_not_exists(#n)", names)
                if stored is None
                else aws.Condition("#n = :seen", names, {":seen": stored})
            )
        with contextlib.suppress(aws.ItemBusyError):
            if write_if(aws.update("nonce", TABLE, key(address, chain_id), changes, condition)):
                return Allocation(address, chain_id, nonce, lease)
        # Another allocation or give-back moved the item, or a send's record transaction holds it: look again.
    raise ApiError(503, NONCE_BUSY, "Too many concurrent sends from this wallet; retry shortly")


def commit_item(allocation: Allocation) -> aws.TxItem:
    """For the transaction that records the signed transaction: the lease ends, the record owns the nonce.
    Fails (item name "nonce-lease") when the lease is gone: the nonce was given back meanwhile."""
    return aws.update(
        "nonce-lease",
        TABLE,
        key(allocation.address, allocation.chain_id),
        aws.Changes(delete={"inflight": {allocation.lease}}),
        aws.Condition("contains(#i, :lease)", {"#i": "inflight"}, {":lease": allocation.lease}),
    )


def release(allocation: Allocation) -> bool:
    """Give back a nonce whose transaction was never recorded; False when this allocation no longer owned it
    (its record committed after all, or its lease expired and was recovered)."""
    give_back = aws.update(
        "nonce",
        TABLE,
        key(allocation.address, allocation.chain_id),
        aws.Changes(delete={"inflight": {allocation.lease}}, add={"given": {allocation.nonce}}),
        aws.Condition("contains(#i, :lease)", {"#i": "inflight"}, {":lease": allocation.lease}),
    )
    return bool(retry.call(lambda: write_if(give_back), retry_on=(aws.ItemBusyError,), count=8, base_s=0.01))


def give_back_item(address: str, chain_id: int, nonce: int) -> aws.TxItem:
    """For the transaction that moves a recorded transaction to `failed`/`dropped` without it being mined:
    its nonce is handed out again (the record's own conditional move makes this happen once)."""
    return aws.update(
        "nonce-give-back",
        TABLE,
        key(address, chain_id),
        aws.Changes(add={"given": {nonce}}),
        aws.Condition("#n > :nonce", {"#n": "next"}, {":nonce": nonce}),
    )


def _recover(address: str, chain_id: int, lease: str, chain_pending: int) -> None:
    nonce = _lease_nonce(lease)
    back = nonce >= chain_pending  # below: the chain used it (a transaction sent elsewhere)
    changes = aws.Changes(delete={"inflight": {lease}}, add={"given": {nonce}} if back else {})
    recovery = aws.update(
        "nonce",
        TABLE,
        key(address, chain_id),
        changes,
        aws.Condition("contains(#i, :lease)", {"#i": "inflight"}, {":lease": lease}),
    )
    try:
        if not write_if(recovery):
            return  # recovered by another allocation, or committed/released at the last moment
    except aws.ItemBusyError:
        return  # a transaction holds the item: the next round looks again
    logger.warning("nonce of a dead send recovered", extra={"chainId": chain_id, "nonce": nonce, "givenBack": back})
