"""Nonces for concurrent sends from one wallet on one chain.

One item per (address, chain) in table `nonces`: `next` (the next nonce never
handed out) and `given` (nonces handed out whose transaction never reached the
chain). Allocation, one conditional write:

1. the chain's pending nonce `p` is read first (the node's view of what is used);
2. given-back nonces below `p` are stale (something else used them) and are dropped;
   the smallest given-back nonce >= `p` is taken if there is one;
3. otherwise `max(next, p)` is taken and `next` moves past it.

A failed broadcast gives its nonce back (`release`): into `given`, or by moving
`next` back when it was the last one handed out. So a failure leaves no gap that
later transactions would wait behind forever; the next send fills it.

A send that dies between taking a nonce and recording its signed transaction (its
Lambda timed out) cannot give it back. So each allocation also leaves a lease in
`inflight` (`<nonce>:<until>`), removed once the transaction is recorded (`settle`);
the next allocation that finds an expired lease gives that nonce back as above,
unless the chain's pending nonce shows it used (so a lease left by a send whose
transaction did go out is simply dropped).
"""

from __future__ import annotations

import contextlib
import random
import time
from dataclasses import dataclass
from typing import Any

from chalicelib.platform import aws
from chalicelib.platform.errors import ApiError
from chalicelib.platform.logging import logger

NONCE_BUSY = "NONCE_BUSY"
LEASE_S = 120  # longer than any send may run; a lease past it belongs to a send that died
ATTEMPTS = 25


def _key(address: str, chain_id: int) -> dict[str, str]:
    return {"pk": f"NONCE#{address}#{chain_id}", "sk": "NONCE"}


@dataclass(frozen=True)
class Allocation:
    nonce: int
    lease: str  # the `inflight` entry `<nonce>:<leaseUntil>`; settle() removes it


def allocate(address: str, chain_id: int, chain_pending: int) -> Allocation:
    table = aws.table("nonces")
    for attempt in range(ATTEMPTS):
        item: dict[str, Any] = table.get_item(Key=_key(address, chain_id), ConsistentRead=True).get("Item") or {}
        stored = int(item["next"]) if "next" in item else None
        now = int(time.time())
        lost = [e for e in item.get("inflight", set()) if int(e.split(":")[1]) < now]
        if lost:  # a send died holding these: give back those the chain has not used, forget the rest
            _recover(address, chain_id, stored, lost, chain_pending)
            continue
        free = sorted(int(n) for n in item.get("given", set()))
        usable = [n for n in free if n >= chain_pending]
        stale = [n for n in free if n < chain_pending]
        names = {"#n": "next", "#i": "inflight"}
        if usable:
            nonce = usable[0]
            lease = f"{nonce}:{now + LEASE_S}"
            update = "DELETE #g :taken ADD #i :lease"
            values: dict[str, Any] = {":taken": {nonce, *stale}, ":seen": stored, ":lease": {lease}, ":one": nonce}
            condition = "#n = :seen AND contains(#g, :one)"
            names["#g"] = "given"
        else:
            nonce = max(stored or 0, chain_pending)
            lease = f"{nonce}:{now + LEASE_S}"
            update = "SET #n = :after ADD #i :lease" + (" DELETE #g :stale" if stale else "")
            values = {":after": nonce + 1, ":lease": {lease}}
            if stale:
                values[":stale"] = set(stale)
                names["#g"] = "given"
            if stored is None:
                condition = "attribute_not_exists(#n)"
            else:
                condition = "#n = :seen"
                values[":seen"] = stored
        try:
            table.update_item(
                Key=_key(address, chain_id),
                UpdateExpression=update,
                ConditionExpression=condition,
                ExpressionAttributeNames=names,
                ExpressionAttributeValues=values,
            )
            return Allocation(nonce, lease)
        except table.meta.client.exceptions.ConditionalCheckFailedException:
            time.sleep(random.uniform(0, 0.005 * 2 ** min(attempt, 6)))  # noqa: S311 - jitter, not security
    raise ApiError(503, NONCE_BUSY, "Too many concurrent sends from this wallet; retry shortly")


def settle(address: str, chain_id: int, allocation: Allocation) -> None:
    """The signed transaction is recorded: from here the tracker owns the nonce, the lease goes."""
    aws.table("nonces").update_item(
        Key=_key(address, chain_id),
        UpdateExpression="DELETE #i :lease",
        ExpressionAttributeNames={"#i": "inflight"},
        ExpressionAttributeValues={":lease": {allocation.lease}},
    )


def _recover(address: str, chain_id: int, stored: int | None, lost: list[str], chain_pending: int) -> None:
    table = aws.table("nonces")
    back = {int(e.split(":")[0]) for e in lost} - set(range(chain_pending))
    update = "DELETE #i :lost" + (" ADD #g :back" if back else "")
    values: dict[str, Any] = {":lost": set(lost), ":seen": stored}
    names = {"#i": "inflight", "#n": "next"}
    if back:
        values[":back"] = back
        names["#g"] = "given"
    with contextlib.suppress(table.meta.client.exceptions.ConditionalCheckFailedException):
        table.update_item(
            Key=_key(address, chain_id),
            UpdateExpression=update,
            ConditionExpression="#n = :seen",  # lost a race: the next round sees the new state
            ExpressionAttributeNames=names,
            ExpressionAttributeValues=values,
        )
    logger.warning(
        "nonces of a dead send recovered", extra={"address": address, "chainId": chain_id, "count": len(back)}
    )


def release(address: str, chain_id: int, allocation: Allocation | int) -> None:
    """Give back a nonce whose transaction will never be on chain."""
    table = aws.table("nonces")
    if isinstance(allocation, Allocation):
        with contextlib.suppress(table.meta.client.exceptions.ConditionalCheckFailedException):
            settle(address, chain_id, allocation)
    nonce = allocation.nonce if isinstance(allocation, Allocation) else allocation
    try:  # it was the last one handed out: just move `next` back
        table.update_item(
            Key=_key(address, chain_id),
            UpdateExpression="SET #n = :n",
            ConditionExpression="#n = :after",
            ExpressionAttributeNames={"#n": "next"},
            ExpressionAttributeValues={":n": nonce, ":after": nonce + 1},
        )
    except table.meta.client.exceptions.ConditionalCheckFailedException:
        # Behind `next`: remember it as a gap. Not behind (no counter, or already moved back): nothing to do.
        with contextlib.suppress(table.meta.client.exceptions.ConditionalCheckFailedException):
            table.update_item(
                Key=_key(address, chain_id),
                UpdateExpression="ADD #g :n",
                ConditionExpression="#n > :nonce",
                ExpressionAttributeNames={"#n": "next", "#g": "given"},
                ExpressionAttributeValues={":n": {nonce}, ":nonce": nonce},
            )
