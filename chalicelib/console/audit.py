"""The organization's audit log: one entry per state-changing console action (and per operator invite), appended
in the same transaction as the change it records, so no change goes unrecorded and no entry exists without it.

An entry about one app (the app itself, its secret, its webhooks and deliveries) is also appended to that app's own
list. The console's admins read the organization's whole log; an app's secret (`GET /api/v1/audit-log`) reads its
app's list without the members' personal data (email, address, browser): an app secret is a server credential of
one integration, not a person with a role (docs/console.md, "The audit log")."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from chalicelib.console import store
from chalicelib.console.models import Actor, AuditEntry, AuditPage
from chalicelib.console.store import Appended
from chalicelib.platform.clock import iso_now
from chalicelib.platform.pagination import PageQuery, pagination

MAX_DETAIL = 300  # characters of one detail value kept


@dataclass(frozen=True)
class Origin:
    """Who acts and from where: recorded with every change they make."""

    organization_id: str
    actor: Actor
    source_ip: str | None = None
    user_agent: str | None = None


def operator(organization_id: str) -> Origin:
    return Origin(organization_id, Actor(kind="operator"))


def entry(origin: Origin, action: str, target_type: str, target_id: str, **details: Any) -> Appended:
    """The list record (plan `lists`) that logs `action` on the target."""
    return store.audit_list(origin.organization_id), _record(origin, action, target_type, target_id, details)


def app_entries(
    origin: Origin, app_id: str, action: str, target_type: str, target_id: str, **details: Any
) -> list[Appended]:
    """The list records that log `action`, about app `app_id`, in the organization's log and in the app's."""
    record = _record(origin, action, target_type, target_id, details)
    return [
        (store.audit_list(origin.organization_id), record),
        (store.app_audit_list(origin.organization_id, app_id), record),
    ]


def _record(origin: Origin, action: str, target_type: str, target_id: str, details: dict[str, Any]) -> dict[str, Any]:
    record = AuditEntry(
        id=str(uuid.uuid4()),
        at=iso_now(),
        actor=origin.actor,
        action=action,
        target={"type": target_type, "id": target_id},
        sourceIp=origin.source_ip,
        userAgent=(origin.user_agent or "")[:MAX_DETAIL] or None,
        details={k: v if not isinstance(v, str) else v[:MAX_DETAIL] for k, v in details.items()},
    )
    return record.model_dump(mode="json")


def page(organization_id: str, query: PageQuery) -> AuditPage:
    """The organization's whole log, as an admin reads it in the console."""
    items, total = store.audit_list(organization_id).page(query)
    return AuditPage(data=[_entry_of(i) for i in items], pagination=pagination(total, query))


PERSONAL_DETAILS = frozenset({"email"})  # a member's email named in an entry's details (invites, role changes)


def app_page(organization_id: str, app_id: str, query: PageQuery) -> AuditPage:
    """The entries about one app, without the members' personal data: who acted is their id (`actor.userId`) only,
    and `sourceIp`, `userAgent` and emails are left out."""
    items, total = store.app_audit_list(organization_id, app_id).page(query)
    entries = [_entry_of(i) for i in items]
    return AuditPage(
        data=[
            e.model_copy(
                update={
                    "actor": Actor(kind=e.actor.kind, userId=e.actor.userId),
                    "sourceIp": None,
                    "userAgent": None,
                    "details": {k: v for k, v in e.details.items() if k not in PERSONAL_DETAILS},
                }
            )
            for e in entries
        ],
        pagination=pagination(total, query),
    )


def _entry_of(item: dict[str, Any]) -> AuditEntry:
    return AuditEntry.model_validate({k: v for k, v in item.items() if k in AuditEntry.model_fields})
