"""Nonces for concurrent sends from one address on one chain: each nonce has exactly one owner at a time.

One item per (address, chain) in table `nonces`:

* `next`: the next nonce never handed out (it only ever grows);
* `given`: nonces handed out whose transaction will never be on chain (given back, handed out again first);
* `inflight`: leases `<nonce>:<until>:<token>` of nonces a send holds but has not recorded yet (the random
  token tells apart two leases of one nonce taken in the same second: one send's lease is never another's);
* `held:<nonce>`: a reservation, whose value names its holder: a nonce kept by a caller that signs at it again
  across retries for as long as it lives (a custody withdrawal, which the cosigner signs at one nonce only). It
  has no time limit: a holder can wait minutes or hours (an unfunded gas wallet, a dead worker) without its
  nonce going to anyone else, and it ends only in the holder's own final write (`end_item`).

Who owns a nonce, and the only ways it changes hands:

1. `allocate` hands one out under a lease: the smallest given-back nonce at or above the chain's pending
   nonce that no reservation holds, else `max(next, pending)` (`next` moves past it). Given-back nonces below
   the chain's pending nonce were used by something else and are forgotten. One conditional write. `reserve`
   hands one out the same way under a reservation, in ONE transaction with the holder's own record of it (so
   no reservation exists that its holder does not know of: a crash leaves neither).
2. The send records its signed transaction in ONE transaction with `commit_item(...)`, which removes the
   lease on condition that it is still there: from then on the transaction record (its tracker) owns the
   nonce. A send whose lease was taken from it cannot record, so it never broadcasts. A reservation stays
   (conditional on it): the record uses the nonce, the reservation keeps it from everyone else.
3. Before recording, the send gives the nonce back with `release(...)`: lease removed and nonce given back
   in one write, on condition that the lease is still there (so a record that did commit, or a recovery
   that already gave it back, makes it a no-op).
4. A lease past its time belongs to a send that died before recording (it never broadcast): the next
   allocation removes it and gives the nonce back (unless the chain shows it used), one write per lease,
   conditional on the lease still being there. Reservations are never recovered this way.
5. After recording, only the record's own state change gives the nonce back (`give_back_item`, in the same
   transaction as the record's move to `failed`/`dropped`): a record moves there once, so the nonce comes
   back once. A reserved nonce given back so stays its holder's (allocations skip it): the holder signs at it
   again, and `commit_item` takes it out of `given` when it records. A refusal at broadcast gives no reserved
   nonce back: the node may have refused it because another transaction has the nonce, and its holder's end
   decides (6).
6. The holder of a reservation ends it in the transaction that ends the holder (`end_item`), giving the nonce
   back when no transaction of its own used it: a reserved nonce is either used by its holder or handed on,
   so the gap it leaves in the meantime (later nonces wait on chain) closes either way.

A transaction that carries its sender's own EIP-7702 authorization uses two nonces: its own, and the next one (the
authorization's, applied once the transaction raised the nonce). It is allocated a span of two consecutive fresh
nonces under one lease; wherever its nonce is given back, so is the second.

Every give-back is conditional on the ownership it ends, so none can happen twice: a nonce given back twice
(e.g. by a lease recovery and by the tracker, or by a send whose record write had in fact committed), or
`release` moving `next` back under a nonce handed out again, would hand one nonce to two sends.
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from chalicelib.platform import aws, clock, retry, unit_of_work
from chalicelib.platform.errors import RetryLaterError
from chalicelib.platform.logging import logger
from chalicelib.platform.unit_of_work import Plan

TABLE = "nonces"
NONCE_BUSY = "NONCE_BUSY"
LEASE_S = 120  # longer than any send may run (the function's timeout); past it the send is presumed dead
ATTEMPTS = 25
HELD = "held:"  # prefix of a reservation's attribute, `held:<nonce>` = its holder


def key(address: str, chain_id: int) -> dict[str, str]:
    return {"pk": f"NONCE#{address}#{chain_id}", "sk": "NONCE"}


@dataclass(frozen=True)
class Allocation:
    address: str
    chain_id: int
    nonce: int
    lease: str  # the `inflight` entry `<nonce>:<until>:<token>[:<span>]` this allocation owns; a reservation's holder
    reserved: bool = False
    span: int = 1  # the nonces from `nonce` it takes (2: a transaction with its sender's own authorization)

    @property
    def nonces(self) -> set[int]:
        return set(range(self.nonce, self.nonce + self.span))


def write_if(item: aws.TxItem) -> bool:
    """One conditional write: True when done, False when its condition failed; aws.ItemBusyError on a conflict
    with a transaction in progress (the nonce and record items take part in transactions)."""
    try:
        aws.write(item)
        return True
    except aws.ConditionFailedError:
        return False


def write_with(change: aws.TxItem, also: Sequence[aws.TxItem]) -> bool:
    """`change` and `also` in one unit of work: True when done, False when `change`'s own condition failed (what
    it was read from moved); aws.ItemBusyError on a conflict; a failed condition of `also` raises
    aws.TransactionCancelledError."""
    if not also:
        return write_if(change)
    try:
        unit_of_work.commit(Plan(items=[change, *also]), attempts=1, on_busy=aws.ItemBusyError)
        return True
    except aws.TransactionCancelledError as exc:
        if exc.condition_failed(change.name):
            return False
        raise


def _lease(nonce: int, now: int, span: int = 1) -> str:
    return f"{nonce}:{now + LEASE_S}:{secrets.token_hex(8)}" + (f":{span}" if span > 1 else "")


def _lease_nonces(lease: str) -> range:
    parts = lease.split(":")
    first = int(parts[0])
    return range(first, first + (int(parts[3]) if len(parts) > 3 else 1))


def _lease_until(lease: str) -> int:
    return int(lease.split(":")[1])


def held(item: dict[str, Any]) -> dict[int, str]:
    """The item's reservations: nonce -> holder."""
    return {int(name.removeprefix(HELD)): str(value) for name, value in item.items() if name.startswith(HELD)}


def allocate(
    address: str, chain_id: int, chain_pending: int, item_read: dict[str, Any] | None = None, span: int = 1
) -> Allocation:
    """A nonce for a new transaction, under a lease of LEASE_S seconds; `chain_pending` is the node's pending
    nonce for `address` (what the chain has used or holds). `item_read`: the nonce item as the caller just read
    it (consistently, e.g. in a batch with its other reads; {} when absent), used by the first round. `span` 2:
    that nonce and the next, both fresh (a transaction with its sender's own authorization)."""

    def leased(nonce: int) -> tuple[Allocation, aws.Changes]:
        lease = _lease(nonce, clock.epoch(), span)
        return Allocation(address, chain_id, nonce, lease, span=span), aws.Changes(add={"inflight": {lease}})

    return _hand_out(address, chain_id, chain_pending, item_read, leased, lambda change, _: write_if(change), span=span)


def reserve(
    address: str,
    chain_id: int,
    chain_pending: int,
    holder: str,
    also: Callable[[Allocation], Sequence[aws.TxItem]],
) -> Allocation:
    """A nonce reserved for `holder` until it ends (no time limit), in ONE transaction with `also(allocation)`,
    the holder's own record of it. aws.TransactionCancelledError when one of those failed its condition (then
    nothing is reserved)."""

    def reservation(nonce: int) -> tuple[Allocation, aws.Changes]:
        return Allocation(address, chain_id, nonce, holder, reserved=True), aws.Changes(set={f"{HELD}{nonce}": holder})

    return _hand_out(
        address, chain_id, chain_pending, None, reservation, lambda change, got: write_with(change, also(got))
    )


def _hand_out(
    address: str,
    chain_id: int,
    chain_pending: int,
    item_read: dict[str, Any] | None,
    entry: Callable[[int], tuple[Allocation, aws.Changes]],
    write: Callable[[aws.TxItem, Allocation], bool],
    span: int = 1,
) -> Allocation:
    for attempt in retry.attempts(ATTEMPTS, base_s=0.005, cap_s=0.3):
        item: dict[str, Any] = (
            item_read
            if item_read is not None and attempt == 0
            else aws.table(TABLE).get_item(Key=key(address, chain_id), ConsistentRead=True).get("Item") or {}
        )
        if _recover_lost(address, chain_id, item, chain_pending):
            continue
        stored = int(item["next"]) if "next" in item else None
        free = sorted(int(n) for n in item.get("given", set()))
        reserved = held(item)
        usable = [n for n in free if n >= chain_pending and n not in reserved]
        stale = {n for n in free if n < chain_pending}
        fresh = max(stored or 0, chain_pending)  # from here on, nonces never handed out
        nonce = _first_run(usable, fresh, span)
        span_nonces = range(nonce, nonce + span)
        taken = {n for n in span_nonces if n < fresh}  # given back before
        allocation, own = entry(nonce)
        grown = {"next": nonce + span} if nonce + span > fresh else {}
        names = {"#n": "next", **{f"#h{i}": f"{HELD}{n}" for i, n in enumerate(span_nonces)}}
        values: dict[str, Any] = {f":g{i}": n for i, n in enumerate(sorted(taken))}
        checks = ["attribute_not_exists(#n)" if stored is None else "#n = :seen"]
        if stored is not None:
            values[":seen"] = stored
        if taken:
            names["#g"] = "given"
            checks += [f"contains(#g, :g{i})" for i in range(len(taken))]
        checks += [f"attribute_not_exists(#h{i})" for i in range(span)]
        condition = aws.Condition(" AND ".join(checks), names, values)
        changes = aws.Changes(
            set={**grown, **own.set}, add=own.add, delete={"given": taken | stale} if taken | stale else {}
        )
        with contextlib.suppress(aws.ItemBusyError):
            if write(aws.update("nonce", TABLE, key(address, chain_id), changes, condition), allocation):
                return allocation
        # Another allocation or give-back moved the item, or a send's record transaction holds it: look again.
    raise RetryLaterError(NONCE_BUSY, "Too many concurrent sends from this wallet; retry shortly", 1)


def _first_run(usable: list[int], fresh: int, span: int) -> int:
    """The smallest nonce whose span is free: given back (`usable`, ascending) or, from `fresh` on, never handed
    out; `fresh` when no given-back nonce starts one."""
    free = set(usable)
    for nonce in usable:
        if all(n in free or n >= fresh for n in range(nonce, nonce + span)):
            return nonce
    return fresh


def commit_item(allocation: Allocation) -> aws.TxItem:
    """For the transaction that records the signed transaction: the lease ends, the record owns the nonce.
    Fails (item name "nonce-lease") when the lease is gone: the nonce was given back meanwhile. A reservation
    stays (the condition): its nonce leaves `given` if a dropped record of the holder had put it there."""
    where = key(allocation.address, allocation.chain_id)
    if allocation.reserved:
        return aws.update(
            "nonce-lease",
            TABLE,
            where,
            aws.Changes(delete={"given": {allocation.nonce}}),
            aws.Condition("#h = :holder", {"#h": f"{HELD}{allocation.nonce}"}, {":holder": allocation.lease}),
        )
    return aws.update(
        "nonce-lease",
        TABLE,
        where,
        aws.Changes(delete={"inflight": {allocation.lease}}),
        aws.Condition("contains(#i, :lease)", {"#i": "inflight"}, {":lease": allocation.lease}),
    )


def end_item(allocation: Allocation, give_back: bool) -> aws.TxItem:
    """For the transaction that ends a reservation's holder: the reservation goes, and its nonce is given back
    when no transaction of the holder used it (`give_back`; one the chain used anyway is forgotten by the next
    allocation). Unconditional: the holder's own conditional move to its end, in the same transaction, is what
    makes it happen once."""
    changes = aws.Changes(remove=[f"{HELD}{allocation.nonce}"], add={"given": {allocation.nonce}} if give_back else {})
    return aws.update("nonce-reservation", TABLE, key(allocation.address, allocation.chain_id), changes, None)


def release(allocation: Allocation) -> bool:
    """Give back a nonce whose transaction was never recorded; False when this allocation no longer owned it
    (its record committed after all, or its lease expired and was recovered)."""
    give_back = aws.update(
        "nonce",
        TABLE,
        key(allocation.address, allocation.chain_id),
        aws.Changes(delete={"inflight": {allocation.lease}}, add={"given": allocation.nonces}),
        aws.Condition("contains(#i, :lease)", {"#i": "inflight"}, {":lease": allocation.lease}),
    )
    return bool(retry.call(lambda: write_if(give_back), retry_on=(aws.ItemBusyError,), count=8, base_s=0.01))


def give_back_item(address: str, chain_id: int, nonce: int, span: int = 1) -> aws.TxItem:
    """For the transaction that moves a recorded transaction to `failed`/`dropped` without it being mined:
    its nonce (and the rest of its span) is handed out again (the record's own conditional move makes this happen
    once)."""
    return aws.update(
        "nonce-give-back",
        TABLE,
        key(address, chain_id),
        aws.Changes(add={"given": set(range(nonce, nonce + span))}),
        aws.Condition("#n > :nonce", {"#n": "next"}, {":nonce": nonce}),
    )


def _recover_lost(address: str, chain_id: int, item: dict[str, Any], chain_pending: int) -> bool:
    """Give back the nonces of the item's leases past their time (sends that died before recording: their nonces
    never went out); whether there were any (the item is then to be read again)."""
    now = clock.epoch()
    lost = [lease for lease in item.get("inflight", set()) if _lease_until(lease) < now]
    for lease in lost:
        _recover(address, chain_id, lease, chain_pending)
    return bool(lost)


def free_below(address: str, chain_id: int, chain_mined: int, below: int) -> list[int]:
    """The nonces from `chain_mined` (the account's mined nonce) up to `below` that nobody owns: given back (leases
    past their time recovered first) and held by no reservation. Each is a gap under a transaction at `below`."""
    item = aws.table(TABLE).get_item(Key=key(address, chain_id), ConsistentRead=True).get("Item") or {}
    if _recover_lost(address, chain_id, item, chain_mined):
        item = aws.table(TABLE).get_item(Key=key(address, chain_id), ConsistentRead=True).get("Item") or {}
    reserved = held(item)
    return sorted(n for n in map(int, item.get("given", set())) if chain_mined <= n < below and n not in reserved)


def take_given(address: str, chain_id: int, nonce: int) -> Allocation | None:
    """`nonce`, given back and held by no reservation, under a lease of LEASE_S seconds (as `allocate` hands one
    out); None when it is no longer free (a send took it)."""
    lease = _lease(nonce, clock.epoch())
    change = aws.update(
        "nonce",
        TABLE,
        key(address, chain_id),
        aws.Changes(add={"inflight": {lease}}, delete={"given": {nonce}}),
        aws.Condition(
            "contains(#g, :n) AND attribute_not_exists(#h)", {"#g": "given", "#h": f"{HELD}{nonce}"}, {":n": nonce}
        ),
    )
    done = retry.call(lambda: write_if(change), retry_on=(aws.ItemBusyError,), count=8, base_s=0.01)
    return Allocation(address, chain_id, nonce, lease) if done else None


def _recover(address: str, chain_id: int, lease: str, chain_pending: int) -> None:
    # Below the chain's pending nonce: the chain used it (a transaction sent elsewhere).
    back = {n for n in _lease_nonces(lease) if n >= chain_pending}
    nonce = _lease_nonces(lease).start
    changes = aws.Changes(delete={"inflight": {lease}}, add={"given": back} if back else {})
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
    logger.warning(
        "nonce of a dead send recovered", extra={"chainId": chain_id, "nonce": nonce, "givenBack": bool(back)}
    )
