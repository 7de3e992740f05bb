"""Models of gas tanks: the wire's top-up requests and records, organization tank and usage records; the stored
top-up record and the transaction's marker, with their transition tables."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any, Literal

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


_EXAMPLE_CLIENT_TOP_UP: dict[str, Any] = {
    "txHash": "0x2d4f6a8c0e1b3d5f7a9c2e4f6b8d0a1c3e5f7b9d1a3c5e7f9b2d4f6a8c0e1b3d",
    "chainId": 137,
    "tokenAddress": "0xc2132D05D31c914a87C6611C10748AEb04B58e8F",
    "poolAddress": "0x617F2E2fD72FD9D5503197092aC168c91465E7f2",
    "immediate": True,
    "signature": "0x5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a1b",  # noqa: E501 - one hex string
}


class ClientTopUp(WireModel):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [_EXAMPLE_CLIENT_TOP_UP]})

    txHash: str = Field(pattern=TX_HASH, description="The transaction that sent USDT to the pool.")
    chainId: int = Field(gt=0, lt=2**63, description="The network it was sent on.")
    tokenAddress: Address = Field(description="That network's USDT.")
    poolAddress: Address = Field(description="That network's pool (GET /api/v1/networks).")
    immediate: StrictBool = Field(description="true: checked now; false: checked about 20 s later.")
    signature: str = Field(
        pattern=SIGNATURE,
        description="EIP-191 personal_sign of the text `<chainId>.<txHash>` by the address that sent the USDT.",
    )


_EXAMPLE_OWNER_TOP_UP: dict[str, Any] = {
    "txHash": "0x2d4f6a8c0e1b3d5f7a9c2e4f6b8d0a1c3e5f7b9d1a3c5e7f9b2d4f6a8c0e1b3d",
    "chainId": 137,
    "tokenAddress": "0xc2132D05D31c914a87C6611C10748AEb04B58e8F",
    "poolAddress": "0x617F2E2fD72FD9D5503197092aC168c91465E7f2",
    "immediate": False,
    "signature": "0x5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a3a1b",  # noqa: E501 - one hex string
    "receiverOwnerId": "6e1c3a5b-7d9f-4b2e-8a4c-6f8e0a2c4b6d",
}


class OwnerTopUp(ClientTopUp):
    model_config = ConfigDict(json_schema_extra={"examples": [_EXAMPLE_OWNER_TOP_UP]})

    receiverOwnerId: str = Field(min_length=1, max_length=64, description="Owner record id or owner address.")


class TopUpRecord(WireModel):
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


_EXAMPLE_TOP_UP_PAGE: dict[str, Any] = {
    "data": [
        {
            "id": "8a0c2e4b-6d8f-4a0c-9e2b-4d6f8a0c2e4b",
            "createdAt": "2026-11-22T08:00:00.000Z",
            "updatedAt": "2026-11-22T08:00:12.000Z",
            "clientId": "5d9e2c1a-7b3f-4e8d-a6c2-1f0b9e8d7c6a",
            "gasTankId": "9b1d3f5a-7c9e-4b2d-8f6a-0c2e4a6b8d0f",
            "txHash": "0x2d4f6a8c0e1b3d5f7a9c2e4f6b8d0a1c3e5f7b9d1a3c5e7f9b2d4f6a8c0e1b3d",
            "network": "polygon-pos",
            "chainId": 137,
            "poolAddress": "0x617F2E2fD72FD9D5503197092aC168c91465E7f2",
            "amount": "25000000",
            "tokenAddress": "0xc2132D05D31c914a87C6611C10748AEb04B58e8F",
            "status": "success",
        }
    ],
    "pagination": {"total": 1, "page": 1, "limit": 10, "totalPages": 1, "hasNext": False, "hasPrev": False},
}


class TopUpPage(WireModel):
    model_config = ConfigDict(json_schema_extra={"examples": [_EXAMPLE_TOP_UP_PAGE]})

    data: list[TopUpRecord]
    pagination: Pagination


_EXAMPLE_CLIENT_GAS_TANK: dict[str, Any] = {
    "id": "9b1d3f5a-7c9e-4b2d-8f6a-0c2e4a6b8d0f",
    "clientId": "5d9e2c1a-7b3f-4e8d-a6c2-1f0b9e8d7c6a",
    "balance": "25000000",
    "type": "token",
    "tokenName": "USDT",
    "decimals": 6,
    "createdAt": "2026-11-22T08:00:00.000Z",
    "updatedAt": "2026-11-22T08:00:31.000Z",
}


class ClientGasTank(WireModel):
    model_config = ConfigDict(json_schema_extra={"examples": [_EXAMPLE_CLIENT_GAS_TANK]})

    id: str
    clientId: str
    balance: str
    type: str
    tokenName: str
    decimals: int
    createdAt: str
    updatedAt: str | None


class UsageRecord(WireModel):
    id: str
    clientId: str
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
    serviceFeeInGasTank: str | None
    createdAt: str
    refundedAt: str | None


_EXAMPLE_USAGE_PAGE: dict[str, Any] = {
    "data": [
        {
            "id": "7a9c1e3b-5d7f-4a2c-9e4b-6d8f0a2c4e6b",
            "clientId": "5d9e2c1a-7b3f-4e8d-a6c2-1f0b9e8d7c6a",
            "clientGasTankId": "9b1d3f5a-7c9e-4b2d-8f6a-0c2e4a6b8d0f",
            "userOpId": "4d6f8a0c-2e4b-4d6f-8a0c-2e4b6d8f0a1c",
            "nativeToGasTankRate": 0.45,
            "amountInNative": "1893460000000000",
            "amountInGasTank": "852057",
            "initialDeductedAmountInNative": "2461500000000000",
            "initialDeductedAmountInGasTank": "1107675",
            "refundedAmountInNative": "568040000000000",
            "refundedAmountInGasTank": "255618",
            "clientFeeInGasTank": None,
            "serviceFeeInGasTank": None,
            "createdAt": "2026-11-22T08:00:12.000Z",
            "refundedAt": "2026-11-22T08:00:31.000Z",
        }
    ],
    "pagination": {"total": 1, "page": 1, "limit": 10, "totalPages": 1, "hasNext": False, "hasPrev": False},
}


class UsagePage(WireModel):
    model_config = ConfigDict(json_schema_extra={"examples": [_EXAMPLE_USAGE_PAGE]})

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

    maxPerDay: TankAmount | None = Field(None, description="What one owner's sponsored operations may cost in 24 h.")
    maxCountPerDay: int | None = Field(None, ge=0, le=1_000_000, description="How many in 24 h.")
    maxPerMonth: TankAmount | None = Field(None, description="What they may cost in 30 days.")


class OperationCaps(WireModel):
    model_config = ConfigDict(extra="forbid")

    max: TankAmount | None = Field(None, description="The most one operation may cost (its maximum, fees included).")


class TotalCaps(WireModel):
    model_config = ConfigDict(extra="forbid")

    maxPerDay: TankAmount | None = Field(None, description="What all the app's sponsored operations may cost in 24 h.")


class ContractRule(WireModel):
    model_config = ConfigDict(extra="forbid")

    address: Address = Field(description="A contract the account may call (the `dest` of its `execute`).")
    selectors: list[Annotated[str, Field(pattern=SELECTOR)]] = Field(
        default_factory=list,
        max_length=50,
        description="The functions it may call (4-byte selectors); empty: any call of the contract, a plain "
        "transfer to it included.",
    )


_EXAMPLE_SPONSORSHIP_POLICY: dict[str, Any] = {
    "perOwner": {"maxPerDay": "5000000000000000000", "maxCountPerDay": 20, "maxPerMonth": "50000000000000000000"},
    "perOperation": {"max": "1000000000000000000"},
    "total": {"maxPerDay": "100000000000000000000"},
    "networks": ["polygon-pos"],
    "contracts": [{"address": "0xc2132D05D31c914a87C6611C10748AEb04B58e8F", "selectors": ["0xa9059cbb"]}],
    "activeFrom": "2026-12-01T00:00:00Z",
    "activeUntil": None,
}


class SponsorshipPolicy(WireModel):
    """Which sponsored user operations of the app the organization tank pays for. Every rule left out allows all."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [_EXAMPLE_SPONSORSHIP_POLICY]})

    perOwner: OwnerCaps | None = None
    perOperation: OperationCaps | None = None
    total: TotalCaps | None = None
    networks: list[Annotated[str, Field(min_length=1, max_length=64)]] | None = Field(
        None, max_length=50, description="The networks (names) whose operations are sponsored."
    )
    contracts: list[ContractRule] | None = Field(
        None, max_length=100, description="The calls that are sponsored; an operation calling anything else is not."
    )
    activeFrom: AwareDatetime | None = Field(None, description="Sponsored from this time (RFC 3339, with offset).")
    activeUntil: AwareDatetime | None = Field(None, description="Sponsored until (before) this time.")

    @model_validator(mode="after")
    def _ordered(self) -> SponsorshipPolicy:
        if self.activeFrom is not None and self.activeUntil is not None and self.activeUntil <= self.activeFrom:
            raise ValueError("activeUntil must be after activeFrom")
        return self


class SponsorshipPolicyState(WireModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [{"policy": _EXAMPLE_SPONSORSHIP_POLICY, "updatedAt": "2026-11-28T08:00:00.000Z"}]
        }
    )

    policy: SponsorshipPolicy | None = Field(description="The app's policy; null: none set (every operation paid).")
    updatedAt: str | None


class OwnerRemaining(WireModel):
    perDay: str | None
    countPerDay: int | None
    perMonth: str | None


class TotalRemaining(WireModel):
    perDay: str | None


class SponsorshipRemaining(WireModel):
    """What is left of each cap before this operation; null where the policy sets none."""

    perOwner: OwnerRemaining
    perOperation: str | None
    total: TotalRemaining


_EXAMPLE_CHECK: dict[str, Any] = {
    "sponsored": False,
    "rule": "perOwner.maxCountPerDay",
    "reason": "The owner had 20 sponsored operations in 24 h",
    "requiredGasTankBalance": "312000000000000000",
    "gasTankBalance": "25000000000000000000",
    "remaining": {
        "perOwner": {"perDay": "1200000000000000000", "countPerDay": 0, "perMonth": "40000000000000000000"},
        "perOperation": "1000000000000000000",
        "total": {"perDay": "80000000000000000000"},
    },
}


class SponsorshipCheck(WireModel):
    model_config = ConfigDict(json_schema_extra={"examples": [_EXAMPLE_CHECK]})

    sponsored: bool = Field(description="Whether the policy would sponsor it now (nothing is counted or charged).")
    rule: str | None = Field(description="The rule that would refuse it.")
    reason: str | None
    requiredGasTankBalance: str = Field(description="Its maximum cost in tank units, fees included.")
    gasTankBalance: str = Field(description="The organization tank's balance (submit also needs it to cover the cost).")
    remaining: SponsorshipRemaining


class GasTankSettings(WireModel):
    model_config = ConfigDict(
        extra="forbid", json_schema_extra={"examples": [{"lowBalanceThreshold": "5000000000000000000"}]}
    )

    lowBalanceThreshold: TankThreshold | None = Field(
        description="Below this balance (tank units) a `gasTank.low_balance` event is sent, once per crossing; "
        "null: no alerts."
    )


class GasTankSettingsState(WireModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "gasTankId": "9b1d3f5a-7c9e-4b2d-8f6a-0c2e4a6b8d0f",
                    "balance": "25000000000000000000",
                    "lowBalanceThreshold": "5000000000000000000",
                    "lowAlerted": False,
                }
            ]
        }
    )

    gasTankId: str
    balance: str
    lowBalanceThreshold: str | None
    lowAlerted: bool = Field(description="The alert fired for the current crossing (a top-up above it re-arms it).")
