"""The organization's audit log: one entry per state-changing console action (and per operator invite), appended
in the same transaction as the change it records, so no change goes unrecorded and no entry exists without it."""

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
    return store.audit_list(origin.organization_id), record.model_dump(mode="json")


def page(organization_id: str, query: PageQuery) -> AuditPage:
    items, total = store.audit_list(organization_id).page(query)
    fields = AuditEntry.model_fields
    return AuditPage(
        data=[AuditEntry.model_validate({k: v for k, v in i.items() if k in fields}) for i in items],
        pagination=pagination(total, query),
    )
