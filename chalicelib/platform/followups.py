"""Follow-ups: "look at this record again in N seconds", and the sweep of records whose follow-up was lost.

A follow-up is a message to a named SQS queue (`FollowUp`), delayed by at most MAX_DELAY_S: SQS refuses longer,
so a longer wait is a chain of follow-ups, each finding the record not due yet. The follow-ups of one record
form one chain: each message carries a step token (in the body's field `FollowUp.step_field`: the record's step
as the sender left it, a counter or its due time), a tracker moves the record's step on before it sends the
successor, and a message whose token is no longer the record's (a duplicate delivery, a leftover of a chain that
was taken over) is stale and dropped.

A record that waits for a follow-up sits in its table's `due` index (due.py) while it is open (`Requeue`): the
write that opens it carries `due(...)`, each step moves its due time past the next follow-up (the step's
transition, platform/transitions.py, sets `due(...)` again and expects the due time it read: that new due time
is the successor's token), the write that ends it removes `ENDED`, and the tracker's schedule calls `sweep`,
which hands back a record whose follow-up was lost (never sent after a commit, lost, or dead-lettered).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from chalicelib.platform import aws, due
from chalicelib.platform.logging import log_failure

MAX_DELAY_S = 900  # SQS's longest delay
ENDED = due.ATTRIBUTES  # removed by the write that ends a record: it leaves the `due` index


def capped(delay_s: float) -> int:
    """A delay SQS accepts: whole seconds in [0, MAX_DELAY_S]."""
    return max(0, min(int(delay_s), MAX_DELAY_S))


def doubling(first_s: float, step: int, cap_s: float = MAX_DELAY_S) -> int:
    """`first_s` doubled at each step, at most `cap_s` (and SQS's cap)."""
    return capped(min(first_s * 2 ** min(max(step, 0), 30), cap_s))


def stepped(delays: Sequence[float], step: int) -> int:
    """The `step`th delay of a fixed schedule; its last delay repeats."""
    return capped(delays[min(max(step, 0), len(delays) - 1)])


def is_stale(token: Any, current: Any) -> bool:
    """A message's step token against the record's: stale when they differ. A direct call (no token) is never
    stale."""
    return token is not None and str(token) != str(current)


@dataclass(frozen=True)
class FollowUp:
    """The follow-ups of one tracker: messages to `queue`; `step_field` names the body's field with the step token."""

    queue: str
    step_field: str | None = None

    def send(self, body: Mapping[str, Any], delay_s: float = 0) -> None:
        aws.send_message(self.queue, dict(body), delay_s=capped(delay_s))

    def send_committed(self, body: Mapping[str, Any], delay_s: float = 0, **context: Any) -> bool:
        """Send after the commit that made the record due: a send that fails is logged, not raised (the record
        is committed and due, so its sweep sends it); False then."""
        try:
            self.send(body, delay_s)
        except Exception as exc:  # noqa: BLE001 - committed already: the sweep sends it
            log_failure("follow-up not sent; its sweep sends it", exc, queue=self.queue, **context)
            return False
        return True

    def stale(self, body: Mapping[str, Any], current: Any) -> bool:
        """The message belongs to another step than the record's `current` one: a duplicate or a leftover."""
        return self.step_field is not None and is_stale(body.get(self.step_field), current)


@dataclass(frozen=True)
class Requeue:
    """The records of `table` followed while their status is `open_status` (or one of several), kept in the table's
    `due` index.

    `quiet_s`: how long past its due time a record's follow-ups have gone quiet (beyond a queue's visibility
    timeout); each due time is set that long after the next follow-up's, and it is the sweep's lease."""

    table: str
    open_status: str | frozenset[str]
    quiet_s: float

    def due(self, next_in_s: float) -> dict[str, str]:
        """The attributes that put a record in the index, for a follow-up in `next_in_s`."""
        return due.due_in(next_in_s + self.quiet_s)

    def sweep(self, hand_back: Callable[[dict[str, Any]], None], limit: int) -> int:
        """The schedule's safety net: hand back (at most `limit`) open records past their due time, each leased
        for `quiet_s` (its new `dueAt`), so the next sweep leaves it to the follow-up sent now."""
        return due.sweep(self.table, self.open_status, self.quiet_s, hand_back, limit)
