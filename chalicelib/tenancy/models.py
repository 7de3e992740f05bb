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


class IssuedCredentials(BaseModel):
    """Printed once by the admin command; secrets are not recoverable afterwards."""

    organizationId: str
    clientId: str | None = None
    clientSecret: str | None = None
    appId: str | None = None
    appSecret: str | None = None
