"""The withdrawals' wire models: withdrawals and the app's allowlist."""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field

from chalicelib.platform.pagination import Pagination, page_query
from chalicelib.platform.wire import WireModel

WithdrawalStatus = Literal["pending", "sending", "sent", "success", "failed"]

# Example values shared by several fields.
_EXAMPLE_ACCOUNT_ID = "e5a7c9b1-3d5f-4b7a-9c1e-3f5a7b9d1c3e"
_EXAMPLE_RECIPIENT = "0xAb8483F64d9C6d1EcF9b849Ae677dD3315835cb2"
_EXAMPLE_CREATED_AT = "2026-11-22T08:00:00.000Z"


class CreateWithdrawalRequest(WireModel):
    model_config = ConfigDict(extra="forbid")

    accountId: str = Field(max_length=64, examples=[_EXAMPLE_ACCOUNT_ID])
    network: str = Field(max_length=40, examples=["polygon-pos"])
    tokenCode: str = Field(max_length=20, examples=["USDT_POLYGON"])
    to: str = Field(
        max_length=90,
        description="The recipient's address: 0x-hex on an EVM network; on a Bitcoin network, an address of its chain.",
        examples=[_EXAMPLE_RECIPIENT],
    )
    amount: str = Field(max_length=100, description='Human units, a decimal string such as "12.5".', examples=["10"])
    reference: str | None = Field(
        None, min_length=1, max_length=128, description="Your reference; unique per app.", examples=["payout-77"]
    )


class Withdrawal(WireModel):
    id: str = Field(examples=["5f7a9c1e-3b5d-4a7c-9e1b-3d5f7a9c1e3b"])
    accountId: str = Field(examples=[_EXAMPLE_ACCOUNT_ID])
    status: WithdrawalStatus = Field(examples=["pending"])
    network: str = Field(examples=["polygon-pos"])
    chainId: int = Field(examples=[137])
    tokenCode: str = Field(examples=["USDT_POLYGON"])
    amount: str = Field(examples=["10"])
    amountInDecimals: str = Field(examples=["10000000"])
    fee: str = Field(description="Charged on top of the amount; none today.", examples=["0"])
    from_: str = Field(
        alias="from",
        description="The account's deposit address the amount is paid from.",
        examples=["0x03C6FcED478cBbC9a4FAB34eF9f40767739D1Ff7"],
    )
    to: str = Field(examples=[_EXAMPLE_RECIPIENT])
    reference: str | None = Field(examples=["payout-77"])
    txHash: str | None
    failedReason: str | None
    createdAt: str = Field(examples=[_EXAMPLE_CREATED_AT])
    updatedAt: str = Field(examples=[_EXAMPLE_CREATED_AT])
    sentAt: str | None
    completedAt: str | None
    failedAt: str | None

    model_config = ConfigDict(populate_by_name=True)


class WithdrawalPage(WireModel):
    data: list[Withdrawal]
    pagination: Pagination


class WithdrawalListQuery(page_query(10)):  # type: ignore[misc]
    accountId: str | None = Field(None, max_length=64)
    status: WithdrawalStatus | None = None


class Allowlist(WireModel):
    enabled: bool = Field(description="When true, withdrawals may only go to `addresses`.", examples=[True])
    addresses: list[str] = Field(examples=[[_EXAMPLE_RECIPIENT]])
    updatedAt: str | None = Field(None, examples=[_EXAMPLE_CREATED_AT])
    inherited: bool = Field(
        False,
        description="True when the operator set nothing for this app and another app of its organization has an "
        "allowlist on: withdrawals may go nowhere until the operator sets this app's own (or turns it off).",
    )
