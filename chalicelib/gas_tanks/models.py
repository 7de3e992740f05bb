"""Models of gas tanks: the wire's top-up requests and records, organization tank and usage records; the stored
top-up record and the transaction's marker, with their transition tables."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Literal

from pydantic import AwareDatetime, ConfigDict, Field, PlainSerializer, StrictBool, model_validator

from chalicelib.platform import aws, due
from chalicelib.platform.addresses import Address
from chalicelib.platform.amounts import NumberAmount
from chalicelib.platform.pagination import Pagination
from chalicelib.platform.records import Record
from chalicelib.platform.transitions import Machine, Move, Stateful
from chalicelib.platform.wire import WireModel

TABLE = "gas-tanks"

# The network's rate as configured (an exact decimal string), kept exact in records and models; the reference API
# shows it as a JSON number, so the wire writes that number.
Rate = Annotated[Decimal, PlainSerializer(float, return_type=float, when_used="json")]

TX_HASH = r"^0x[0-9a-fA-F]{64}$"
SIGNATURE = r"^0x[0-9a-fA-F]{130}$"


# Example values shared by several fields.
_EXAMPLE_TX_HASH = "0x2d4f6a8c0e1b3d5f7a9c2e4f6b8d0a1c3e5f7b9d1a3c5e7f9b2d4f6a8c0e1b3d"
_EXAMPLE_USDT = "0xc2132D05D31c914a87C6611C10748AEb04B58e8F"
_EXAMPLE_POOL = "0x617F2E2fD72FD9D5503197092aC168c91465E7f2"
_EXAMPLE_CLIENT_ID = "5d9e2c1a-7b3f-4e8d-a6c2-1f0b9e8d7c6a"
_EXAMPLE_TANK_ID = "9b1d3f5a-7c9e-4b2d-8f6a-0c2e4a6b8d0f"


class ClientTopUp(WireModel):
    model_config = ConfigDict(extra="forbid")

    txHash: str = Field(
        pattern=TX_HASH, description="The transaction that sent USDT to the pool.", examples=[_EXAMPLE_TX_HASH]
    )
    chainId: int = Field(gt=0, lt=2**63, description="The network it was sent on.", examples=[137])
    tokenAddress: Address = Field(description="That network's USDT.", examples=[_EXAMPLE_USDT])
    poolAddress: Address = Field(description="That network's pool (GET /api/v1/networks).", examples=[_EXAMPLE_POOL])
    immediate: StrictBool = Field(description="true: checked now; false: checked about 20 s later.", examples=[True])
    signature: str = Field(
        pattern=SIGNATURE,
        description="EIP-191 personal_sign of the text `<chainId>.<txHash>` by the address that sent the USDT.",
        examples=["0x" + "5f" * 32 + "3a" * 32 + "1b"],
    )


class OwnerTopUp(ClientTopUp):
    example_overrides = {"immediate": False}

    receiverOwnerId: str = Field(
        min_length=1,
        max_length=64,
        description="Owner record id or owner address.",
        examples=["6e1c3a5b-7d9f-4b2e-8a4c-6f8e0a2c4b6d"],
    )


class TopUpRecord(WireModel):
    id: str = Field(examples=["8a0c2e4b-6d8f-4a0c-9e2b-4d6f8a0c2e4b"])
    createdAt: str = Field(examples=["2026-11-22T08:00:00.000Z"])
    updatedAt: str | None = Field(examples=["2026-11-22T08:00:12.000Z"])
    clientId: str = Field(examples=[_EXAMPLE_CLIENT_ID])
    gasTankId: str = Field(examples=[_EXAMPLE_TANK_ID])
    txHash: str = Field(examples=[_EXAMPLE_TX_HASH])
    network: str = Field(examples=["polygon-pos"])
    chainId: int = Field(examples=[137])
    poolAddress: str = Field(examples=[_EXAMPLE_POOL])
    amount: str = Field(
        description='USDT base units of the network\'s token as transferred; "0" while pending.', examples=["25000000"]
    )
    tokenAddress: str = Field(examples=[_EXAMPLE_USDT])
    status: Literal["pending", "success", "failed"] = Field(examples=["success"])


class TopUpPage(WireModel):
    example_overrides = {"pagination": {"limit": 10}}

    data: list[TopUpRecord]
    pagination: Pagination


class ClientGasTank(WireModel):
    id: str = Field(examples=[_EXAMPLE_TANK_ID])
    clientId: str = Field(examples=[_EXAMPLE_CLIENT_ID])
    balance: str = Field(examples=["25000000"])
    type: str = Field(examples=["token"])
    tokenName: str = Field(examples=["USDT"])
    decimals: int = Field(examples=[6])
    createdAt: str = Field(examples=["2026-11-22T08:00:00.000Z"])
    updatedAt: str | None = Field(examples=["2026-11-22T08:00:31.000Z"])


class UsageRecord(WireModel):
    id: str = Field(examples=["7a9c1e3b-5d7f-4a2c-9e4b-6d8f0a2c4e6b"])
    clientId: str = Field(examples=[_EXAMPLE_CLIENT_ID])
    clientGasTankId: str = Field(examples=[_EXAMPLE_TANK_ID])
    userOpId: str = Field(examples=["4d6f8a0c-2e4b-4d6f-8a0c-2e4b6d8f0a1c"])
    nativeToGasTankRate: Rate = Field(examples=[0.45])
    amountInNative: str = Field(examples=["1893460000000000"])
    amountInGasTank: str = Field(examples=["852057"])
    initialDeductedAmountInNative: str = Field(examples=["2461500000000000"])
    initialDeductedAmountInGasTank: str = Field(examples=["1107675"])
    refundedAmountInNative: str | None = Field(examples=["568040000000000"])
    refundedAmountInGasTank: str | None = Field(examples=["255618"])
    clientFeeInGasTank: str | None
    serviceFeeInGasTank: str | None
    createdAt: str = Field(examples=["2026-11-22T08:00:12.000Z"])
    refundedAt: str | None = Field(examples=["2026-11-22T08:00:31.000Z"])


class UsagePage(WireModel):
    example_overrides = {"pagination": {"limit": 10}}

    data: list[UsageRecord]
    pagination: Pagination


class Tank(Record):
    """A gas tank (`TANK#<id>` / `TANK`): `balance` in base units of the tank currency (never negative: every debit
    is conditional); `holder` the owner record id or the client id, `kind` owner|client."""

    kind: str
    holder: str
    balance: int
    type: str
    tokenName: str
    decimals: int
    createdAt: str
    updatedAt: str | None = None
    lowBalanceThreshold: str | None = None  # alerts.py: below it, `gasTank.low_balance` once per crossing
    lowAlerted: bool = False
    lowCrossings: int = 0

    @property
    def id(self) -> str:
        return self.pk.removeprefix("TANK#")


FINAL_TOP_UP = aws.Changes(remove=list(due.ATTRIBUTES))  # an ended top-up leaves the `due` index


class TopUp(Stateful):
    """A top-up record (`TOPUPS#<tankId>` / seq). `immediate=true` appends it `success`; `immediate=false` appends
    it `pending` and its checks end it."""

    machine = Machine(
        name="record",
        table=TABLE,
        states=frozenset({"pending", "success", "failed"}),
        initial=frozenset({"pending", "success"}),
        final=frozenset({"success", "failed"}),
        moves=(Move("pending", "pending"), Move("pending", "success"), Move("pending", "failed")),
        stamp=None,  # a check that looks again does not touch updatedAt
    )

    id: str
    status: str
    chainId: int
    txHash: str
    gasTankId: str
    signedText: str | None = None
    signature: str | None = None
    checkAttempt: int | None = None
    dueAt: str | None = None

    def status_index(self) -> aws.Changes:
        return FINAL_TOP_UP if self.status in self.machine.final else aws.Changes()


class TopUpMarker(Stateful):
    """A transaction's service-wide marker (`TOPUPTX#<chainId>#<txHash>` / `USED`): which top-up holds it. A failed
    top-up leaves it `failed`, and a new top-up of the same transaction takes it again (a put, not a move)."""

    machine = Machine(
        name="marker",
        table=TABLE,
        states=frozenset({"pending", "credited", "failed"}),
        initial=frozenset({"pending", "credited"}),
        final=frozenset({"credited"}),
        moves=(
            Move("pending", "credited"),
            Move("pending", "failed"),
            Move("failed", "pending"),
            Move("failed", "credited"),
        ),
        attribute="state",
        stamp=None,
    )

    state: str
    tankId: str
    topUpId: str
    seq: int
    createdAt: str


# --- sponsorship policies and tank settings ------------------------------------------------------------------

# Sponsorship caps are kept in the policy's JSON document and compared in Python.
TankAmount = Annotated[
    str, Field(pattern=r"^[0-9]{1,60}$", description="Tank units (USDT at 18 decimals), a decimal string.")
]
# A low-balance threshold is compared with the tank's balance, a DynamoDB number, in a condition: at most 38 digits.
TankThreshold = Annotated[
    NumberAmount, Field(description="Tank units (USDT at 18 decimals), a decimal string of at most 38 digits.")
]
SELECTOR = r"^0x[0-9a-fA-F]{8}$"


class OwnerCaps(WireModel):
    model_config = ConfigDict(extra="forbid")

    maxPerDay: TankAmount | None = Field(
        None, description="What one owner's sponsored operations may cost in 24 h.", examples=["5000000000000000000"]
    )
    maxCountPerDay: int | None = Field(None, ge=0, le=1_000_000, description="How many in 24 h.", examples=[20])
    maxPerMonth: TankAmount | None = Field(
        None, description="What they may cost in 30 days.", examples=["50000000000000000000"]
    )


class OperationCaps(WireModel):
    model_config = ConfigDict(extra="forbid")

    max: TankAmount | None = Field(
        None,
        description="The most one operation may cost (its maximum, fees included).",
        examples=["1000000000000000000"],
    )


class TotalCaps(WireModel):
    model_config = ConfigDict(extra="forbid")

    maxPerDay: TankAmount | None = Field(
        None,
        description="What all the app's sponsored operations may cost in 24 h.",
        examples=["100000000000000000000"],
    )


class ContractRule(WireModel):
    model_config = ConfigDict(extra="forbid")

    address: Address = Field(
        description="A contract the account may call (the `dest` of its `execute`).", examples=[_EXAMPLE_USDT]
    )
    selectors: list[Annotated[str, Field(pattern=SELECTOR)]] = Field(
        default_factory=list,
        max_length=50,
        description="The functions it may call (4-byte selectors); empty: any call of the contract, a plain "
        "transfer to it included.",
        examples=[["0xa9059cbb"]],
    )


class SponsorshipPolicy(WireModel):
    """Which sponsored user operations of the app the organization tank pays for. Every rule left out allows all."""

    model_config = ConfigDict(extra="forbid")

    perOwner: OwnerCaps | None = None
    perOperation: OperationCaps | None = None
    total: TotalCaps | None = None
    networks: list[Annotated[str, Field(min_length=1, max_length=64)]] | None = Field(
        None,
        max_length=50,
        description="The networks (names) whose operations are sponsored.",
        examples=[["polygon-pos"]],
    )
    contracts: list[ContractRule] | None = Field(
        None, max_length=100, description="The calls that are sponsored; an operation calling anything else is not."
    )
    activeFrom: AwareDatetime | None = Field(
        None, description="Sponsored from this time (RFC 3339, with offset).", examples=["2026-12-01T00:00:00Z"]
    )
    activeUntil: AwareDatetime | None = Field(None, description="Sponsored until (before) this time.")

    @model_validator(mode="after")
    def _ordered(self) -> SponsorshipPolicy:
        if self.activeFrom is not None and self.activeUntil is not None and self.activeUntil <= self.activeFrom:
            raise ValueError("activeUntil must be after activeFrom")
        return self


class SponsorshipPolicyState(WireModel):
    policy: SponsorshipPolicy | None = Field(description="The app's policy; null: none set (every operation paid).")
    updatedAt: str | None = Field(examples=["2026-11-28T08:00:00.000Z"])


class OwnerRemaining(WireModel):
    perDay: str | None = Field(examples=["1200000000000000000"])
    countPerDay: int | None = Field(examples=[0])
    perMonth: str | None = Field(examples=["40000000000000000000"])


class TotalRemaining(WireModel):
    perDay: str | None = Field(examples=["80000000000000000000"])


class SponsorshipRemaining(WireModel):
    """What is left of each cap before this operation; null where the policy sets none."""

    perOwner: OwnerRemaining
    perOperation: str | None = Field(examples=["1000000000000000000"])
    total: TotalRemaining


class SponsorshipCheck(WireModel):
    sponsored: bool = Field(
        description="Whether the policy would sponsor it now (nothing is counted or charged).", examples=[False]
    )
    rule: str | None = Field(description="The rule that would refuse it.", examples=["perOwner.maxCountPerDay"])
    reason: str | None = Field(examples=["The owner had 20 sponsored operations in 24 h"])
    requiredGasTankBalance: str = Field(
        description="Its maximum cost in tank units, fees included.", examples=["312000000000000000"]
    )
    gasTankBalance: str = Field(
        description="The organization tank's balance (submit also needs it to cover the cost).",
        examples=["25000000000000000000"],
    )
    remaining: SponsorshipRemaining


_EXAMPLE_THRESHOLD = "5000000000000000000"


class GasTankSettings(WireModel):
    model_config = ConfigDict(extra="forbid")

    lowBalanceThreshold: TankThreshold | None = Field(
        description="Below this balance (tank units) a `gasTank.low_balance` event is sent, once per crossing; "
        "null: no alerts.",
        examples=[_EXAMPLE_THRESHOLD],
    )


class GasTankSettingsState(WireModel):
    gasTankId: str = Field(examples=[_EXAMPLE_TANK_ID])
    balance: str = Field(examples=["25000000000000000000"])
    lowBalanceThreshold: str | None = Field(examples=[_EXAMPLE_THRESHOLD])
    lowAlerted: bool = Field(
        description="The alert fired for the current crossing (a top-up above it re-arms it).", examples=[False]
    )
