"""Organization -> client -> app."""

from __future__ import annotations

from dataclasses import dataclass

from chalicelib.platform.wire import WireModel


class Organization(WireModel):
    organizationId: str
    name: str
    createdAt: str


class Client(WireModel):
    clientId: str
    organizationId: str
    name: str
    createdAt: str
    secretRotatedAt: str | None = None


class App(WireModel):
    appId: str
    clientId: str
    organizationId: str
    name: str
    createdAt: str
    secretRotatedAt: str | None = None
    disabledAt: str | None = None

    def idempotency_scope(self) -> str:
        """platform/idempotency.py's Scoped: an app of a client."""
        return f"S#{self.clientId}#{self.appId}"


class IssuedCredentials(WireModel):
    """Printed once by the admin command (and shown once by the console); secrets are not recoverable afterwards."""

    organizationId: str
    clientId: str | None = None
    clientSecret: str | None = None
    appId: str | None = None
    appSecret: str | None = None


@dataclass(frozen=True)
class AppSecrets:
    """An app with the secrets its requests may be signed with: the current one, and after a rotation the one it
    replaced until `previous_until` (Unix seconds)."""

    app: App
    secret: str
    previous: str | None = None
    previous_until: int | None = None

    def accepted(self, now: int) -> tuple[str, ...]:
        if self.previous is not None and self.previous_until is not None and now < self.previous_until:
            return (self.secret, self.previous)
        return (self.secret,)


@dataclass(frozen=True)
class ClientMatch:
    """A client found by a presented secret, and until when that secret is accepted (None: no end)."""

    client: Client
    valid_until: int | None = None
