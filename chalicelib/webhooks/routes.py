"""Webhook routes of the interface's third group (Family S, signed requests)."""

from __future__ import annotations

from chalice import Blueprint

from chalicelib.auth import guards
from chalicelib.platform.http import Call, Reply, route
from chalicelib.webhooks import service
from chalicelib.webhooks.models import Deleted, WebhookSettings, WebhookSettingsRequest

bp = Blueprint(__name__)


@route(
    bp,
    "/api/v1/webhooks/settings",
    "GET",
    summary="The app's webhook endpoint",
    tag="Webhooks",
    guard=guards.signed_request,
    response=WebhookSettings,
)
def get_settings(call: Call) -> Reply:
    return Reply(service.settings(call.principal))


@route(
    bp,
    "/api/v1/webhooks/settings",
    "PUT",
    summary="Register the app's webhook endpoint",
    description="An https URL whose host resolves only to public addresses (no private, loopback, link-local, "
    "multicast or cloud-metadata ones).",
    tag="Webhooks",
    guard=guards.signed_request,
    body=WebhookSettingsRequest,
    response=WebhookSettings,
    message="webhook settings saved",
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
)
def delete_settings(call: Call) -> Reply:
    service.delete(call.principal)
    return Reply(Deleted())
