"""Console users, sessions, invites and the audit log; the forms the console's pages post."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from pydantic import ConfigDict, Field, field_validator

from chalicelib.platform.pagination import Pagination
from chalicelib.platform.wire import WireModel


class Role(StrEnum):
    """What a member may do: a viewer reads; a developer also manages apps, secrets and webhooks; an admin also
    manages the team and reads the audit log."""

    VIEWER = "viewer"
    DEVELOPER = "developer"
    ADMIN = "admin"

    def allows(self, needed: Role) -> bool:
        order = (Role.VIEWER, Role.DEVELOPER, Role.ADMIN)
        return order.index(self) >= order.index(needed)


EMAIL_PATTERN = r"^[^@\s]{1,64}@[^@\s]{1,253}\.[^@\s.]{2,63}$"
PASSWORD_MIN = 12
PASSWORD_MAX = 128


class ConsoleUser(WireModel):
    userId: str
    email: str
    organizationId: str
    role: Role
    createdAt: str
    totpEnabled: bool = False


@dataclass(frozen=True)
class Session:
    """A signed-in browser: `stage` "totp" while the second factor is still owed (nothing but the code is
    accepted then)."""

    token_hash: str
    user_id: str
    email: str
    organization_id: str
    csrf: str
    created_at: int
    seen_at: int
    absolute_until: int
    stage: str


class Invite(WireModel):
    inviteId: str
    organizationId: str
    email: str | None = None
    role: Role
    invitedBy: str
    createdAt: str
    expiresAt: str
    usedAt: str | None = None


class Actor(WireModel):
    """Who changed something: a console user, or the operator's admin command."""

    kind: str = Field(description="`console_user` or `operator`.", examples=["console_user"])
    userId: str | None = Field(None, examples=["5c0f6a8e-2b1d-4e3f-9a7c-1d2e3f4a5b6c"])
    email: str | None = Field(None, examples=["ana@example.com"])


class AuditEntry(WireModel):
    id: str = Field(examples=["0b7c1e9e-61f4-4a55-9a3e-3c1f0e2a9d11"])
    at: str = Field(examples=["2026-11-28T09:15:02.120Z"])
    actor: Actor
    action: str = Field(
        description="What was done, e.g. `app.created`, `webhook.url_set`, `member.invited`.",
        examples=["app.secret_rotated"],
    )
    target: dict[str, str] = Field(
        description="What it was done to: `type` and `id`.",
        examples=[{"type": "app", "id": "6f1c3c0e-8d3e-4a7b-9c43-0d6f3f7e8a21"}],
    )
    sourceIp: str | None = Field(None, examples=["203.0.113.7"])
    userAgent: str | None = Field(None, examples=["Mozilla/5.0"])
    details: dict[str, Any] = Field(default_factory=dict)


class AuditPage(WireModel):
    example_overrides = {"pagination": {"limit": 50}}

    data: list[AuditEntry]
    pagination: Pagination


# --- forms -----------------------------------------------------------------------------------------------------


class _Form(WireModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=False)


class _Email(_Form):
    email: str = Field(min_length=3, max_length=320, pattern=EMAIL_PATTERN)

    @field_validator("email")
    @classmethod
    def _lower(cls, value: str) -> str:
        return value.strip().lower()


class LoginForm(_Email):
    password: str = Field(min_length=1, max_length=PASSWORD_MAX)


class TotpForm(_Form):
    code: str = Field(pattern=r"^[0-9]{6}$")


class NewPasswordForm(_Form):
    email: str | None = Field(
        None, max_length=320, pattern=EMAIL_PATTERN, description="Only for an invite without one."
    )
    password: str = Field(min_length=PASSWORD_MIN, max_length=PASSWORD_MAX)
    passwordConfirm: str = Field(min_length=1, max_length=PASSWORD_MAX)

    @field_validator("email", mode="before")
    @classmethod
    def _blank(cls, value: object) -> object:
        return value.strip().lower() or None if isinstance(value, str) else value


class InviteForm(_Email):
    role: Role


class RoleForm(_Form):
    role: Role


class NameForm(_Form):
    name: str = Field(min_length=1, max_length=80, pattern=r"^[^\x00-\x1f\x7f]+$")


class CreateAppForm(NameForm):
    clientId: str = Field(pattern=r"^[0-9a-f-]{36}$")


class SinceForm(_Form):
    since: str = Field(description="A date-time (ISO 8601, UTC when no offset)", min_length=10, max_length=40)
