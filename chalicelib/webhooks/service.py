"""Webhook settings: validated against SSRF before they are stored (platform/egress.py)."""

from __future__ import annotations

from chalicelib.platform import egress
from chalicelib.platform.clock import iso_now
from chalicelib.platform.errors import bad_request
from chalicelib.tenancy.models import App
from chalicelib.webhooks import store
from chalicelib.webhooks.models import WebhookSettings


def settings(app: App) -> WebhookSettings:
    item = store.get(app.appId)
    if item is None:
        return WebhookSettings(url=None, enabled=False, updatedAt=None)
    return WebhookSettings(url=item["url"], enabled=True, updatedAt=item["updatedAt"])


def set_url(app: App, url: str) -> WebhookSettings:
    try:
        target = egress.check(url)
    except egress.UrlRefused as exc:
        raise bad_request(
            exc.code, f"url refused: {exc.reason}", errors=[{"field": "url", "message": exc.reason}]
        ) from None
    store.put(app.appId, target.url, iso_now())
    return settings(app)


def delete(app: App) -> None:
    store.delete(app.appId)
