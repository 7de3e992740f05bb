"""Events and their deliveries: the outbox every later event goes through.

`emit_event(app_id, type, id, data, also=[...])` writes, in ONE DynamoDB transaction
with the caller's own state change (`also`, aws.TxItem entries):

* the event (pk `EVENT#<id>`): the seed's envelope, stored once; an id that exists
  makes the whole emit a no-op, so re-emitting keeps the id and sends nothing new;
* a delivery to the app's URL (pk `DELIVERY#<deliveryId>`), status `pending`, due now,
  in the sparse index `due` (`duePk` = "due", `dueAt`) while it waits;
* the delivery's entry in the app's deliveries list (pagination.AppendOnlyList).

Then it puts the delivery on the `webhook-deliveries` queue. If that fails (or the
process dies first), the scheduled `sweep_webhooks` finds the delivery in the `due`
index and queues it, so nothing committed is lost.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from chalicelib.platform import aws, clock, due, jsonsafe
from chalicelib.platform.logging import logger
from chalicelib.platform.pagination import AppendOnlyList, PageQuery, append_together
from chalicelib.webhooks import store

API_VERSION = "2025-06-22"
TABLE = "webhooks"
QUEUE = "webhook-deliveries"
DUE = due.DUE  # the one partition key of the sparse `due` index


def deliveries_list(app_id: str) -> AppendOnlyList:
    return AppendOnlyList(TABLE, f"DELIVERIES#{app_id}")


def envelope(event_id: str, event_type: str, created_at: str, data: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": API_VERSION, "id": event_id, "type": event_type, "createdAt": created_at, "data": data}


@dataclass(frozen=True)
class Emitted:
    event_id: str
    delivery_id: str | None  # None when the app has no webhook URL (the event is still recorded)
    duplicate: bool = False  # the id existed: nothing was written, the caller's `also` items included


def emit_event(
    app_id: str,
    event_type: str,
    event_id: str,
    data: dict[str, Any],
    also: list[aws.TxItem] | None = None,
    append_to: list[tuple[AppendOnlyList, dict[str, Any]]] | None = None,
) -> Emitted:
    """Record the event, and a delivery when the app has a URL, with `also` and the entries `append_to` adds to
    the caller's lists, in one transaction. A failed condition of the caller's items raises
    aws.TransactionCancelledError (nothing written)."""
    if get_event(event_id) is not None:
        return Emitted(event_id, None, duplicate=True)  # an id is never delivered twice by emitting it again
    now = clock.iso_now()
    body = envelope(event_id, event_type, now, data)
    event_item = {
        "pk": f"EVENT#{event_id}",
        "sk": "EVENT",
        "appId": app_id,
        "type": event_type,
        "createdAt": now,
        "body": jsonsafe.dumps_exact(body),  # exact human amounts (Decimal) as JSON numbers
    }
    items: list[aws.TxItem] = [aws.put("event", TABLE, event_item), *(also or [])]
    settings = store.get(app_id)
    lists = list(append_to or [])
    if settings is None:
        return Emitted(event_id, None, duplicate=not _transact(items, event_id, lists))
    delivery_id = str(uuid.uuid4())
    delivery = {
        "pk": f"DELIVERY#{delivery_id}",
        "sk": "DELIVERY",
        "id": delivery_id,
        "appId": app_id,
        "eventId": event_id,
        "eventType": event_type,
        "url": settings["url"],
        "status": "pending",
        "attempts": 0,
        "createdAt": now,
        "nextAttemptAt": now,
        "duePk": DUE,
        "dueAt": now,
        "log": [],
    }
    items.append(aws.put("delivery", TABLE, delivery))
    try:
        entry = {"deliveryId": delivery_id, "createdAt": now}
        append_together([(deliveries_list(app_id), entry), *lists], lambda _: items)
    except aws.TransactionCancelledError as exc:
        if exc.condition_failed("event"):
            return Emitted(event_id, None, duplicate=True)  # a concurrent emit of the same id won
        raise
    enqueue(delivery_id)
    return Emitted(event_id, delivery_id)


def enqueue(delivery_id: str, delay_s: int = 0) -> None:
    try:
        aws.send_message(QUEUE, {"deliveryId": delivery_id}, delay_s)
    except Exception as exc:  # noqa: BLE001 - committed already; the sweeper queues it
        logger.warning(
            "delivery not queued; the sweeper will", extra={"deliveryId": delivery_id, "error": type(exc).__name__}
        )


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


def page(app_id: str, query: PageQuery) -> tuple[list[dict[str, Any]], int]:
    entries, total = deliveries_list(app_id).page(query)
    ids = [str(e["deliveryId"]) for e in entries]
    if not ids:
        return [], total
    keys = [{"pk": f"DELIVERY#{i}", "sk": "DELIVERY"} for i in ids]
    found = {item["id"]: item for item in aws.batch_get(TABLE, keys)}
    return [found[i] for i in ids if i in found], total


SWEEP_LEASE_S = 300  # a queued message has this long to be taken before the sweeper queues it again


def sweep(limit: int = 100) -> int:
    """Queue deliveries that are due and not queued or running; returns how many (platform/due.py)."""
    return due.sweep(TABLE, "pending", SWEEP_LEASE_S, lambda item: enqueue(str(item["id"])), limit)


def _transact(
    items: list[aws.TxItem], event_id: str, lists: list[tuple[AppendOnlyList, dict[str, Any]]] | None = None
) -> bool:
    """True if written; False if the event id existed (a concurrent emit)."""
    try:
        if lists:
            append_together(lists, lambda _: items)
        else:
            aws.transact(items)
    except aws.TransactionCancelledError as exc:
        if not exc.condition_failed("event"):
            raise
        return False
    return True
