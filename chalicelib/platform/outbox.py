"""Events: what a plan writes when its change is something an app is told about.

An event is written by the change that causes it, in the same transaction (platform/unit_of_work.py: a plan's
`event`). The platform does not know where events are kept or how they reach the app: one subscriber, registered
once by the entry point (`subscribe`), turns an event into its writes (`Emission`). The webhooks domain is that
subscriber (webhooks/events.py): it stores the event and a delivery to the app's URL, and queues the delivery once
the transaction committed. Writing an event with no subscriber raises NoSubscriberError: an event is never
dropped.

What the plan relies on:
* an event's id is its identity: the subscriber answers None for an id recorded already, and names the write that
  records the id EVENT_ITEM, whose failed condition means that a concurrent change recorded it first (the plan is
  built again);
* `Emission.lists` are appended to with the plan's own lists, in the same transaction;
* `Emission.after_commit` runs once the transaction committed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from chalicelib.platform import aws
from chalicelib.platform.hooks import Hooks
from chalicelib.platform.pagination import AppendOnlyList

# The version of the events' envelope, which the API document states (platform/openapi.py).
API_VERSION = "2025-06-22"
EVENT_ITEM = "event"


@dataclass(frozen=True)
class Event:
    """One event of an app, to be written by a plan. Its id is its identity: an id that exists is never written
    or delivered twice."""

    app_id: str
    type: str
    id: str
    data: dict[str, Any]

    def envelope(self, created_at: str) -> dict[str, Any]:
        """The event as the app receives it."""
        return {"apiVersion": API_VERSION, "id": self.id, "type": self.type, "createdAt": created_at, "data": self.data}


def _nothing() -> None:
    return None


@dataclass(frozen=True)
class Emission:
    """What recording an event writes: transaction items, records appended to lists, and what to do once the
    transaction committed; `delivery_id` names the delivery made for it, if any."""

    items: list[aws.TxItem]
    lists: list[tuple[AppendOnlyList, dict[str, Any]]] = field(default_factory=list)
    delivery_id: str | None = None
    after_commit: Callable[[], None] = _nothing


# The writes that record `event` at time `now` (ISO); None when its id is recorded already.
Subscriber = Callable[[Event, str], Emission | None]


class NoSubscriberError(RuntimeError):
    """An event was written before wiring.wire() subscribed its recorder: a wiring error."""


SUBSCRIBER: Hooks[Subscriber] = Hooks("event subscriber")
_KEY = "events"


def subscribe(subscriber: Subscriber) -> None:
    """The recorder of every event (`wiring.wire()` subscribes it; a second subscription replaces it)."""
    SUBSCRIBER.register(_KEY, subscriber)


def subscribed() -> Subscriber | None:
    return SUBSCRIBER.get(_KEY)


def writes(event: Event, now: str) -> Emission | None:
    """What recording `event` writes, from the subscriber; NoSubscriberError without one."""
    recorder = subscribed()
    if recorder is None:
        raise NoSubscriberError(f"no subscriber for event {event.type}: wiring.wire() subscribes the webhooks'")
    return recorder(event, now)
