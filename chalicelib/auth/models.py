"""Request and response bodies of the auth routes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import ConfigDict, Field

from chalicelib.auth.tokens import Claims
from chalicelib.auth.users import User
from chalicelib.platform.wire import WireModel
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


# Example values shared by several fields.
_EXAMPLE_REFRESH_TOKEN = "drt_Q2xpZW50IHJlZnJlc2ggdG9rZW4gZXhhbXBsZQ"
_EXAMPLE_EXPIRES_AT = "2026-11-22T09:00:00.000Z"
_EXAMPLE_CLIENT_ID = "5d9e2c1a-7b3f-4e8d-a6c2-1f0b9e8d7c6a"


class LoginRequest(WireModel):
    model_config = ConfigDict(extra="forbid")

    subId: str = Field(
        min_length=1,
        max_length=128,
        pattern=r"^[\x21-\x7e]+$",
        description="The client's own identifier of its user (printable ASCII, no spaces); "
        "the client's backend vouches for it.",
        examples=["user-42"],
    )


class RefreshRequest(WireModel):
    model_config = ConfigDict(extra="forbid")

    refreshToken: str = Field(min_length=1, max_length=256, examples=[_EXAMPLE_REFRESH_TOKEN])


def _absent(value: object) -> bool:
    return value is None


class TokenPair(WireModel):
    """`accessToken` for a user without a wallet, `walletToken` once the wallet exists; never both."""

    isWalletCreated: bool = Field(examples=[True])
    accessToken: str | None = Field(None, exclude_if=_absent, description="Present while the user has no wallet.")
    walletToken: str | None = Field(
        None,
        exclude_if=_absent,
        description="Present once the user has a wallet.",
        examples=[
            "eyJhbGciOiJFZERTQSIsImtpZCI6IjIwMjYxMTIyLWM2NzljNDVkIiwidHlwIjoiSldUIn0."
            "eyJpc3MiOiJkb21wZXQiLCJraW5kIjoid2FsbGV0In0.c2lnbmF0dXJl"
        ],
    )
    refreshToken: str = Field(examples=[_EXAMPLE_REFRESH_TOKEN])
    expiresAt: str = Field(
        description="Expiry of the access or wallet token (UTC, RFC 3339).", examples=[_EXAMPLE_EXPIRES_AT]
    )


class SessionInfo(WireModel):
    userId: str = Field(examples=["8c2b7e4a-1d3f-4a6b-9e8c-7d5f3a1b2c4e"])
    clientId: str = Field(examples=[_EXAMPLE_CLIENT_ID])
    subId: str = Field(examples=["user-42"])
    tokenType: Literal["access", "wallet"] = Field(examples=["wallet"])
    expiresAt: str = Field(examples=[_EXAMPLE_EXPIRES_AT])
    isWalletCreated: bool = Field(examples=[True])
    address: str | None = Field(
        description="The wallet address, null while the user has no wallet.",
        examples=["0x14723A09ACff6D2A60DcdF7aA4AFf308FDDC160C"],
    )


class WhoAmI(WireModel):
    appId: str = Field(examples=["0b7d5f3e-5a8c-4c1e-9d1a-2f6b8e4c7a10"])
    clientId: str = Field(examples=[_EXAMPLE_CLIENT_ID])
    organizationId: str = Field(examples=["a1f3c5e7-2b4d-4f6a-8c9e-0d1b2c3d4e5f"])
