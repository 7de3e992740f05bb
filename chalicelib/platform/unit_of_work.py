"""The one way to compose a write: a plan, committed as ONE DynamoDB transaction.

A plan holds everything one change writes, all or nothing:

* `items`: the change's own named transaction items (aws.put / update / delete / condition_check);
* `lists`: records appended to append-only lists (pagination.AppendOnlyList), each taking the list's next
  sequence number; `numbered(seqs)` gives items that need those numbers;
* `event`: at most one event (platform/outbox.py), written as its registered subscriber says (the webhooks
  domain: the event and a delivery to the app);
* `effect`: what the current request's Idempotency-Key records as its effect (platform/idempotency.py), so a
  lost answer is never a second effect;
* `replan_on`: names of items whose failed condition means "what the plan was built from moved meanwhile":
  the plan is built again from fresh reads (a balance another change just moved).

`commit(build)` writes it. `build` is called again for every attempt after a lost race: a list counter that
moved, a transient conflict, an item of `replan_on`, or a concurrent emit of the same event. Any other failed
condition raises aws.TransactionCancelledError naming the items, for the caller to answer; a lapsed
Idempotency-Key lease raises idempotency.lease_lost(). Nothing is ever written in part.

An event whose id exists already (a state that comes back, such as a deposit mined again after a reorg) is not
written twice: the rest of the plan is, and `Committed.event_written` says so.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from chalicelib.platform import aws, clock, idempotency, outbox, retry
from chalicelib.platform.errors import ApiError, RetryLaterError
from chalicelib.platform.outbox import Event
from chalicelib.platform.pagination import AppendOnlyList, counts_of

__all__ = ["Committed", "Event", "Plan", "commit"]

LIST_BUSY = "LIST_BUSY"
IDEMPOTENCY_ITEM = "idempotency"


@dataclass
class Plan:
    """Everything one change writes, all or nothing."""

    items: list[aws.TxItem] = field(default_factory=list)
    lists: list[tuple[AppendOnlyList, dict[str, Any]]] = field(default_factory=list)
    event: Event | None = None
    effect: Mapping[str, str] | None = None
    replan_on: frozenset[str] = frozenset()
    numbered: Callable[[list[int]], list[aws.TxItem]] | None = None
    # The lists' counters as the caller just read them (consistently): the first attempt uses them instead of
    # reading them again.
    list_counts: Sequence[int] | None = None


@dataclass(frozen=True)
class Committed:
    plan: Plan
    seqs: tuple[int, ...]  # the sequence numbers the plan's `lists` entries took, in order
    event_written: bool  # False without an event, or when its id existed already
    delivery_id: str | None  # the delivery the subscriber made for the event (its app has a webhook URL)


def busy() -> ApiError:
    return RetryLaterError(LIST_BUSY, "Too many concurrent writes; retry shortly", 1)


def commit(
    build: Plan | Callable[[], Plan | None],
    attempts: int = 8,
    on_busy: Callable[[], Exception] = busy,
) -> Committed | None:
    """Write the plan `build` gives (None: nothing to do; returns None). See the module docstring."""
    for attempt in retry.attempts(attempts, base_s=0.02, cap_s=0.5):
        plan = build() if callable(build) else build
        if plan is None:
            return None
        written = _attempt(plan, first=attempt == 0)
        if written is not None:
            return written
    raise on_busy()


def _attempt(plan: Plan, first: bool) -> Committed | None:
    """One transaction of `plan`; None when a race was lost and the plan is to be built again."""
    now = clock.iso_now()
    emitted = outbox.writes(plan.event, now) if plan.event is not None else None
    outbox_lists = list(emitted.lists) if emitted else []
    given = list(plan.list_counts) if first and plan.list_counts is not None else None
    counts = counts_of([entries for entries, _ in outbox_lists]) + (
        given if given is not None else counts_of([entries for entries, _ in plan.lists])
    )
    guards: list[aws.TxItem] = []
    for i, ((entries, record), n) in enumerate(zip([*outbox_lists, *plan.lists], counts, strict=True)):
        guards.extend(entries.append_items(i, record, n))
    seqs = tuple(n + 1 for n in counts[len(outbox_lists) :])
    items = [*guards, *(emitted.items if emitted else []), *plan.items]
    if plan.numbered is not None:
        items.extend(plan.numbered(list(seqs)))
    if plan.effect is not None:
        pinned = idempotency.effect_item(dict(plan.effect))
        if pinned is not None:
            items.append(pinned)
    if not items:  # an event that exists, and nothing else to write
        return Committed(plan, seqs, False, None)
    try:
        aws.transact(items)
    except aws.TransactionCancelledError as exc:
        if exc.condition_failed(IDEMPOTENCY_ITEM):
            raise idempotency.lease_lost() from None
        retried = {g.name for g in guards} | set(plan.replan_on) | ({outbox.EVENT_ITEM} if emitted else set())
        if exc.only_lost(retried):
            return None
        raise
    if emitted is not None:
        emitted.after_commit()
    return Committed(plan, seqs, emitted is not None, emitted.delivery_id if emitted else None)
