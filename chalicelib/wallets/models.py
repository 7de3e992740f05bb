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
