"""Webhook routes of the interface's third group (Family S, signed requests)."""

from __future__ import annotations

from chalice import Blueprint

from chalicelib.auth import guards
from chalicelib.platform.pagination import page_query
from chalicelib.platform.path_ids import PathId
from chalicelib.platform.router import Call, Reply, route
from chalicelib.webhooks import service
from chalicelib.webhooks.models import (
    Deleted,
    Delivery,
    DeliveryPage,
    PublicKey,
    TestEventQueued,
    WebhookSettings,
    WebhookSettingsRequest,
)

bp = Blueprint(__name__)
DELIVERY_ID = PathId(service.DELIVERY_NOT_FOUND, "No delivery with this id for this app")


@route(
    bp,
    "/api/v1/webhooks/settings",
    "GET",
    summary="The app's webhook endpoint",
    tag="Webhooks",
    guard=guards.signed_request,
    response=WebhookSettings,
    description="Family S. The app's webhook URL, whether deliveries are enabled, and when it last changed (`url` "
    "null while none is set).",
)
def get_settings(call: Call) -> Reply:
    return Reply(service.settings(call.principal))


@route(
    bp,
    "/api/v1/webhooks/settings",
    "PUT",
    summary="Register the app's webhook endpoint",
    description="An https URL whose host resolves only to public addresses (no private, loopback, link-local, "
    "multicast or cloud-metadata ones). Registering a URL also resumes deliveries paused in the console.",
    tag="Webhooks",
    guard=guards.signed_request,
    body=WebhookSettingsRequest,
    response=WebhookSettings,
    message="webhook settings saved",
    errors={
        400: (
            "INVALID_WEBHOOK_URL",
            "WEBHOOK_HOST_UNRESOLVABLE",
            "WEBHOOK_URL_FORBIDDEN_ADDRESS",
            "WEBHOOK_URL_NOT_HTTPS",
        ),
        503: ("LIST_BUSY",),
    },
)
def put_settings(call: Call) -> Reply:
    return Reply(service.set_url(call.principal, call.body.url), "webhook settings saved")


@route(
    bp,
    "/api/v1/webhooks/settings",
    "DELETE",
    summary="Remove the app's webhook endpoint",
    tag="Webhooks",
    guard=guards.signed_request,
    response=Deleted,
    errors={503: ("LIST_BUSY",)},
    description="Family S. Stops new deliveries; deliveries already pending keep retrying the URL they were made "
    'for. Answers `{status: "ok"}`.',
)
def delete_settings(call: Call) -> Reply:
    service.delete(call.principal)
    return Reply(Deleted())


@route(
    bp,
    "/api/v1/webhooks/test",
    "POST",
    summary="Queue a webhook.test event to the configured URL",
    tag="Webhooks",
    guard=guards.signed_request,
    response=TestEventQueued,
    message="test event queued",
    errors={409: ("WEBHOOK_NOT_CONFIGURED", "WEBHOOK_PAUSED"), 503: ("LIST_BUSY",)},
    description="Family S. Queues a `webhook.test` event (its `id` a random UUID) to the configured URL and answers "
    "its event and delivery ids; `409 WEBHOOK_NOT_CONFIGURED` without a URL, `409 WEBHOOK_PAUSED` while "
    "deliveries are paused in the console.",
)
def send_test(call: Call) -> Reply:
    return Reply(service.queue_test_event(call.principal), "test event queued")


DeliveriesQuery = page_query(20)


@route(
    bp,
    "/api/v1/webhooks/deliveries",
    "GET",
    summary="Delivery records, newest first",
    tag="Webhooks",
    guard=guards.signed_request,
    query=DeliveriesQuery,
    response=DeliveryPage,
    description="Family S. Delivery records with their last attempts (status, response code, error, duration). "
    "`limit` defaults to 20, at most 100. Query `page` (from 1) and `limit`; the answer is `{data, "
    "pagination}` with `total`, `totalPages`, `hasNext`, `hasPrev`.",
)
def list_deliveries(call: Call) -> Reply:
    return Reply(service.deliveries(call.principal, call.query))


@route(
    bp,
    "/api/v1/webhooks/deliveries/{id}/retry",
    "POST",
    summary="Deliver a failed delivery again (same event id), from attempt 1",
    tag="Webhooks",
    guard=guards.signed_request,
    response=Delivery,
    message="delivery queued",
    errors={404: ("DELIVERY_NOT_FOUND",), 409: ("DELIVERY_NOT_FAILED", "WEBHOOK_NOT_CONFIGURED", "WEBHOOK_PAUSED")},
    ids={"id": DELIVERY_ID},
    description="Family S. Only a `failed` delivery: it is pending again, due now, with the same event id and "
    "attempts counted from 1, to the app's current URL; `409 WEBHOOK_NOT_CONFIGURED` without one, "
    "`409 WEBHOOK_PAUSED` while deliveries are paused in the console.",
)
def retry_delivery(call: Call) -> Reply:
    return Reply(service.retry_delivery(call.principal, call.path_params["id"]), "delivery queued")


@route(
    bp,
    "/api/v1/webhooks/public-key",
    "GET",
    summary="The app's Ed25519 public key for verifying deliveries",
    tag="Webhooks",
    guard=guards.signed_request,
    response=PublicKey,
    description="Family S. The app's Ed25519 public key (base64, 32 bytes) and its `keyId` (sent as "
    "`X-Service-Key-Id`), plus keys replaced less than 14 days ago. Verify each delivery's "
    "`X-Service-Signature` over `X-Service-Event-Id.X-Service-Timestamp.raw body`.",
)
def public_key(call: Call) -> Reply:
    return Reply(service.public_key(call.principal))
