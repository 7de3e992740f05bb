"""Wire models of user operations: the seed's estimate and hash bodies, results, submit, the operation."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool

from chalicelib.platform.pagination import Pagination

ADDRESS = r"^0x[0-9a-fA-F]{40}$"
UINT = r"^[0-9]{1,78}$"  # a uint256 in decimal
HEX = r"^0x([0-9a-fA-F]{2}){0,24576}$"  # at most 24 KiB of bytes
ACCOUNT_ID = r"^[0-9a-f-]{36}$"


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")

    accountId: str = Field(pattern=ACCOUNT_ID, description="The smart account (from the owner record).")


class SendCoin(_Body):
    to: str = Field(pattern=ADDRESS)
    amount: str = Field(pattern=UINT, description="Wei (smallest unit).")


class SendToken(_Body):
    tokenAddress: str = Field(pattern=ADDRESS, description="ERC-20 contract.")
    to: str = Field(pattern=ADDRESS)
    amount: str = Field(pattern=UINT, description="Smallest unit of the token.")


class SendErc721(_Body):
    tokenAddress: str = Field(pattern=ADDRESS)
    to: str = Field(pattern=ADDRESS)
    tokenId: str = Field(pattern=UINT)


class SendErc1155(_Body):
    tokenAddress: str = Field(pattern=ADDRESS)
    to: str = Field(pattern=ADDRESS)
    tokenId: str = Field(pattern=UINT)
    amount: str = Field(pattern=UINT)
    data: str = Field("0x", pattern=HEX, description="Bytes passed to the receiver (hex).")


class SignTransaction(_Body):
    to: str = Field(pattern=ADDRESS)
    value: str = Field(pattern=UINT, description="Wei sent with the call.")
    callData: str = Field(pattern=HEX)


class Activate(_Body):
    """Deploy the account only (an operation with an empty call)."""


class Estimate(BaseModel):
    requiredNative: str = Field(description="The operation's maximum cost in wei.")
    requiredGasTankBalance: str = Field(description="That cost in gas-tank base units, fees included.")
    decimal: int = Field(description="Decimals of the gas tank currency.")


class HashResult(BaseModel):
    hash: str = Field(description="The userOpHash; the owner signs it (EIP-191 personal_sign of the 32 bytes).")
    userOpId: str
    validUntil: int = Field(description="Unix seconds until which the operation can be submitted and included.")


class Submit(BaseModel):
    model_config = ConfigDict(extra="forbid")

    signature: str = Field(pattern=r"^0x[0-9a-fA-F]{130}$", description="The owner's signature of `hash`.")
    userOpId: str = Field(min_length=1, max_length=64)
    hash: str = Field(pattern=r"^0x[0-9a-fA-F]{64}$")
    isSponsored: StrictBool = Field(description="true: the organization's gas tank pays; false: the owner's.")


class EmbeddedUsage(BaseModel):
    """The usage record as embedded in the all-owners list: with `appId`, without the service's own fee."""

    id: str
    clientId: str
    appId: str
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
    createdAt: str
    refundedAt: str | None


class UserOperation(BaseModel):
    id: str
    createdAt: str
    updatedAt: str | None
    accountId: str
    ownerId: str
    clientId: str
    appId: str
    signature: str | None
    userOpHash: str
    txHash: str | None
    status: Literal["created", "on_process", "success", "failed"]
    type: str
    network: str
    chainId: int
    payer: Literal["owner", "organization", "none"] | None
    validUntil: str
    failedReason: str | None
    bundlerVersion: str = "0.7"
    successAt: str | None
    failedAt: str | None
    sentAt: str | None
    clientGasTankUsageHistory: EmbeddedUsage | None = Field(
        None, exclude_if=lambda v: v is None, description="In the all-owners list: what the operation charged."
    )


class UserOperationPage(BaseModel):
    data: list[UserOperation]
    pagination: Pagination
