"""The console's use cases over clients, apps and their webhooks: each checks that what it touches belongs to the
member's organization (another organization's id is 404, as if it did not exist), calls the service the API
uses, and logs the change in the same transaction."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from chalicelib.console import audit
from chalicelib.console.audit import Origin
from chalicelib.platform import unit_of_work
from chalicelib.platform.errors import conflict, not_found
from chalicelib.platform.unit_of_work import Plan
from chalicelib.tenancy import service as tenancy
from chalicelib.tenancy import store as tenancy_store
from chalicelib.tenancy.models import App, Client
from chalicelib.webhooks import service as webhooks
from chalicelib.webhooks.models import Delivery, WebhookSettings

APP_NOT_FOUND = "APP_NOT_FOUND"
CLIENT_NOT_FOUND = "CLIENT_NOT_FOUND"
CHANGED_MEANWHILE = "CHANGED_MEANWHILE"


@dataclass(frozen=True)
class ClientApps:
    client: Client
    apps: list[App]


def overview(organization_id: str) -> list[ClientApps]:
    clients = tenancy_store.clients_of(organization_id)
    apps = tenancy_store.apps_of([c.clientId for c in clients])
    return [ClientApps(c, [a for a in apps if a.clientId == c.clientId]) for c in clients]


def apps(organization_id: str) -> list[App]:
    return [app for group in overview(organization_id) for app in group.apps]


def app_in(organization_id: str, app_id: str) -> App:
    found = tenancy_store.get_app(app_id) if len(app_id) <= 64 else None
    if found is None or found[0].organizationId != organization_id:
        raise not_found(APP_NOT_FOUND, "No such app in this organization")
    return found[0]


def client_in(organization_id: str, client_id: str) -> Client:
    found = tenancy_store.get_client(client_id) if len(client_id) <= 64 else None
    if found is None or found.organizationId != organization_id:
        raise not_found(CLIENT_NOT_FOUND, "No such client in this organization")
    return found


def create_client(origin: Origin, name: str) -> tuple[Client, str]:
    """A new client of the organization; its secret is returned once."""
    return tenancy.create_client(
        origin.organization_id,
        name,
        also=lambda c: [audit.entry(origin, "client.created", "client", c.clientId, name=name)],
    )


def create_app(origin: Origin, client_id: str, name: str) -> tuple[App, str]:
    """A new app of one of the organization's clients; its secret is returned once."""
    client = client_in(origin.organization_id, client_id)
    return tenancy.create_app(
        client.clientId,
        name,
        also=lambda a: audit.app_entries(
            origin, a.appId, "app.created", "app", a.appId, name=name, clientId=client.clientId
        ),
    )


def rotate_app_secret(origin: Origin, app_id: str) -> tuple[App, str]:
    app = app_in(origin.organization_id, app_id)
    try:
        logged = audit.app_entries(origin, app.appId, "app.secret_rotated", "app", app.appId)
        return tenancy.rotate_app_secret(app.appId, also=logged)
    except tenancy.TenancyError as exc:
        raise conflict(CHANGED_MEANWHILE, str(exc)) from None


def rotate_client_secret(origin: Origin, client_id: str) -> tuple[Client, str]:
    client = client_in(origin.organization_id, client_id)
    logged = audit.entry(origin, "client.secret_rotated", "client", client.clientId)
    try:
        return tenancy.rotate_client_secret(client.clientId, also=[logged])
    except tenancy.TenancyError as exc:
        raise conflict(CHANGED_MEANWHILE, str(exc)) from None


def set_app_disabled(origin: Origin, app_id: str, disabled: bool) -> App:
    app = app_in(origin.organization_id, app_id)
    action = "app.disabled" if disabled else "app.enabled"
    return tenancy.set_app_disabled(
        app.appId, disabled, also=audit.app_entries(origin, app.appId, action, "app", app.appId)
    )


# --- webhooks --------------------------------------------------------------------------------------------------


def set_webhook_url(origin: Origin, app_id: str, url: str) -> WebhookSettings:
    app = app_in(origin.organization_id, app_id)
    logged = audit.app_entries(origin, app.appId, "webhook.url_set", "app", app.appId, url=url)
    return webhooks.set_url(app, url, also=logged)


def set_webhooks_enabled(origin: Origin, app_id: str, enabled: bool) -> WebhookSettings:
    app = app_in(origin.organization_id, app_id)
    action = "webhook.enabled" if enabled else "webhook.disabled"
    return webhooks.set_enabled(app, enabled, also=audit.app_entries(origin, app.appId, action, "app", app.appId))


def send_test(origin: Origin, app_id: str) -> str:
    """Queue a webhook.test event; returns its delivery id. (Recorded in the deliveries log, which is its audit.)"""
    app = app_in(origin.organization_id, app_id)
    return webhooks.queue_test_event(app).deliveryId


def replay(origin: Origin, app_id: str, delivery_id: str) -> Delivery:
    app = app_in(origin.organization_id, app_id)
    logged = audit.app_entries(origin, app.appId, "webhook.delivery_replayed", "delivery", delivery_id)
    return webhooks.replay(app, delivery_id, also=logged)


def retry_failed_since(origin: Origin, app_id: str, since: datetime) -> list[str]:
    """Retry the app's failed deliveries since `since`; one audit entry names how many."""
    app = app_in(origin.organization_id, app_id)
    retried = webhooks.retry_failed_since(app, since)
    logged = audit.app_entries(
        origin, app.appId, "webhook.failed_retried", "app", app.appId, since=since.isoformat(), count=str(len(retried))
    )
    unit_of_work.commit(Plan(lists=logged))
    return retried
