"""Webhook settings (validated against SSRF, platform/egress.py), the test event, deliveries, public key."""

from __future__ import annotations

import base64
import uuid

from chalicelib.platform import deadline, egress, outbox, unit_of_work
from chalicelib.platform.clock import iso_now
from chalicelib.platform.errors import bad_request, conflict, not_found
from chalicelib.platform.pagination import PageQuery, pagination
from chalicelib.platform.unit_of_work import Event, Plan
from chalicelib.tenancy.models import App
from chalicelib.webhooks import delivery, signing_keys, store
from chalicelib.webhooks.models import (
    Delivery,
    DeliveryPage,
    PreviousKey,
    PublicKey,
    TestEventQueued,
    WebhookSettings,
)

LOOKUP_TIMEOUT_S = 5.0  # resolving the URL's host when it is saved


def settings(app: App) -> WebhookSettings:
    item = store.get(app.appId)
    if item is None:
        return WebhookSettings(url=None, enabled=False, updatedAt=None)
    return WebhookSettings(url=item["url"], enabled=True, updatedAt=item["updatedAt"])


def set_url(app: App, url: str) -> WebhookSettings:
    try:
        target = egress.allowed_target(url, timeout_s=deadline.timeout_s(LOOKUP_TIMEOUT_S, "webhook host lookup"))
    except egress.UrlRefused as exc:
        raise bad_request(
            exc.code, f"url refused: {exc.reason}", errors=[{"field": "url", "message": exc.reason}]
        ) from None
    store.put(app.appId, target.url, iso_now())
    return settings(app)


def delete(app: App) -> None:
    store.delete(app.appId)


WEBHOOK_NOT_CONFIGURED = "WEBHOOK_NOT_CONFIGURED"
DELIVERY_NOT_FOUND = "DELIVERY_NOT_FOUND"
DELIVERY_NOT_FAILED = "DELIVERY_NOT_FAILED"


def queue_test_event(app: App) -> TestEventQueued:
    if store.get(app.appId) is None:
        raise conflict(WEBHOOK_NOT_CONFIGURED, "Set a webhook URL first (PUT /api/v1/webhooks/settings)")
    event_id = str(uuid.uuid4())
    data = {"appId": app.appId, "message": "This is a test event from Dompet."}
    emitted = unit_of_work.commit(Plan(event=Event(app.appId, "webhook.test", event_id, data)))
    if emitted is None or emitted.delivery_id is None:  # the URL was deleted between the check and the emit
        raise conflict(WEBHOOK_NOT_CONFIGURED, "Set a webhook URL first (PUT /api/v1/webhooks/settings)")
    return TestEventQueued(id=event_id, deliveryId=emitted.delivery_id)


def deliveries(app: App, query: PageQuery) -> DeliveryPage:
    records, total = outbox.page(app.appId, query)
    return DeliveryPage(data=[Delivery.model_validate(r) for r in records], pagination=pagination(total, query))


def retry_delivery(app: App, delivery_id: str) -> Delivery:
    record = outbox.get_delivery(delivery_id)
    if record is None or record["appId"] != app.appId:
        raise not_found(DELIVERY_NOT_FOUND, "No delivery with this id for this app")
    if not delivery.retry(delivery_id):
        raise conflict(DELIVERY_NOT_FAILED, "Only a failed delivery can be retried")
    return Delivery.model_validate(outbox.get_delivery(delivery_id))


def public_key(app: App) -> PublicKey:
    current = signing_keys.app_key(app.appId)
    older = [signing_keys.app_key(app.appId, seed) for seed in signing_keys.previous()]
    return PublicKey(
        publicKey=base64.b64encode(current.public_key()).decode(),
        keyId=current.key_id,
        previous=[PreviousKey(publicKey=base64.b64encode(k.public_key()).decode(), keyId=k.key_id) for k in older],
    )
