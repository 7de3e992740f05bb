"""Events and their deliveries: the outbox every event goes through.

An event is written by the change that causes it, in the same transaction (platform/unit_of_work.py: a plan's
`event`):

* the event (pk `EVENT#<id>`): the reference API's envelope, stored once; an id that exists is not written
  again, so re-emitting keeps the id and sends nothing new;
* a delivery to the app's URL (pk `DELIVERY#<deliveryId>`), status `pending`, due now, in the sparse index
  `due` (`duePk` = "due", `dueAt`) while it waits;
* the delivery's entry in the app's deliveries list (pagination.AppendOnlyList).

After the commit the delivery goes on the `webhook-deliveries` queue. If that fails (or the process dies
first), the scheduled `sweep_webhooks` finds the delivery in the `due` index and queues it, so nothing
committed is lost. The webhooks domain owns the settings (the URL read here), the delivery worker and the API.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from chalicelib.platform import aws, due, followups, jsonsafe
from chalicelib.platform.pagination import AppendOnlyList, PageQuery, records_page

API_VERSION = "2025-06-22"
TABLE = "webhooks"
QUEUE = "webhook-deliveries"
EVENT_ITEM = "event"
SWEEP_LEASE_S = 300  # a queued message has this long to be taken before the sweeper queues it again
# A delivery's messages; a pending delivery sits in the `due` index, so the sweeper queues one whose message
# was lost.
DELIVERIES = followups.FollowUp(QUEUE)
PENDING = followups.Requeue(TABLE, "pending", SWEEP_LEASE_S)


def deliveries_list(app_id: str) -> AppendOnlyList:
    return AppendOnlyList(TABLE, f"DELIVERIES#{app_id}")


def envelope(event_id: str, event_type: str, created_at: str, data: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": API_VERSION, "id": event_id, "type": event_type, "createdAt": created_at, "data": data}


@dataclass(frozen=True)
class Event:
    """One event of an app, to be written by a plan (platform/unit_of_work.py). Its id is its identity: an id
    that exists is never written or delivered twice."""

    app_id: str
    type: str
    id: str
    data: dict[str, Any]


@dataclass(frozen=True)
class Emission:
    """What recording an event writes: the event, and a delivery with its entry in the app's deliveries list
    when the app has a webhook URL; `after_commit` queues the delivery once the transaction committed."""

    items: list[aws.TxItem]
    lists: list[tuple[AppendOnlyList, dict[str, Any]]]
    delivery_id: str | None

    def after_commit(self) -> None:
        if self.delivery_id is not None:
            enqueue(self.delivery_id)


def subscription_key(app_id: str) -> dict[str, str]:
    """The app's webhook settings (its URL), which the webhooks domain writes."""
    return {"pk": f"APP#{app_id}", "sk": "SETTINGS"}


def subscription(app_id: str) -> dict[str, Any] | None:
    item: dict[str, Any] | None = (
        aws.table(TABLE).get_item(Key=subscription_key(app_id), ConsistentRead=True).get("Item")
    )
    return item


def writes(event: Event, now: str) -> Emission | None:
    """The writes that record `event` (the item named EVENT_ITEM fails its condition when a concurrent change
    recorded the same id first); None when the event exists already."""
    if get_event(event.id) is not None:
        return None
    body = envelope(event.id, event.type, now, event.data)
    event_item = {
        "pk": f"EVENT#{event.id}",
        "sk": "EVENT",
        "appId": event.app_id,
        "type": event.type,
        "createdAt": now,
        "body": jsonsafe.dumps_exact(body),  # exact human amounts (Decimal) as JSON numbers
    }
    items = [aws.put(EVENT_ITEM, TABLE, event_item)]
    settings = subscription(event.app_id)
    if settings is None or settings.get("disabled"):
        return Emission(items, [], None)
    return delivery_writes(event.app_id, event.id, event.type, str(settings["url"]), now, items)


def delivery_writes(
    app_id: str,
    event_id: str,
    event_type: str,
    url: str,
    now: str,
    items: list[aws.TxItem] | None = None,
    replay_of: str | None = None,
) -> Emission:
    """A new delivery of a recorded event (after `items`, the event's own writes when it is new): pending, due
    now, listed in the app's deliveries. A replay names the delivery it repeats."""
    delivery_id = str(uuid.uuid4())
    delivery = {
        "pk": f"DELIVERY#{delivery_id}",
        "sk": "DELIVERY",
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
    written = [*(items or []), aws.put("delivery", TABLE, delivery)]
    entry = {"deliveryId": delivery_id, "createdAt": now}
    return Emission(written, [(deliveries_list(app_id), entry)], delivery_id)


def enqueue(delivery_id: str, delay_s: int = 0) -> None:
    """Queue the committed delivery (a send that fails is logged: the sweeper queues it)."""
    DELIVERIES.send_committed({"deliveryId": delivery_id}, delay_s, deliveryId=delivery_id)


def get_event(event_id: str) -> dict[str, Any] | None:
    item: dict[str, Any] | None = (
        aws.table(TABLE).get_item(Key={"pk": f"EVENT#{event_id}", "sk": "EVENT"}, ConsistentRead=True).get("Item")
    )
    return item


def get_delivery(delivery_id: str) -> dict[str, Any] | None:
    item: dict[str, Any] | None = (
        aws.table(TABLE)
        .get_item(Key={"pk": f"DELIVERY#{delivery_id}", "sk": "DELIVERY"}, ConsistentRead=True)
        .get("Item")
    )
    return item


def deliveries_and_events(delivery_ids: list[str]) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
    """Several deliveries and their events, in two batch reads (consistent): by delivery id and by event id."""
    deliveries = {
        str(item["id"]): item
        for item in aws.batch_get(TABLE, [{"pk": f"DELIVERY#{i}", "sk": "DELIVERY"} for i in delivery_ids])
    }
    event_keys = [{"pk": f"EVENT#{d['eventId']}", "sk": "EVENT"} for d in deliveries.values()]
    events = {str(item["pk"]).removeprefix("EVENT#"): item for item in aws.batch_get(TABLE, event_keys)}
    return deliveries, events


def page(app_id: str, query: PageQuery) -> tuple[list[dict[str, Any]], int]:
    return records_page(
        deliveries_list(app_id), query, "deliveryId", lambda i: {"pk": f"DELIVERY#{i}", "sk": "DELIVERY"}
    )


def sweep(limit: int = 100) -> int:
    """Queue deliveries that are due and not queued or running; returns how many (platform/due.py)."""
    return PENDING.sweep(lambda item: enqueue(str(item["id"])), limit)
