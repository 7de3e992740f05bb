"""Wire models of gas tanks: top-up requests and records, the organization tank, usage records."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool

from chalicelib.platform.chain import Address
from chalicelib.platform.pagination import Pagination

TX_HASH = r"^0x[0-9a-fA-F]{64}$"
SIGNATURE = r"^0x[0-9a-fA-F]{130}$"


class ClientTopUp(BaseModel):
    model_config = ConfigDict(extra="forbid")

    txHash: str = Field(pattern=TX_HASH, description="The transaction that sent USDT to the pool.")
    chainId: int = Field(gt=0, lt=2**63, description="The network it was sent on.")
    tokenAddress: Address = Field(description="That network's USDT.")
    poolAddress: Address = Field(description="That network's pool (GET /api/v1/networks).")
    immediate: StrictBool = Field(description="true: checked now; false: checked about 20 s later.")
    signature: str = Field(
        pattern=SIGNATURE,
        description="EIP-191 personal_sign of the text `<chainId>.<txHash>` by the address that sent the USDT.",
    )


class OwnerTopUp(ClientTopUp):
    receiverOwnerId: str = Field(min_length=1, max_length=64, description="Owner record id or owner address.")


class TopUpRecord(BaseModel):
    id: str
    createdAt: str
    updatedAt: str | None
    clientId: str
    gasTankId: str
    txHash: str
    network: str
    chainId: int
    poolAddress: str
    amount: str = Field(description='USDT base units of the network\'s token as transferred; "0" while pending.')
    tokenAddress: str
    status: Literal["pending", "success", "failed"]


class TopUpPage(BaseModel):
    data: list[TopUpRecord]
    pagination: Pagination


class ClientGasTank(BaseModel):
    id: str
    clientId: str
    balance: str
    type: str
    tokenName: str
    decimals: int
    createdAt: str
    updatedAt: str | None


class UsageRecord(BaseModel):
    id: str
    clientId: str
    clientGasTankId: str
    userOpId: str
    nativeToGasTankRate: float
    amountInNative: str
    amountInGasTank: str
    initialDeductedAmountInNative: str
    initialDeductedAmountInGasTank: str
    refundedAmountInNative: str | None
    refundedAmountInGasTank: str | None
    clientFeeInGasTank: str | None
    serviceFeeInGasTank: str | None
    createdAt: str
    refundedAt: str | None


class UsagePage(BaseModel):
    data: list[UsageRecord]
    pagination: Pagination
