"""Wire models of the custody routes (Family S). Money: decimal strings; `amountInDecimals`: smallest units."""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field

from chalicelib.platform.pagination import PageQuery, Pagination, page_query
from chalicelib.platform.wire import WireModel

_SUB_ID = r"^[A-Za-z0-9._:@+\-]{1,128}$"

# Example values shared by several fields.
_EXAMPLE_ACCOUNT_ID = "e5a7c9b1-3d5f-4b7a-9c1e-3f5a7b9d1c3e"
_EXAMPLE_MPC_SUB_ID = "custody:dedicated:e5a7c9b1"
_EXAMPLE_DEPOSIT_ADDRESS = "0x03C6FcED478cBbC9a4FAB34eF9f40767739D1Ff7"
_EXAMPLE_CREATED_AT = "2026-11-22T08:00:00.000Z"


class CreateAccountRequest(WireModel):
    model_config = ConfigDict(extra="forbid")

    subId: str = Field(
        pattern=_SUB_ID,
        description="Your identifier of the account's user; one account per subId.",
        examples=["user-42"],
    )
    poolType: Literal["dedicated", "organization_owned"] = Field(
        "dedicated",
        description="Whose custody key controls the deposit addresses: this app's own (`dedicated`) or one shared by "
        "the organization's apps (`organization_owned`).",
        examples=["dedicated"],
    )


class CustodyToken(WireModel):
    id: str = Field(examples=["c3e5a7b9-1d3f-4a6c-8e0b-2d4f6a8c0e1b"])
    tokenCode: str = Field(examples=["USDT_POLYGON"])
    symbol: str = Field(examples=["USDT"])
    decimals: int = Field(examples=[6])
    network: str = Field(examples=["polygon-pos"])
    chainId: int = Field(examples=[137])
    tokenAddress: str = Field(
        description="Empty for the native coin.", examples=["0xc2132D05D31c914a87C6611C10748AEb04B58e8F"]
    )
    confirmations: int = Field(description="Blocks after which a deposit of it is credited.", examples=[64])


class CustodyTokenList(WireModel):
    data: list[CustodyToken]


class CustodyWallet(WireModel):
    walletId: str = Field(examples=["f7b9d1c3-5e7a-4c9b-8d1f-5a7c9e1b3d5f"])
    network: str = Field(examples=["polygon-pos"])
    chainId: int = Field(examples=[137])
    address: str = Field(examples=[_EXAMPLE_DEPOSIT_ADDRESS])
    addressType: str = Field(
        description="`native-segwit` or `legacy` on a Bitcoin network (two wallets there); empty for EVM networks.",
        examples=[""],
    )


class CustodyAccount(WireModel):
    id: str = Field(examples=[_EXAMPLE_ACCOUNT_ID])
    subId: str = Field(examples=["user-42"])
    mpcSubId: str = Field(
        description="The custody key the deposit addresses belong to.", examples=[_EXAMPLE_MPC_SUB_ID]
    )
    status: Literal["active"] = Field(examples=["active"])
    poolType: Literal["dedicated", "organization_owned"] = Field(examples=["dedicated"])
    wallets: list[CustodyWallet]
    createdAt: str = Field(examples=[_EXAMPLE_CREATED_AT])


class CustodyAccountPage(WireModel):
    data: list[CustodyAccount]
    pagination: Pagination


class CustodyAccountListQuery(page_query(10)):  # type: ignore[misc]
    subId: str | None = Field(None, pattern=_SUB_ID, description="Only the account of this subId (0 or 1 records).")


class CustodyBalance(WireModel):
    network: str = Field(examples=["polygon-pos"])
    chainId: int = Field(examples=[137])
    tokenCode: str = Field(examples=["USDT_POLYGON"])
    symbol: str = Field(examples=["USDT"])
    decimals: int = Field(examples=[6])
    activeBalance: str = Field(description="Credited and spendable.", examples=["25.5"])
    pendingBalance: str = Field(description="Seen on chain, not yet confirmed.", examples=["0"])
    heldBalance: str = Field(description="Reserved by pending withdrawals.", examples=["10"])
    activeBalanceInDecimals: str = Field(examples=["25500000"])
    pendingBalanceInDecimals: str = Field(examples=["0"])
    heldBalanceInDecimals: str = Field(examples=["10000000"])


class CustodyBalances(WireModel):
    accountId: str = Field(examples=[_EXAMPLE_ACCOUNT_ID])
    balances: list[CustodyBalance]


class JournalEntry(WireModel):
    id: str = Field(examples=["7b9d1f3a-5c7e-4b9d-8f1a-3c5e7a9b1d3f"])
    kind: Literal["pending", "pending_void", "credit", "correction", "hold", "release", "debit"] = Field(
        examples=["credit"]
    )
    debitAccount: str = Field(
        description="The ledger account debited (`account:<id>:<balance>` or `house:...`).",
        examples=["deposits:polygon-pos"],
    )
    creditAccount: str = Field(description="The ledger account credited.", examples=[_EXAMPLE_ACCOUNT_ID])
    amount: str = Field(description="Smallest units, positive.", examples=["25500000"])
    network: str = Field(examples=["polygon-pos"])
    chainId: int = Field(examples=[137])
    tokenCode: str = Field(examples=["USDT_POLYGON"])
    activeDelta: str = Field(examples=["25500000"])
    pendingDelta: str = Field(examples=["-25500000"])
    heldDelta: str = Field(examples=["0"])
    activeAfter: str = Field(examples=["25500000"])
    pendingAfter: str = Field(examples=["0"])
    heldAfter: str = Field(examples=["0"])
    reason: str = Field(examples=["deposit confirmed"])
    referenceType: str = Field(examples=["deposit"])
    referenceId: str = Field(examples=["3d5f7a9c-1e3b-4f5a-8c7e-9b1d3f5a7c9e"])
    createdAt: str = Field(examples=["2026-11-22T08:00:31.000Z"])


class JournalEntryPage(WireModel):
    data: list[JournalEntry]
    pagination: Pagination


__all__ = ["PageQuery"]


class GasWalletBalance(WireModel):
    network: str = Field(examples=["polygon-pos"])
    chainId: int = Field(examples=[137])
    balance: str = Field(description="Native coin, human units.", examples=["0.25"])
    symbol: str = Field(examples=["POL"])


class GasWallet(WireModel):
    mpcSubId: str = Field(description="The custody key.", examples=[_EXAMPLE_MPC_SUB_ID])
    poolType: Literal["dedicated", "organization_owned"] = Field(examples=["dedicated"])
    address: str = Field(
        description="The key's own address: it pays the gas of withdrawals; fund it.",
        examples=[_EXAMPLE_DEPOSIT_ADDRESS],
    )
    balances: list[GasWalletBalance]


class GasWalletList(WireModel):
    data: list[GasWallet]
