"""Request and response bodies of the auth routes."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_serializer


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


class TokenPair(BaseModel):
    """`accessToken` for a user without a wallet, `walletToken` once the wallet exists; never both."""

    isWalletCreated: bool
    accessToken: str | None = None
    walletToken: str | None = None
    refreshToken: str
    expiresAt: str = Field(description="Expiry of the access or wallet token (UTC, RFC 3339).")

    @model_serializer(mode="wrap")
    def _drop_absent_token(self, handler: Any) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        return {k: v for k, v in data.items() if v is not None}


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
