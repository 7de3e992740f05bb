"""Models of gas tanks: the wire's top-up requests and records, organization tank and usage records; the stored
top-up record and the transaction's marker, with their transition tables."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, PlainSerializer, StrictBool

from chalicelib.platform import aws, due
from chalicelib.platform.addresses import Address
from chalicelib.platform.pagination import Pagination
from chalicelib.platform.records import Record
from chalicelib.platform.transitions import Machine, Move, Stateful

TABLE = "gas-tanks"

# The network's rate as configured (an exact decimal string), kept exact in records and models; the reference API
# shows it as a JSON number, so the wire writes that number.
Rate = Annotated[Decimal, PlainSerializer(float, return_type=float, when_used="json")]

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


class UsagePage(BaseModel):
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
