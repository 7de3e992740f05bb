"""The deposits' wire models: invoices, deposits and the watcher."""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field

from chalicelib.platform.pagination import Pagination, page_query
from chalicelib.platform.wire import WireModel

InvoiceStatus = Literal["pending", "paid", "expired", "failed"]


DepositStatus = Literal["pending", "credited", "reverted"]

# Example values shared by several fields.
_EXAMPLE_ACCOUNT_ID = "e5a7c9b1-3d5f-4b7a-9c1e-3f5a7b9d1c3e"
_EXAMPLE_WALLET_ID = "f7b9d1c3-5e7a-4c9b-8d1f-5a7c9e1b3d5f"
_EXAMPLE_INVOICE_ID = "1b3d5f7a-9c1e-4d3f-8a5c-7e9b1d3f5a7c"
_EXAMPLE_DEPOSIT_ADDRESS = "0x03C6FcED478cBbC9a4FAB34eF9f40767739D1Ff7"
_EXAMPLE_CREATED_AT = "2026-11-22T08:00:00.000Z"


class CreateInvoiceRequest(WireModel):
    model_config = ConfigDict(extra="forbid")

    accountId: str = Field(max_length=64, examples=[_EXAMPLE_ACCOUNT_ID])
    network: str = Field(max_length=40, examples=["polygon-pos"])
    tokenCode: str = Field(max_length=20, examples=["USDT_POLYGON"])
    amount: str = Field(max_length=100, description='Human units, a decimal string such as "12.5".', examples=["25.5"])
    reference: str = Field(
        min_length=1, max_length=128, description="Your reference; unique per app.", examples=["order-1001"]
    )
    expiresInSeconds: int | None = Field(None, ge=60, le=30 * 86_400, examples=[3600])
    addressType: Literal["native-segwit", "legacy"] | None = Field(
        None,
        description="Where a network has several address types (Bitcoin): the deposit address's type; "
        '`native-segwit` unless `legacy` is asked. Other networks have one address, of type "" (leave this out).',
    )


class Invoice(WireModel):
    id: str = Field(examples=[_EXAMPLE_INVOICE_ID])
    accountId: str = Field(examples=[_EXAMPLE_ACCOUNT_ID])
    status: InvoiceStatus = Field(examples=["pending"])
    network: str = Field(examples=["polygon-pos"])
    chainId: int = Field(examples=[137])
    tokenCode: str = Field(examples=["USDT_POLYGON"])
    amount: str = Field(examples=["25.5"])
    amountInDecimals: str = Field(description="The amount in the token's smallest unit.", examples=["25500000"])
    reference: str = Field(examples=["order-1001"])
    walletId: str = Field(examples=[_EXAMPLE_WALLET_ID])
    depositAddress: str = Field(examples=[_EXAMPLE_DEPOSIT_ADDRESS])
    addressType: str = Field(
        "", description="`native-segwit` or `legacy` on Bitcoin; empty on EVM networks.", examples=[""]
    )
    expiresAt: str = Field(examples=["2026-11-22T09:00:00.000Z"])
    bufferInSeconds: int = Field(examples=[300])
    createdAt: str = Field(examples=[_EXAMPLE_CREATED_AT])
    paidAt: str | None = None
    failedAt: str | None = None
    expiredAt: str | None = None
    transactionHash: str | None = None
    depositId: str | None = Field(None, description="The deposit that pays (or paid) it.")
    failedReason: str | None = Field(None, description="`amount_mismatch` for a failed invoice.")
    receivedAmountInDecimals: str | None = Field(None, description="What a failed invoice's payment brought.")


class InvoicePage(WireModel):
    data: list[Invoice]
    pagination: Pagination


class InvoiceListQuery(page_query(10)):  # type: ignore[misc]
    accountId: str | None = Field(None, max_length=64)
    status: InvoiceStatus | None = None
    reference: str | None = Field(None, min_length=1, max_length=128, description="Only the invoice of this reference.")


class DepositTransaction(WireModel):
    txHash: str = Field(examples=["0x2d4f6a8c0e1b3d5f7a9c2e4f6b8d0a1c3e5f7b9d1a3c5e7f9b2d4f6a8c0e1b3d"])
    chainId: int = Field(examples=[137])
    networkCode: str = Field(examples=["polygon-pos"])
    from_: str = Field(alias="from", examples=["0xAb8483F64d9C6d1EcF9b849Ae677dD3315835cb2"])
    to: str = Field(examples=[_EXAMPLE_DEPOSIT_ADDRESS])
    tokenAddress: str = Field(examples=["0xc2132D05D31c914a87C6611C10748AEb04B58e8F"])
    tokenSymbol: str = Field(examples=["USDT"])
    value: str = Field(examples=["25500000"])
    valueDecimals: int = Field(examples=[6])
    blockchainType: str = Field(examples=["evm"])

    model_config = ConfigDict(populate_by_name=True)


class DepositCredit(WireModel):
    tokenCode: str = Field(examples=["USDT_POLYGON"])
    amount: str = Field(examples=["25.5"])
    referenceType: str = Field(examples=["invoice"])
    referenceId: str = Field(examples=[_EXAMPLE_INVOICE_ID])


class Deposit(WireModel):
    id: str = Field(examples=["3d5f7a9c-1e3b-4f5a-8c7e-9b1d3f5a7c9e"])
    accountId: str = Field(examples=[_EXAMPLE_ACCOUNT_ID])
    walletId: str = Field(examples=[_EXAMPLE_WALLET_ID])
    status: DepositStatus = Field(examples=["credited"])
    matchType: Literal["invoice", "wallet"] = Field(examples=["invoice"])
    invoiceId: str | None = Field(examples=[_EXAMPLE_INVOICE_ID])
    late: bool = Field(examples=[False])
    network: str = Field(examples=["polygon-pos"])
    chainId: int = Field(examples=[137])
    tokenCode: str = Field(examples=["USDT_POLYGON"])
    amount: str = Field(examples=["25.5"])
    amountInDecimals: str = Field(examples=["25500000"])
    transaction: DepositTransaction
    blockNumber: int = Field(examples=[64128377])
    blockHash: str = Field(examples=["0x6b9f2e4c1a3d5f7b9e8c0a2d4f6b8e0c1a3d5f7b9e2c4a6d8f0b1c3e5a7d9f1b"])
    logIndex: int | None = Field(examples=[12])
    confirmations: int | None = Field(examples=[64])
    confirmationsRequired: int = Field(examples=[64])
    credit: DepositCredit | None
    invoiceOutcome: Literal["paid", "failed"] | None = Field(examples=["paid"])
    seenAt: str = Field(examples=[_EXAMPLE_CREATED_AT])
    creditedAt: str | None = Field(examples=["2026-11-22T08:00:31.000Z"])
    revertedAt: str | None
    createdAt: str = Field(examples=[_EXAMPLE_CREATED_AT])


class DepositPage(WireModel):
    data: list[Deposit]
    pagination: Pagination


class DepositListQuery(page_query(10)):  # type: ignore[misc]
    accountId: str | None = Field(None, max_length=64)
    invoiceId: str | None = Field(None, max_length=64)
    status: DepositStatus | None = None


class WatcherStatus(WireModel):
    network: str = Field(examples=["polygon-pos"])
    chainId: int = Field(examples=[137])
    cursor: int | None = Field(description="The last block scanned.", examples=[64128400])
    head: int | None = Field(examples=[64128402])
    lag: int | None = Field(examples=[2])
    confirmations: int = Field(examples=[64])
    lastStepAt: str | None = Field(examples=["2026-11-22T08:00:12.000Z"])
