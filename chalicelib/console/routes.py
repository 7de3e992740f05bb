"""The audit log over the API (Family S): what the organization's console members (and the operator) changed."""

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
    summary="The organization's audit log, newest first",
    tag="Audit",
    guard=guards.signed_request,
    query=AuditLogQuery,
    response=AuditPage,
    description="Family S. Every state-changing action of the signing app's organization in the console (apps, "
    "secrets, webhooks, members) and the operator's invites: who (`actor`), what (`action`, `target`), when "
    "(`at`) and from where (`sourceIp`, `userAgent`). Query `page` (from 1) and `limit` (default 50, at most "
    "100); the answer is `{data, pagination}`.",
)
def audit_log(call: Call) -> Reply:
    return Reply(audit.page(call.principal.organizationId, call.query))
