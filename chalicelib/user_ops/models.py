"""Models of user operations: the wire's estimate and hash bodies, results, submit and the operation (the reference
API's shapes); the stored operation with its transition table."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, Field, StrictBool, model_validator

from chalicelib.gas_tanks.models import Rate
from chalicelib.platform import aws, due
from chalicelib.platform.addresses import Address
from chalicelib.platform.amounts import TokenId, Uint256
from chalicelib.platform.pagination import Pagination
from chalicelib.platform.transitions import Machine, Move, Stateful
from chalicelib.platform.wire import WireModel
from chalicelib.wallets.models import AuthorizationListEntry

TABLE = "user-ops"

HEX = r"^0x([0-9a-fA-F]{2}){0,24576}$"  # at most 24 KiB of bytes
ACCOUNT_ID = r"^[0-9a-f-]{36}$"


# Addresses and uint256 numbers are the shared field types: a wrong EIP-55 checksum is 400 INVALID_ADDRESS, a number
# above 2**256-1 is 400 INVALID_AMOUNT (INVALID_TOKEN_ID for a token id), as in the wallet and custody routes.

# Example values shared by several fields.
_EXAMPLE_ACCOUNT_ID = "2f4a6c8e-0b1d-4f3a-9c5e-7b9d1f3a5c7e"
_EXAMPLE_RECIPIENT = "0xAb8483F64d9C6d1EcF9b849Ae677dD3315835cb2"
_EXAMPLE_NFT = "0x2cF7252e74036d1Da831d11089D326296e64a728"
_EXAMPLE_USER_OP_ID = "4d6f8a0c-2e4b-4d6f-8a0c-2e4b6d8f0a1c"
_EXAMPLE_USER_OP_HASH = "0x3c5e7a9b1d3f5a7c9e2b4d6f8a0c1e3b5d7f9a2c4e6b8d0f1a3c5e7b9d2f4a6c"
_EXAMPLE_SIGNATURE = "0x" + "5f" * 32 + "3a" * 32 + "1b"
_EXAMPLE_CLIENT_ID = "5d9e2c1a-7b3f-4e8d-a6c2-1f0b9e8d7c6a"
_EXAMPLE_APP_ID = "0b7d5f3e-5a8c-4c1e-9d1a-2f6b8e4c7a10"
_EXAMPLE_CALL_DATA = (
    "0x095ea7b3000000000000000000000000ab8483f64d9c6d1ecf9b849ae677dd3315835cb2"
    "00000000000000000000000000000000000000000000000000000000000f4240"
)


class _Body(WireModel):
    model_config = ConfigDict(extra="forbid")

    accountId: str = Field(
        pattern=ACCOUNT_ID, description="The smart account (from the owner record).", examples=[_EXAMPLE_ACCOUNT_ID]
    )


class SendCoin(_Body):
    to: Address = Field(examples=[_EXAMPLE_RECIPIENT])
    amount: Uint256 = Field(description="Wei (smallest unit), at most 2**256-1.", examples=["10000000000000000"])


class SendToken(_Body):
    tokenAddress: Address = Field(
        description="ERC-20 contract.", examples=["0xc2132D05D31c914a87C6611C10748AEb04B58e8F"]
    )
    to: Address = Field(examples=[_EXAMPLE_RECIPIENT])
    amount: Uint256 = Field(description="Smallest unit of the token, at most 2**256-1.", examples=["1500000"])


class SendErc721(_Body):
    tokenAddress: Address = Field(examples=[_EXAMPLE_NFT])
    to: Address = Field(examples=[_EXAMPLE_RECIPIENT])
    tokenId: TokenId = Field(examples=["42"])


class SendErc1155(_Body):
    tokenAddress: Address = Field(examples=[_EXAMPLE_NFT])
    to: Address = Field(examples=[_EXAMPLE_RECIPIENT])
    tokenId: TokenId = Field(examples=["7"])
    amount: Uint256 = Field(examples=["3"])
    data: str = Field("0x", pattern=HEX, description="Bytes passed to the receiver (hex).", examples=["0x"])


class SignTransaction(_Body):
    to: Address = Field(examples=["0xc2132D05D31c914a87C6611C10748AEb04B58e8F"])
    value: Uint256 = Field(description="Wei sent with the call, at most 2**256-1.", examples=["0"])
    callData: str = Field(pattern=HEX, examples=[_EXAMPLE_CALL_DATA])


class BatchCall(WireModel):
    model_config = ConfigDict(extra="forbid")

    to: Address = Field(examples=["0xc2132D05D31c914a87C6611C10748AEb04B58e8F"])
    value: Uint256 = Field("0", description="Wei sent with the call, at most 2**256-1.", examples=["0"])
    callData: str = Field("0x", pattern=HEX, examples=[_EXAMPLE_CALL_DATA])


class Batch(_Body):
    """Several calls in one operation (`executeBatch`), in order, all or none."""

    calls: list[BatchCall] = Field(min_length=1, max_length=16, description="1 to 16 calls, made in this order.")


class Activate(_Body):
    """Deploy the account only (an operation with an empty call); an EIP-7702 account: delegate the wallet."""


class Estimate(WireModel):
    requiredNative: str = Field(description="The operation's maximum cost in wei.", examples=["2461500000000000"])
    requiredGasTankBalance: str = Field(
        description="That cost in gas-tank base units, fees included.", examples=["1107675"]
    )
    decimal: int = Field(description="Decimals of the gas tank currency.", examples=[6])


class HashResult(WireModel):
    hash: str = Field(
        description="The userOpHash. A `simple` account's owner signs it as EIP-191 personal_sign of the 32 bytes; "
        "an `eip7702` account's (EntryPoint v0.8) signs `typedData`, whose EIP-712 digest it is.",
        examples=[_EXAMPLE_USER_OP_HASH],
    )
    userOpId: str = Field(examples=[_EXAMPLE_USER_OP_ID])
    validUntil: int = Field(
        description="Unix seconds until which the operation can be submitted and included.", examples=[1795334400]
    )
    typedData: dict[str, Any] | None = Field(
        None,
        exclude_if=lambda v: v is None,
        description="An `eip7702` account's operation (EntryPoint v0.8): the `PackedUserOperation` EIP-712 document "
        "whose digest is `hash`, for POST /api/v1/wallet/sign-typed-data. Absent for a `simple` account's.",
    )
    delegates: bool | None = Field(
        None,
        exclude_if=lambda v: v is None,
        description="An `eip7702` account's operation that delegates the wallet (its code is not yet Simple7702Account"
        "'s): submit it with `eip7702Auth`. Absent for a `simple` account's.",
    )


class Submit(WireModel):
    model_config = ConfigDict(extra="forbid")

    signature: str = Field(
        pattern=r"^0x[0-9a-fA-F]{130}$", description="The owner's signature of `hash`.", examples=[_EXAMPLE_SIGNATURE]
    )
    userOpId: str = Field(min_length=1, max_length=64, examples=[_EXAMPLE_USER_OP_ID])
    hash: str = Field(pattern=r"^0x[0-9a-fA-F]{64}$", examples=[_EXAMPLE_USER_OP_HASH])
    isSponsored: StrictBool = Field(
        description="true: the organization's gas tank pays; false: the owner's.", examples=[True]
    )
    eip7702Auth: AuthorizationListEntry | None = Field(
        None,
        description="An operation with `delegates`: the wallet's EIP-7702 authorization of the network's "
        "Simple7702Account at the wallet's current nonce, as POST /api/v1/wallet/sign-authorization answers it.",
    )


class EmbeddedUsage(WireModel):
    """The usage record as embedded in the all-owners list: with `appId`, without the service's own fee."""

    id: str = Field(examples=["7a9c1e3b-5d7f-4a2c-9e4b-6d8f0a2c4e6b"])
    clientId: str = Field(examples=[_EXAMPLE_CLIENT_ID])
    appId: str = Field(examples=[_EXAMPLE_APP_ID])
    clientGasTankId: str = Field(examples=["9b1d3f5a-7c9e-4b2d-8f6a-0c2e4a6b8d0f"])
    userOpId: str = Field(examples=[_EXAMPLE_USER_OP_ID])
    nativeToGasTankRate: Rate = Field(examples=[0.45])
    amountInNative: str = Field(examples=["1893460000000000"])
    amountInGasTank: str = Field(examples=["852057"])
    initialDeductedAmountInNative: str = Field(examples=["2461500000000000"])
    initialDeductedAmountInGasTank: str = Field(examples=["1107675"])
    refundedAmountInNative: str | None = Field(examples=["568040000000000"])
    refundedAmountInGasTank: str | None = Field(examples=["255618"])
    clientFeeInGasTank: str | None
    createdAt: str = Field(examples=["2026-11-22T08:00:12.000Z"])
    refundedAt: str | None = Field(examples=["2026-11-22T08:00:31.000Z"])


class UserOperation(WireModel):
    example_overrides = {"clientGasTankUsageHistory": None}  # only the all-owners list has it

    id: str = Field(examples=[_EXAMPLE_USER_OP_ID])
    createdAt: str = Field(examples=["2026-11-22T08:00:00.000Z"])
    updatedAt: str | None = Field(examples=["2026-11-22T08:00:12.000Z"])
    accountId: str = Field(examples=[_EXAMPLE_ACCOUNT_ID])
    ownerId: str = Field(examples=["6e1c3a5b-7d9f-4b2e-8a4c-6f8e0a2c4b6d"])
    clientId: str = Field(examples=[_EXAMPLE_CLIENT_ID])
    appId: str = Field(examples=[_EXAMPLE_APP_ID])
    signature: str | None = Field(examples=[_EXAMPLE_SIGNATURE])
    userOpHash: str = Field(examples=[_EXAMPLE_USER_OP_HASH])
    txHash: str | None
    status: Literal["created", "on_process", "success", "failed"] = Field(examples=["on_process"])
    type: str = Field(examples=["send_coin"])
    network: str = Field(examples=["polygon-pos"])
    chainId: int = Field(examples=[137])
    payer: Literal["owner", "organization", "none"] | None = Field(examples=["organization"])
    validUntil: str = Field(examples=["2026-11-22T08:10:00.000Z"])
    failedReason: str | None
    bundlerVersion: str = "0.7"
    successAt: str | None
    failedAt: str | None
    sentAt: str | None = Field(examples=["2026-11-22T08:00:12.000Z"])
    clientGasTankUsageHistory: EmbeddedUsage | None = Field(
        None, exclude_if=lambda v: v is None, description="In the all-owners list: what the operation charged."
    )


class UserOperationPage(WireModel):
    # As the all-owners list answers it.
    example_overrides = {"data": [{"clientGasTankUsageHistory": EmbeddedUsage}], "pagination": {"limit": 10}}

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
    deploys: bool = False  # a SimpleAccount's factory deploys it; an EIP-7702 account's wallet is delegated
    bundlerVersion: str = "0.7"  # the EntryPoint's: "0.8" for an EIP-7702 account's operation
    submittedBlock: int | None = None
    payerTankId: str | None = None
    usageSeq: int | None = None
    deducted: int | None = None
    deductedNative: int | None = None
    dueAt: str | None = None

    def status_index(self) -> aws.Changes:
        # In flight it is in the `due` index (its due time is a change of the move); an ended one leaves it.
        return aws.Changes(remove=list(due.ATTRIBUTES)) if self.status in self.machine.final else aws.Changes()


class SponsorshipCheckRequest(WireModel):
    """Either an operation that was hashed (`userOpId`), or a call to estimate (`accountId`, `to`, `value`,
    `callData`: the `signTransaction/estimate` body)."""

    model_config = ConfigDict(extra="forbid")

    userOpId: str | None = Field(None, min_length=1, max_length=64, examples=[_EXAMPLE_USER_OP_ID])
    accountId: str | None = Field(None, pattern=ACCOUNT_ID)
    to: Address | None = None
    value: Uint256 = Field("0", description="Wei sent with the call, at most 2**256-1.")
    callData: str = Field("0x", pattern=HEX)

    @model_validator(mode="after")
    def _one_of(self) -> SponsorshipCheckRequest:
        if (self.userOpId is None) == (self.accountId is None):
            raise ValueError("give userOpId, or accountId with to")
        if self.accountId is not None and self.to is None:
            raise ValueError("to is required with accountId")
        return self
