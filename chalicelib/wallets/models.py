"""Bodies of the wallet routes (Family W, wallet token)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class WalletRequest(BaseModel):
    """The common wallet parameters of the interface."""

    model_config = ConfigDict(extra="forbid")

    secret: str | None = Field(
        None,
        max_length=16_384,
        description="The wallet's secret0 from the user's device. Only operations that sign use it.",
    )
    network: str | None = Field(None, max_length=40, description="Network name; required when chainId is empty.")
    chainId: str | None = Field(
        None, max_length=20, description="Chain id as a decimal string; required when network is empty."
    )


class TokenBalanceRequest(WalletRequest):
    tokenAddress: str = Field(max_length=42, description="ERC-20 contract address.")


class Balance(BaseModel):
    balance: str = Field(description="Exact decimal amount in human units.")
    symbol: str
    address: str = Field(description="The wallet address.")


_EXPIRE_DATE_DOC = (
    "Expiry of the returned wallet token: an RFC 3339 date-time, or a date (midnight UTC at its start). "
    "At most 30 days ahead; default the service's wallet-token lifetime."
)


class CreateWalletRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    expireDate: str | None = Field(None, max_length=40, description=_EXPIRE_DATE_DOC)


class RecoverWalletRequest(BaseModel):
    """JSON `{secret0}`; or multipart/form-data with the recovery file in part `file`."""

    model_config = ConfigDict(extra="forbid")

    secret0: str | None = Field(None, max_length=16_384, description="The wallet's secret0 (JSON body).")
    file: str | None = Field(
        None, max_length=16_384, description="The recovery file `<address>.service` (multipart part), content secret0."
    )
    expireDate: str | None = Field(None, max_length=40, description=_EXPIRE_DATE_DOC)

    @property
    def presented(self) -> str | None:
        return self.secret0 if self.secret0 is not None else self.file


class ImportWalletRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    privateKey: str = Field(
        max_length=66, description="The secp256k1 private key to import: 64 hex digits, optionally 0x-prefixed."
    )
    expireDate: str | None = Field(None, max_length=40, description=_EXPIRE_DATE_DOC)


class WalletCreated(BaseModel):
    """The interface's MPC wallet creation result, plus a refresh token for later logins."""

    walletToken: str = Field(description="JWT for the wallet operation endpoints.")
    refreshToken: str = Field(description="Single-use refresh token (see docs/authentication.md).")
    secret0: str = Field(description="Share C sealed for this wallet; the user saves it as `<address>.service`.")
    secret0Link: str = Field(description="Presigned download of that file; expires 300 s after this response.")
    address: str = Field(description="The wallet's checksummed address.")
