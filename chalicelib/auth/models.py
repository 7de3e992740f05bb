"""Request and response bodies of the auth routes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from chalicelib.auth.tokens import Claims
from chalicelib.auth.users import User
from chalicelib.tenancy.models import Client


@dataclass(frozen=True)
class WalletPrincipal:
    """Who a Family W request comes from: the client (by its secret), the token and its user."""

    client: Client
    claims: Claims
    user: User

    def idempotency_scope(self) -> str:
        """platform/idempotency.py's Scoped: a user of a client."""
        return f"W#{self.client.clientId}#{self.user.userId}"


class LoginRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    subId: str = Field(
        min_length=1,
        max_length=128,
        pattern=r"^[\x21-\x7e]+$",
        description="The client's own identifier of its user (printable ASCII, no spaces); "
        "the client's backend vouches for it.",
    )


class RefreshRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    refreshToken: str = Field(min_length=1, max_length=256)


def _absent(value: object) -> bool:
    return value is None


class TokenPair(BaseModel):
    """`accessToken` for a user without a wallet, `walletToken` once the wallet exists; never both."""

    isWalletCreated: bool
    accessToken: str | None = Field(None, exclude_if=_absent, description="Present while the user has no wallet.")
    walletToken: str | None = Field(None, exclude_if=_absent, description="Present once the user has a wallet.")
    refreshToken: str
    expiresAt: str = Field(description="Expiry of the access or wallet token (UTC, RFC 3339).")


class SessionInfo(BaseModel):
    userId: str
    clientId: str
    subId: str
    tokenType: Literal["access", "wallet"]
    expiresAt: str
    isWalletCreated: bool
    address: str | None = Field(description="The wallet address, null while the user has no wallet.")


class WhoAmI(BaseModel):
    appId: str
    clientId: str
    organizationId: str
