"""The audit log over the API (Family S): what the organization's console members changed about the signing app."""

from __future__ import annotations

from chalice import Blueprint

from chalicelib.auth import guards
from chalicelib.console import audit
from chalicelib.console.models import AuditPage
from chalicelib.platform.pagination import page_query
from chalicelib.platform.router import Call, Reply, route

bp = Blueprint(__name__)

AuditLogQuery = page_query(50)


@route(
    bp,
    "/api/v1/audit-log",
    "GET",
    summary="The signing app's audit log, newest first",
    tag="Audit",
    guard=guards.signed_request,
    query=AuditLogQuery,
    response=AuditPage,
    description="Family S. What members of the organization changed in the console about the signing app (the "
    "app, its secret, its webhooks and deliveries): who (`actor.kind`, `actor.userId`), what (`action`, `target`), "
    "when (`at`). Members' emails, source addresses and browsers (`actor.email`, `sourceIp`, `userAgent`: null "
    "here), and the organization's other entries (members, clients, other apps), are for the console's admins. "
    "Query `page` (from 1) and `limit` (default 50, at most 100); the answer is `{data, pagination}`.",
)
def audit_log(call: Call) -> Reply:
    app = call.principal
    return Reply(audit.app_page(app.organizationId, app.appId, call.query))
