"""Models of user operations: the wire's estimate and hash bodies, results, submit and the operation (the reference
API's shapes); the stored operation with its transition table."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool

from chalicelib.gas_tanks.models import Rate
from chalicelib.platform import aws, due
from chalicelib.platform.addresses import Address
from chalicelib.platform.amounts import TokenId, Uint256
from chalicelib.platform.pagination import Pagination
from chalicelib.platform.transitions import Machine, Move, Stateful

TABLE = "user-ops"

HEX = r"^0x([0-9a-fA-F]{2}){0,24576}$"  # at most 24 KiB of bytes
ACCOUNT_ID = r"^[0-9a-f-]{36}$"


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")

    accountId: str = Field(pattern=ACCOUNT_ID, description="The smart account (from the owner record).")


# Addresses and uint256 numbers are the shared field types: a wrong EIP-55 checksum is 400 INVALID_ADDRESS, a number
# above 2**256-1 is 400 INVALID_AMOUNT (INVALID_TOKEN_ID for a token id), as in the wallet and custody routes.


class SendCoin(_Body):
    to: Address
    amount: Uint256 = Field(description="Wei (smallest unit), at most 2**256-1.")


class SendToken(_Body):
    tokenAddress: Address = Field(description="ERC-20 contract.")
    to: Address
    amount: Uint256 = Field(description="Smallest unit of the token, at most 2**256-1.")


class SendErc721(_Body):
    tokenAddress: Address
    to: Address
    tokenId: TokenId


class SendErc1155(_Body):
    tokenAddress: Address
    to: Address
    tokenId: TokenId
    amount: Uint256
    data: str = Field("0x", pattern=HEX, description="Bytes passed to the receiver (hex).")


class SignTransaction(_Body):
    to: Address
    value: Uint256 = Field(description="Wei sent with the call, at most 2**256-1.")
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
    nativeToGasTankRate: Rate
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


class UserOpRecord(Stateful):
    """A user operation as stored (`USEROP#<id>` / `OP`): the wire's fields, the built operation (`op`, its unpacked
    JSON), the owner, and once submitted the charge (`payerTankId`, `usageSeq`, `deducted`, `deductedNative`), the
    block at submission and, while in flight, its due time (the `due` index)."""

    machine = Machine(
        name="user-op",
        table=TABLE,
        states=frozenset({"created", "on_process", "success", "failed"}),
        initial=frozenset({"created"}),
        final=frozenset({"success", "failed"}),
        moves=(
            Move("created", "on_process"),  # submitted: the payer's tank debited
            Move("created", "failed"),  # a signature not the owner's
            Move("on_process", "on_process"),  # the tracker looks again later
            Move("on_process", "success"),
            Move("on_process", "failed"),  # reverted, expired, or refused by the bundler
        ),
        stamp=None,  # the tracker's checks do not touch updatedAt; moves that do set it themselves
    )

    id: str
    status: str
    appId: str
    chainId: int
    userOpHash: str
    validUntilEpoch: int
    ownerAddress: str
    ownerId: str
    ownerTankId: str
    accountId: str
    op: str
    deploys: bool = False
    submittedBlock: int | None = None
    payerTankId: str | None = None
    usageSeq: int | None = None
    deducted: int | None = None
    deductedNative: int | None = None
    dueAt: str | None = None

    def status_index(self) -> aws.Changes:
        # In flight it is in the `due` index (its due time is a change of the move); an ended one leaves it.
        return aws.Changes(remove=list(due.ATTRIBUTES)) if self.status in self.machine.final else aws.Changes()
