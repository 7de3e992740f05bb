"""The console's pages: sign-in and invites, apps and clients, webhooks, the team, the audit log, the member's own
account. Read-only views of wallets, smart accounts, user operations, custody and policies are in views.py."""

from __future__ import annotations

from datetime import UTC, datetime

from chalice import Blueprint, Response

from chalicelib.console import accounts, apps, audit, web
from chalicelib.console.models import (
    CreateAppForm,
    InviteForm,
    LoginForm,
    NameForm,
    NewPasswordForm,
    Role,
    RoleForm,
    SinceForm,
    TotpForm,
)
from chalicelib.console.web import Html, PageCall, Redirect, page
from chalicelib.platform import errors
from chalicelib.platform.pagination import page_query
from chalicelib.platform.path_ids import PathId
from chalicelib.platform.router import document_route
from chalicelib.platform.settings import load_settings
from chalicelib.system import assets
from chalicelib.system.routes import ASSET_NAME
from chalicelib.webhooks import service as webhooks
from chalicelib.webhooks.models import WebhookSettingsRequest
from chalicelib.webhooks.routes import DELIVERY_ID

bp = Blueprint(__name__)

ASSETS_PATH = "/console/assets/{name}"
# What each id in a page's path is answered when it cannot be one: the page's own not-found answer.
APP_ID = PathId(apps.APP_NOT_FOUND, "No such app in this organization")
CLIENT_ID = PathId(apps.CLIENT_NOT_FOUND, "No such client in this organization")
MEMBER_ID = PathId(accounts.MEMBER_NOT_FOUND, "No such member in this organization")
INVITE_TOKEN = PathId(accounts.INVITE_NOT_FOUND, "This invite link is not valid")


@document_route(bp, ASSETS_PATH, {"name": ASSET_NAME})
def console_asset(name: str) -> Response:
    return assets.response(name)


@page(bp, "/console")
def home(call: PageCall) -> Redirect:
    return Redirect(call.url("/console/apps"))


# --- sign-in, second factor, sign-out, invites -------------------------------------------------------------------


@page(bp, "/console/login", role=None)
def login_form(call: PageCall) -> Html:
    token, cookies = web.form_cookies(call)
    return Html("login.html", {"form_token": token}, 200, cookies)


@page(bp, "/console/login", ("POST",), role=None, form=LoginForm, error_template="login.html")
def login(call: PageCall) -> Html | Redirect:
    form: LoginForm = call.form
    signed_in = accounts.login(form.email, form.password, web.source_ip(call.request), web.user_agent(call.request))
    target = "/console/login/totp" if signed_in.totp_owed else "/console/apps"
    return Redirect(call.url(target), web.session_cookie(call, signed_in.token))


@page(bp, "/console/login/totp", role=Role.VIEWER, stage=accounts.TOTP_OWED)
def totp_form(call: PageCall) -> Html:
    return call.view("totp.html")


@page(
    bp,
    "/console/login/totp",
    ("POST",),
    role=Role.VIEWER,
    stage=accounts.TOTP_OWED,
    form=TotpForm,
    error_template="totp.html",
)
def totp(call: PageCall) -> Redirect:
    assert call.session is not None
    token = accounts.second_factor(
        call.session, call.form.code, web.source_ip(call.request), web.user_agent(call.request)
    )
    return Redirect(call.url("/console/apps"), web.session_cookie(call, token))


@page(bp, "/console/logout", ("POST",))
def logout(call: PageCall) -> Redirect:
    assert call.session is not None
    accounts.logout(call.origin, call.session)
    return Redirect(call.url("/console/login"), web.cleared_session(call))


@page(bp, "/console/invite/{token}", role=None, ids={"token": INVITE_TOKEN})
def invite_form(call: PageCall) -> Html:
    found = accounts.invite_for(call.path_params["token"])
    token, cookies = web.form_cookies(call)
    return Html("invite.html", {"invite": found, "form_token": token}, 200, cookies)


@page(bp, "/console/invite/{token}", ("POST",), role=None, form=NewPasswordForm, ids={"token": INVITE_TOKEN})
def accept_invite(call: PageCall) -> Redirect:
    form: NewPasswordForm = call.form
    session_token = accounts.accept_invite(
        call.path_params["token"],
        form.email,
        form.password,
        form.passwordConfirm,
        web.source_ip(call.request),
        web.user_agent(call.request),
    )
    return Redirect(call.url("/console/apps"), web.session_cookie(call, session_token))


# --- apps and clients --------------------------------------------------------------------------------------------


def _apps_page(call: PageCall, status: int = 200, **shown: object) -> Html:
    return call.view("apps.html", status, groups=apps.overview(call.member.organizationId), **shown)


@page(bp, "/console/apps")
def apps_page(call: PageCall) -> Html:
    return _apps_page(call)


@page(bp, "/console/apps", ("POST",), role=Role.DEVELOPER, form=CreateAppForm)
def create_app(call: PageCall) -> Html:
    app, secret = apps.create_app(call.origin, call.form.clientId, call.form.name)
    return _apps_page(call, 201, created_app=app, app_secret=secret)


@page(bp, "/console/clients", ("POST",), role=Role.DEVELOPER, form=NameForm)
def create_client(call: PageCall) -> Html:
    client, secret = apps.create_client(call.origin, call.form.name)
    return _apps_page(call, 201, created_client=client, client_secret=secret)


@page(bp, "/console/apps/{appId}/rotate-secret", ("POST",), role=Role.DEVELOPER, ids={"appId": APP_ID})
def rotate_app_secret(call: PageCall) -> Html:
    app, secret = apps.rotate_app_secret(call.origin, call.path_params["appId"])
    return _apps_page(call, rotated_app=app, app_secret=secret)


@page(bp, "/console/clients/{clientId}/rotate-secret", ("POST",), role=Role.DEVELOPER, ids={"clientId": CLIENT_ID})
def rotate_client_secret(call: PageCall) -> Html:
    client, secret = apps.rotate_client_secret(call.origin, call.path_params["clientId"])
    return _apps_page(call, rotated_client=client, client_secret=secret)


@page(bp, "/console/apps/{appId}/disable", ("POST",), role=Role.ADMIN, ids={"appId": APP_ID})
def disable_app(call: PageCall) -> Redirect:
    apps.set_app_disabled(call.origin, call.path_params["appId"], True)
    return Redirect(call.url("/console/apps"))


@page(bp, "/console/apps/{appId}/enable", ("POST",), role=Role.ADMIN, ids={"appId": APP_ID})
def enable_app(call: PageCall) -> Redirect:
    apps.set_app_disabled(call.origin, call.path_params["appId"], False)
    return Redirect(call.url("/console/apps"))


# --- webhooks ----------------------------------------------------------------------------------------------------

DeliveriesQuery = page_query(20)


def _webhooks_page(call: PageCall, status: int = 200, **shown: object) -> Html:
    app = apps.app_in(call.member.organizationId, call.path_params["appId"])
    query = web.parsed_query(call, DeliveriesQuery)
    return call.view(
        "webhooks.html",
        status,
        app=app,
        settings=webhooks.settings(app),
        deliveries=webhooks.deliveries(app, query),
        public_key=webhooks.public_key(app),
        **shown,
    )


@page(bp, "/console/apps/{appId}/webhooks", ids={"appId": APP_ID})
def webhooks_page(call: PageCall) -> Html:
    return _webhooks_page(call)


@page(bp, "/console/apps/{appId}/webhooks/deliveries", ids={"appId": APP_ID})
def deliveries_fragment(call: PageCall) -> Html:
    app = apps.app_in(call.member.organizationId, call.path_params["appId"])
    listed = webhooks.deliveries(app, web.parsed_query(call, DeliveriesQuery))
    return call.view("deliveries.html", app=app, deliveries=listed)


@page(
    bp,
    "/console/apps/{appId}/webhooks",
    ("POST",),
    role=Role.DEVELOPER,
    form=WebhookSettingsRequest,
    ids={"appId": APP_ID},
)
def set_webhook_url(call: PageCall) -> Redirect:
    apps.set_webhook_url(call.origin, call.path_params["appId"], call.form.url)
    return Redirect(call.url(f"/console/apps/{call.path_params['appId']}/webhooks"))


@page(bp, "/console/apps/{appId}/webhooks/enable", ("POST",), role=Role.DEVELOPER, ids={"appId": APP_ID})
def enable_webhooks(call: PageCall) -> Redirect:
    apps.set_webhooks_enabled(call.origin, call.path_params["appId"], True)
    return Redirect(call.url(f"/console/apps/{call.path_params['appId']}/webhooks"))


@page(bp, "/console/apps/{appId}/webhooks/disable", ("POST",), role=Role.DEVELOPER, ids={"appId": APP_ID})
def disable_webhooks(call: PageCall) -> Redirect:
    apps.set_webhooks_enabled(call.origin, call.path_params["appId"], False)
    return Redirect(call.url(f"/console/apps/{call.path_params['appId']}/webhooks"))


@page(bp, "/console/apps/{appId}/webhooks/test", ("POST",), role=Role.DEVELOPER, ids={"appId": APP_ID})
def send_test(call: PageCall) -> Redirect:
    delivery_id = apps.send_test(call.origin, call.path_params["appId"])
    return Redirect(call.url(f"/console/apps/{call.path_params['appId']}/webhooks?queued={delivery_id}"))


@page(bp, "/console/apps/{appId}/webhooks/deliveries/{deliveryId}", ids={"appId": APP_ID, "deliveryId": DELIVERY_ID})
def delivery_page(call: PageCall) -> Html:
    app = apps.app_in(call.member.organizationId, call.path_params["appId"])
    delivery, body = webhooks.delivery_detail(app, call.path_params["deliveryId"])
    return call.view("delivery.html", app=app, delivery=delivery, body=body)


@page(
    bp,
    "/console/apps/{appId}/webhooks/deliveries/{deliveryId}/replay",
    ("POST",),
    role=Role.DEVELOPER,
    ids={"appId": APP_ID, "deliveryId": DELIVERY_ID},
)
def replay(call: PageCall) -> Redirect:
    replayed = apps.replay(call.origin, call.path_params["appId"], call.path_params["deliveryId"])
    return Redirect(call.url(f"/console/apps/{call.path_params['appId']}/webhooks/deliveries/{replayed.id}"))


@page(
    bp,
    "/console/apps/{appId}/webhooks/retry-failed",
    ("POST",),
    role=Role.DEVELOPER,
    form=SinceForm,
    ids={"appId": APP_ID},
)
def retry_failed(call: PageCall) -> Html:
    since = _moment(call.form.since)
    retried = apps.retry_failed_since(call.origin, call.path_params["appId"], since)
    return _webhooks_page(call, retried=retried)


def _moment(text: str) -> datetime:
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise errors.bad_request(errors.VALIDATION_ERROR, "since must be a date or date-time", field="since") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


# --- the team, the audit log, the member's account ---------------------------------------------------------------


def _team_page(call: PageCall, status: int = 200, **shown: object) -> Html:
    org = call.member.organizationId
    return call.view(
        "team.html",
        status,
        members=accounts.members(org),
        invites=accounts.open_invites(org),
        roles=list(Role),
        **shown,
    )


@page(bp, "/console/team")
def team_page(call: PageCall) -> Html:
    return _team_page(call)


@page(bp, "/console/team/invites", ("POST",), role=Role.ADMIN, form=InviteForm)
def invite(call: PageCall) -> Html:
    created, token = accounts.invite(call.origin, call.form.email, call.form.role)
    return _team_page(call, 201, invite_link=_invite_link(call, token), invited=created)


def _invite_link(call: PageCall, token: str) -> str:
    """The console's public base (DOMPET_CONSOLE_URL) when set, else the origin the admin's browser used."""
    configured = load_settings().console_url.rstrip("/")
    if configured:
        return f"{configured}/console/invite/{token}"
    host = str(call.request.headers.get("host", ""))
    scheme = "http" if not web.is_secure(call.request) else "https"
    return f"{scheme}://{host}{call.url('/console/invite/' + token)}"


@page(bp, "/console/team/{userId}/role", ("POST",), role=Role.ADMIN, form=RoleForm, ids={"userId": MEMBER_ID})
def set_role(call: PageCall) -> Redirect:
    accounts.set_role(call.origin, call.path_params["userId"], call.form.role)
    return Redirect(call.url("/console/team"))


@page(bp, "/console/team/{userId}/remove", ("POST",), role=Role.ADMIN, ids={"userId": MEMBER_ID})
def remove_member(call: PageCall) -> Redirect:
    accounts.remove(call.origin, call.path_params["userId"])
    return Redirect(call.url("/console/team"))


AuditQuery = page_query(50)


@page(bp, "/console/audit", role=Role.ADMIN)
def audit_page(call: PageCall) -> Html:
    listed = audit.page(call.member.organizationId, web.parsed_query(call, AuditQuery))
    return call.view("audit.html", entries=listed)


@page(bp, "/console/account")
def account_page(call: PageCall) -> Html:
    return call.view("account.html")


@page(bp, "/console/account/totp", ("POST",))
def start_totp(call: PageCall) -> Html:
    secret, uri = accounts.start_totp(call.member)
    return call.view("account.html", totp_secret=secret, totp_uri=uri)


@page(bp, "/console/account/totp/confirm", ("POST",), form=TotpForm, error_template="account.html")
def confirm_totp(call: PageCall) -> Redirect:
    accounts.confirm_totp(call.origin, call.member, call.form.code)
    return Redirect(call.url("/console/account?totp=on"))
