"""Deliveries: one event to one app's URL (pk `DELIVERY#<deliveryId>`, sk `DELIVERY` in table `webhooks`), and
the queue their attempts are made from.

    pending ──claim (a lease, the attempt counted)──▶ pending ──2xx──▶ delivered
       │                                                 ├──retryable, attempts left──▶ pending (due later)
       └──refused, attempts used up, or event missing──▶ failed ──retry by hand──▶ pending (attempts from 0)

The table above is data (`DeliveryRecord.machine`) and every move is `transitions.transition(...)`, conditional on
the status as read. A claim is also conditional on the attempts and the claim as read (so two workers never hold
one delivery), an attempt's outcome on its own claim (a worker whose lease lapsed and whose delivery was claimed
by another records nothing).

A new delivery is written with its event (events.py) or as a replay (`replayOf` naming the delivery it repeats):
`pending`, due now, in the app's deliveries list. While `pending` it sits in the table's sparse index `due`
(`duePk` = "due", `dueAt`); the moves that end it take it out. After the commit the delivery goes on the
`webhook-deliveries` queue; if that fails (or the process dies first), the scheduled `sweep_webhooks` finds it
in the `due` index and queues it, so nothing committed is lost.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import timedelta
from typing import Any, ClassVar

from pydantic import Field

from chalicelib.platform import aws, clock, due, followups, transitions
from chalicelib.platform.clock import iso
from chalicelib.platform.outbox import Emission
from chalicelib.platform.pagination import AppendOnlyList, PageQuery, records_page
from chalicelib.platform.transitions import ABSENT, Machine, Move, Stateful, moved, transition
from chalicelib.webhooks import store
from chalicelib.webhooks.store import TABLE

QUEUE = "webhook-deliveries"
CLAIM_S = 120  # an attempt's lease; a worker that died frees the delivery after it
SWEEP_LEASE_S = 300  # a queued message has this long to be taken before the sweeper queues it again
# A delivery's messages; a pending delivery sits in the `due` index, so the sweeper queues one whose message
# was lost.
MESSAGES = followups.FollowUp(QUEUE)
PENDING = followups.Requeue(TABLE, "pending", SWEEP_LEASE_S)
CLAIM = ("claimToken", "claimUntil")  # a worker's lease, removed by every move that ends or releases it


class DeliveryRecord(Stateful):
    """A delivery as stored (the API shows it as models.Delivery)."""

    machine: ClassVar[Machine] = Machine(
        name="delivery",
        table=TABLE,
        states=frozenset({"pending", "delivered", "failed"}),
        initial=frozenset({"pending"}),
        final=frozenset({"delivered"}),
        moves=(
            Move("pending", "pending"),  # claimed for an attempt; or an attempt to be retried later
            Move("pending", "delivered"),
            Move("pending", "failed"),  # refused by the receiver, attempts used up, or its event missing
            Move("failed", "pending"),  # retried by hand (POST .../retry, the console)
        ),
        stamp=None,
    )

    id: str
    appId: str
    eventId: str
    eventType: str
    url: str
    status: str
    attempts: int = 0
    createdAt: str
    nextAttemptAt: str | None = None
    lastAttemptAt: str | None = None
    lastResponseStatus: int | None = None
    lastError: str | None = None
    deliveredAt: str | None = None
    claimToken: str | None = None
    claimUntil: str | None = None
    log: list[dict[str, Any]] = Field(default_factory=list)
    replayOf: str | None = None

    def status_index(self) -> aws.Changes:
        """A pending delivery waits in the `due` index (each move sets its due time); the move that ends it leaves."""
        return aws.Changes() if self.status == "pending" else aws.Changes(remove=list(followups.ENDED))

    def claimed_by_another(self, now: str) -> bool:
        """A worker's lease holds it (it lapses after CLAIM_S)."""
        return self.claimToken is not None and (self.claimUntil or "") >= now


def key(delivery_id: str) -> dict[str, str]:
    return {"pk": f"DELIVERY#{delivery_id}", "sk": "DELIVERY"}


def entries(app_id: str) -> AppendOnlyList:
    """The app's deliveries, newest first."""
    return AppendOnlyList(TABLE, f"DELIVERIES#{app_id}")


def new(app_id: str, event_id: str, event_type: str, url: str, now: str, replay_of: str | None = None) -> Emission:
    """A new delivery of a recorded event: pending, due now, listed in the app's deliveries, queued once committed.
    A replay names the delivery it repeats."""
    delivery_id = str(uuid.uuid4())
    record = DeliveryRecord.model_validate(
        {
            **key(delivery_id),
            "id": delivery_id,
            "appId": app_id,
            "eventId": event_id,
            "eventType": event_type,
            "url": url,
            "status": "pending",
            "attempts": 0,
            "createdAt": now,
            "nextAttemptAt": now,
            **due.due_in(0),  # due now: the sweeper queues it if its message is not sent
            "log": [],
            **({"replayOf": replay_of} if replay_of else {}),
        }
    )
    entry = {"deliveryId": delivery_id, "createdAt": now}
    return Emission([transitions.create(record)], [(entries(app_id), entry)], delivery_id, lambda: enqueue(delivery_id))


def get(delivery_id: str) -> dict[str, Any] | None:
    """The delivery as stored (consistent)."""
    return store.get(key(delivery_id))


def read(delivery_id: str) -> DeliveryRecord | None:
    item = get(delivery_id)
    return None if item is None else DeliveryRecord.from_item(item)


def get_many(delivery_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Several deliveries as stored, in one batch read (consistent), by id; those not found are left out."""
    return {str(item["id"]): item for item in aws.batch_get(TABLE, [key(i) for i in delivery_ids])}


def page(app_id: str, query: PageQuery) -> tuple[list[dict[str, Any]], int]:
    return records_page(entries(app_id), query, "deliveryId", key)


def enqueue(delivery_id: str, delay_s: int = 0) -> None:
    """Queue the committed delivery (a send that fails is logged: the sweeper queues it)."""
    MESSAGES.send_committed({"deliveryId": delivery_id}, delay_s, deliveryId=delivery_id)


def sweep(limit: int = 100) -> int:
    """Queue deliveries that are due and not queued or running; returns how many (platform/due.py)."""
    return PENDING.sweep(lambda item: enqueue(str(item["id"])), limit)


# --- moves ---------------------------------------------------------------------------------------------------


def _unclaimed(record: DeliveryRecord) -> dict[str, object]:
    """What a move of a pending delivery no worker holds expects: its attempts and its (lapsed) claim as read."""
    return {"attempts": record.attempts, "claimToken": record.claimToken or ABSENT}


def claim(record: DeliveryRecord) -> tuple[aws.TxItem, DeliveryRecord] | None:
    """The move that takes a pending delivery for one attempt under a lease of CLAIM_S and counts the attempt,
    with the delivery as it leaves it; None when it is not pending or another worker's lease holds it."""
    now = clock.now()
    if record.status != "pending" or record.claimed_by_another(iso(now)):
        return None
    until = iso(now + timedelta(seconds=CLAIM_S))
    # dueAt moves past the lease, so the sweeper does not queue it while the attempt runs.
    changes: dict[str, Any] = {
        "claimToken": uuid.uuid4().hex,
        "claimUntil": until,
        "dueAt": until,
        "attempts": record.attempts + 1,
    }
    return transition(record, "pending", expect=_unclaimed(record), **changes), moved(record, "pending", **changes)


def outcome(claimed: DeliveryRecord, to: str, *, remove: Sequence[str] = (), **changes: Any) -> aws.TxItem:
    """The move that records an attempt of the worker holding `claimed` (conditional on its claim), releasing it."""
    return transition(claimed, to, remove=[*remove, *CLAIM], expect={"claimToken": claimed.claimToken}, **changes)


def give_up(record: DeliveryRecord, reason: str) -> aws.TxItem | None:
    """The move that fails a pending delivery no worker holds (attempts as read); None when it is not pending or
    a lease holds it."""
    if record.status != "pending" or record.claimed_by_another(clock.iso_now()):
        return None
    return transition(record, "failed", remove=["nextAttemptAt", *CLAIM], expect=_unclaimed(record), lastError=reason)


def retry(record: DeliveryRecord, url: str) -> bool:
    """Make a failed delivery pending again, due now, to the app's URL as it is now (a URL replaced since, perhaps
    because it was compromised, gets nothing more): POST .../retry; False if it is not failed."""
    if record.status != "failed":
        return False
    due_now: dict[str, Any] = dict(due.due_in(0))  # the sweeper queues it if its message is lost
    again = transition(
        record, "pending", remove=list(CLAIM), attempts=0, url=url, nextAttemptAt=due_now["dueAt"], **due_now
    )
    try:
        aws.write(again)
    except aws.ConditionFailedError:
        return False
    enqueue(record.id)
    return True
