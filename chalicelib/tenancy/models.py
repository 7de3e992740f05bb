"""Organization -> client -> app."""

from __future__ import annotations

from pydantic import BaseModel


class Organization(BaseModel):
    organizationId: str
    name: str
    createdAt: str


class Client(BaseModel):
    clientId: str
    organizationId: str
    name: str
    createdAt: str


class App(BaseModel):
    appId: str
    clientId: str
    organizationId: str
    name: str
    createdAt: str

    def idempotency_scope(self) -> str:
        """platform/idempotency.py's Scoped: an app of a client."""
        return f"S#{self.clientId}#{self.appId}"


class IssuedCredentials(BaseModel):
    """Printed once by the admin command; secrets are not recoverable afterwards."""

    organizationId: str
    clientId: str | None = None
    clientSecret: str | None = None
    appId: str | None = None
    appSecret: str | None = None
