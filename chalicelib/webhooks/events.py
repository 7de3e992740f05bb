"""Events (pk `EVENT#<eventId>`, sk `EVENT` in table `webhooks`), and the recorder the outbox calls for every
event a plan writes (platform/outbox.py; the entry point subscribes `record`).

Recording an event writes, in the transaction of the change that causes it:
* the event: the envelope the app receives (`body`, exact JSON), stored once; an id that exists is not written
  again, so re-emitting keeps the id and sends nothing new;
* when the app has a webhook URL and deliveries are not paused, a delivery to that URL with its entry in the
  app's deliveries list (deliveries.py), queued once the transaction committed.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from chalicelib.platform import aws, jsonsafe, outbox
from chalicelib.platform.outbox import Emission, Event
from chalicelib.webhooks import deliveries, settings, store
from chalicelib.webhooks.store import TABLE


def key(event_id: str) -> dict[str, str]:
    return {"pk": f"EVENT#{event_id}", "sk": "EVENT"}


def get(event_id: str) -> dict[str, Any] | None:
    return store.get(key(event_id))


def get_many(event_ids: Iterable[str]) -> dict[str, dict[str, Any]]:
    """Several events in one batch read (consistent), by id; those not found are left out."""
    found = aws.batch_get(TABLE, [key(i) for i in event_ids])
    return {str(item["pk"]).removeprefix("EVENT#"): item for item in found}


def record(event: Event, now: str) -> Emission | None:
    """The writes that record `event` (the put named outbox.EVENT_ITEM fails its condition when a concurrent
    change recorded the same id first); None when the event exists already."""
    if get(event.id) is not None:
        return None
    item = {
        **key(event.id),
        "appId": event.app_id,
        "type": event.type,
        "createdAt": now,
        "body": jsonsafe.dumps_exact(event.envelope(now)),  # exact human amounts (Decimal) as JSON numbers
    }
    written = aws.put(outbox.EVENT_ITEM, TABLE, item)
    url = settings.deliverable_url(event.app_id)
    if url is None:
        return Emission([written])
    delivery = deliveries.new(event.app_id, event.id, event.type, url, now)
    return Emission([written, *delivery.items], delivery.lists, delivery.delivery_id, delivery.after_commit)
