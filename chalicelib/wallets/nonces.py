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
"""

from __future__ import annotations

import contextlib
import random
import time
from typing import Any

from chalicelib.platform import aws
from chalicelib.platform.errors import ApiError

NONCE_BUSY = "NONCE_BUSY"
ATTEMPTS = 25


def _key(address: str, chain_id: int) -> dict[str, str]:
    return {"pk": f"NONCE#{address}#{chain_id}", "sk": "NONCE"}


def allocate(address: str, chain_id: int, chain_pending: int) -> int:
    table = aws.table("nonces")
    for attempt in range(ATTEMPTS):
        item: dict[str, Any] = table.get_item(Key=_key(address, chain_id), ConsistentRead=True).get("Item") or {}
        stored = int(item["next"]) if "next" in item else None
        free = sorted(int(n) for n in item.get("given", set()))
        usable = [n for n in free if n >= chain_pending]
        stale = [n for n in free if n < chain_pending]
        names = {"#n": "next"}
        if usable:
            nonce = usable[0]
            update = "DELETE #g :taken"
            values: dict[str, Any] = {":taken": {nonce, *stale}, ":seen": stored}
            condition = "#n = :seen AND contains(#g, :one)"
            names["#g"] = "given"
            values[":one"] = nonce
        else:
            nonce = max(stored or 0, chain_pending)
            update = "SET #n = :after" + (" DELETE #g :stale" if stale else "")
            values = {":after": nonce + 1}
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
            return nonce
        except table.meta.client.exceptions.ConditionalCheckFailedException:
            time.sleep(random.uniform(0, 0.005 * 2 ** min(attempt, 6)))  # noqa: S311 - jitter, not security
    raise ApiError(503, NONCE_BUSY, "Too many concurrent sends from this wallet; retry shortly")


def release(address: str, chain_id: int, nonce: int) -> None:
    """Give back a nonce whose transaction will never be on chain."""
    table = aws.table("nonces")
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
