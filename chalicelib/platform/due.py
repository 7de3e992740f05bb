"""Records a worker must come back to by a time, and the sweep that hands back those it forgot.

A record waiting for its worker carries `duePk` ("due") and `dueAt` (when the worker should have looked at it
again), which put it in its table's sparse index `due`; the write that ends it removes them. Its worker moves
`dueAt` on while it keeps coming back. A schedule calls `sweep`: a record past its `dueAt` and still in its
open status lost its worker (a message never sent after a commit, lost, or dead-lettered) and is handed back,
after its `dueAt` moved past a lease, so the next sweep does not hand it back again meanwhile.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from chalicelib.platform import aws, clock

INDEX = "due"
DUE = "due"  # the one partition key of the index
ATTRIBUTES = ("duePk", "dueAt")


def due_in(seconds: float) -> dict[str, str]:
    """The attributes that put a record in the index, due `seconds` from now."""
    return {"duePk": DUE, "dueAt": clock.iso_in(seconds)}


def sweep(
    table: str,
    open_status: str | frozenset[str],
    lease_s: float,
    hand_back: Callable[[dict[str, Any]], None],
    limit: int,
) -> int:
    """Hand back (at most `limit`) records of `table` past their `dueAt` whose `status` is still `open_status` (or
    one of them), as leased (their new `dueAt`); returns how many. A record that ended but is still indexed leaves
    the index."""
    opened = frozenset({open_status}) if isinstance(open_status, str) else open_status
    statuses = {f":open{i}": status for i, status in enumerate(sorted(opened))}
    items = aws.table(table).query(
        IndexName=INDEX,
        KeyConditionExpression="duePk = :due AND dueAt <= :now",
        ExpressionAttributeValues={":due": DUE, ":now": clock.iso_now()},
        Limit=limit,
    )["Items"]
    handed = 0
    for item in items:
        leased = clock.iso_in(lease_s)
        lease = aws.update(
            "due",
            table,
            {"pk": item["pk"], "sk": item["sk"]},
            aws.Changes(set={"dueAt": leased}),
            aws.Condition(
                f"dueAt = :seen AND #s IN ({', '.join(statuses)})",
                {"#s": "status"},
                {":seen": item["dueAt"], **statuses},
            ),
        )
        try:
            aws.write(lease)
        except aws.ConditionFailedError as exc:
            if exc.old is not None and exc.old.get("status") not in opened and "duePk" in exc.old:
                _leave(table, exc.old)
            continue  # its worker came back meanwhile
        hand_back({**item, "dueAt": leased})
        handed += 1
    return handed


def _leave(table: str, item: dict[str, Any]) -> None:
    done = aws.update(
        "due",
        table,
        {"pk": item["pk"], "sk": item["sk"]},
        aws.Changes(remove=list(ATTRIBUTES)),
        aws.Condition("#s = :status", {"#s": "status"}, {":status": item["status"]}),
    )
    with contextlib.suppress(aws.ConditionFailedError):  # it changed again: the next sweep sees
        aws.write(done)
