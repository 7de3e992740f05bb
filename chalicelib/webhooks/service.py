"""Webhook settings (validated against SSRF, platform/egress.py), the test event, deliveries, public key."""

from __future__ import annotations

import base64
import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from chalicelib.platform import aws, clock, deadline, egress, unit_of_work
from chalicelib.platform.clock import iso_now
from chalicelib.platform.errors import bad_request, conflict, not_found
from chalicelib.platform.pagination import PageQuery, pagination
from chalicelib.platform.unit_of_work import Event, Plan
from chalicelib.tenancy.models import App
from chalicelib.webhooks import deliveries as delivery_records
from chalicelib.webhooks import events, signing_keys
from chalicelib.webhooks import settings as webhook_settings
from chalicelib.webhooks.deliveries import DeliveryRecord
from chalicelib.webhooks.models import (
    Delivery,
    DeliveryPage,
    PreviousKey,
    PublicKey,
    TestEventQueued,
    WebhookSettings,
)
from chalicelib.webhooks.settings import Appended

LOOKUP_TIMEOUT_S = 5.0  # resolving the URL's host when it is saved


def settings(app: App) -> WebhookSettings:
    item = webhook_settings.get(app.appId)
    if item is None:
        return WebhookSettings(url=None, enabled=False, updatedAt=None)
    return WebhookSettings(url=item["url"], enabled=not item.get("disabled"), updatedAt=item["updatedAt"])


def set_url(app: App, url: str, also: Sequence[Appended] = ()) -> WebhookSettings:
    try:
        target = egress.allowed_target(url, timeout_s=deadline.timeout_s(LOOKUP_TIMEOUT_S, "webhook host lookup"))
    except egress.UrlRefused as exc:
        raise bad_request(
            exc.code, f"url refused: {exc.reason}", errors=[{"field": "url", "message": exc.reason}]
        ) from None
    webhook_settings.put(app.appId, target.url, iso_now(), also)
    return settings(app)


def delete(app: App, also: Sequence[Appended] = ()) -> None:
    webhook_settings.delete(app.appId, also)


def set_enabled(app: App, enabled: bool, also: Sequence[Appended] = ()) -> WebhookSettings:
    """Resume or pause deliveries: while paused, events are recorded but no delivery is made for them."""
    try:
        webhook_settings.set_disabled(app.appId, not enabled, iso_now(), also)
    except aws.TransactionCancelledError:
        raise conflict(WEBHOOK_NOT_CONFIGURED, "Set a webhook URL first") from None
    return settings(app)


WEBHOOK_NOT_CONFIGURED = "WEBHOOK_NOT_CONFIGURED"
WEBHOOK_PAUSED = "WEBHOOK_PAUSED"
DELIVERY_NOT_FOUND = "DELIVERY_NOT_FOUND"
DELIVERY_NOT_FAILED = "DELIVERY_NOT_FAILED"


def _deliverable(app: App) -> dict[str, Any]:
    """The app's settings when deliveries can be made: 409 without a URL, or while they are paused."""
    current = webhook_settings.get(app.appId)
    if current is None:
        raise conflict(WEBHOOK_NOT_CONFIGURED, "Set a webhook URL first (PUT /api/v1/webhooks/settings)")
    if current.get("disabled"):
        raise conflict(WEBHOOK_PAUSED, "Deliveries are paused in the console; resume them first")
    return current


def queue_test_event(app: App) -> TestEventQueued:
    _deliverable(app)
    event_id = str(uuid.uuid4())
    data = {"appId": app.appId, "message": "This is a test event from Dompet."}
    emitted = unit_of_work.commit(Plan(event=Event(app.appId, "webhook.test", event_id, data)))
    if emitted is None or emitted.delivery_id is None:  # the URL was deleted between the check and the emit
        raise conflict(WEBHOOK_NOT_CONFIGURED, "Set a webhook URL first (PUT /api/v1/webhooks/settings)")
    return TestEventQueued(id=event_id, deliveryId=emitted.delivery_id)


def deliveries(app: App, query: PageQuery) -> DeliveryPage:
    records, total = delivery_records.page(app.appId, query)
    return DeliveryPage(data=[Delivery.model_validate(r) for r in records], pagination=pagination(total, query))


def _of_app(app: App, delivery_id: str) -> DeliveryRecord:
    record = delivery_records.read(delivery_id)
    if record is None or record.appId != app.appId:
        raise not_found(DELIVERY_NOT_FOUND, "No delivery with this id for this app")
    return record


def retry_delivery(app: App, delivery_id: str) -> Delivery:
    record = _of_app(app, delivery_id)
    current = _deliverable(app)
    if not delivery_records.retry(record, str(current["url"])):
        raise conflict(DELIVERY_NOT_FAILED, "Only a failed delivery can be retried")
    return Delivery.model_validate(delivery_records.get(delivery_id))


def delivery_detail(app: App, delivery_id: str) -> tuple[Delivery, str | None]:
    """A delivery of the app with the signed body its attempts send (None when the event is gone)."""
    record = _of_app(app, delivery_id)
    event = events.get(record.eventId)
    return Delivery.model_validate(record.to_item()), str(event["body"]) if event else None


def replay(app: App, delivery_id: str, also: Sequence[Appended] = ()) -> Delivery:
    """Deliver a delivery's event again, whatever its outcome: a new delivery (`replayOf` naming the one it
    repeats) of the same event, with the same event id, to the app's current URL, signed when it is attempted."""
    record = _of_app(app, delivery_id)
    current = _deliverable(app)
    again = delivery_records.new(
        app.appId, record.eventId, record.eventType, str(current["url"]), iso_now(), replay_of=delivery_id
    )
    unit_of_work.commit(Plan(items=again.items, lists=[*again.lists, *also]))
    again.after_commit()
    assert again.delivery_id is not None
    return Delivery.model_validate(delivery_records.get(again.delivery_id))


RETRY_SCAN_MAX = 1000  # deliveries looked at by one "retry all failed since"


def retry_failed_since(app: App, since: datetime) -> list[str]:
    """Retry every failed delivery of the app made at or after `since` (newest first, at most RETRY_SCAN_MAX
    looked at), to the app's current URL; returns the ids retried. 409 without a URL or while paused."""
    url = str(_deliverable(app)["url"])
    retried: list[str] = []
    limit = 100
    for number in range(1, RETRY_SCAN_MAX // limit + 1):
        records, _ = delivery_records.page(app.appId, PageQuery(page=number, limit=limit))
        for record in records:
            if clock.parse_iso(str(record["createdAt"])) < since:
                return retried
            if record["status"] == "failed" and delivery_records.retry(DeliveryRecord.from_item(record), url):
                retried.append(str(record["id"]))
        if len(records) < limit:
            break
    return retried


def public_key(app: App) -> PublicKey:
    current = signing_keys.app_key(app.appId)
    older = [signing_keys.app_key(app.appId, seed) for seed in signing_keys.previous()]
    return PublicKey(
        publicKey=base64.b64encode(current.public_key()).decode(),
        keyId=current.key_id,
        previous=[PreviousKey(publicKey=base64.b64encode(k.public_key()).decode(), keyId=k.key_id) for k in older],
    )
