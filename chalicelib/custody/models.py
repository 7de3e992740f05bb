"""Wire models of the custody routes (Family S). Money: decimal strings; `amountInDecimals`: smallest units."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from chalicelib.platform.pagination import PageQuery, Pagination, page_query

InvoiceStatus = Literal["pending", "paid", "expired", "failed"]
DepositStatus = Literal["pending", "credited", "reverted"]
_SUB_ID = r"^[A-Za-z0-9._:@+\-]{1,128}$"


class CreateAccountRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    subId: str = Field(pattern=_SUB_ID, description="Your identifier of the account's user; one account per subId.")
    poolType: Literal["dedicated", "organization_owned"] = Field(
        "dedicated",
        description="Whose custody key controls the deposit addresses: this app's own (`dedicated`) or one shared by "
        "the organization's apps (`organization_owned`).",
    )


class CustodyToken(BaseModel):
    id: str
    tokenCode: str
    symbol: str
    decimals: int
    network: str
    chainId: int
    tokenAddress: str = Field(description="Empty for the native coin.")
    confirmations: int = Field(description="Blocks after which a deposit of it is credited.")


class CustodyTokenList(BaseModel):
    data: list[CustodyToken]


class CustodyWallet(BaseModel):
    walletId: str
    network: str
    chainId: int
    address: str
    addressType: str = Field(description="Empty for EVM networks.")


class CustodyAccount(BaseModel):
    id: str
    subId: str
    mpcSubId: str = Field(description="The custody key the deposit addresses belong to.")
    status: Literal["active"]
    poolType: Literal["dedicated", "organization_owned"]
    wallets: list[CustodyWallet]
    createdAt: str


class CustodyAccountPage(BaseModel):
    data: list[CustodyAccount]
    pagination: Pagination


class CustodyAccountListQuery(page_query(10)):  # type: ignore[misc]
    subId: str | None = Field(None, pattern=_SUB_ID, description="Only the account of this subId (0 or 1 records).")


class CustodyBalance(BaseModel):
    network: str
    chainId: int
    tokenCode: str
    symbol: str
    decimals: int
    activeBalance: str = Field(description="Credited and spendable.")
    pendingBalance: str = Field(description="Seen on chain, not yet confirmed.")
    heldBalance: str = Field(description="Reserved by pending withdrawals.")
    activeBalanceInDecimals: str
    pendingBalanceInDecimals: str
    heldBalanceInDecimals: str


class CustodyBalances(BaseModel):
    accountId: str
    balances: list[CustodyBalance]


class JournalEntry(BaseModel):
    id: str
    kind: Literal["pending", "pending_void", "credit", "correction", "hold", "release", "debit"]
    debitAccount: str = Field(description="The ledger account debited (`account:<id>:<balance>` or `house:...`).")
    creditAccount: str = Field(description="The ledger account credited.")
    amount: str = Field(description="Smallest units, positive.")
    network: str
    chainId: int
    tokenCode: str
    activeDelta: str
    pendingDelta: str
    heldDelta: str
    activeAfter: str
    pendingAfter: str
    heldAfter: str
    reason: str
    referenceType: str
    referenceId: str
    createdAt: str


class JournalEntryPage(BaseModel):
    data: list[JournalEntry]
    pagination: Pagination


class CreateInvoiceRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    accountId: str = Field(max_length=64)
    network: str = Field(max_length=40)
    tokenCode: str = Field(max_length=20)
    amount: str = Field(max_length=100, description='Human units, a decimal string such as "12.5".')
    reference: str = Field(min_length=1, max_length=128, description="Your reference; unique per app.")
    expiresInSeconds: int | None = Field(None, ge=60, le=30 * 86_400)


class Invoice(BaseModel):
    id: str
    accountId: str
    status: InvoiceStatus
    network: str
    chainId: int
    tokenCode: str
    amount: str
    amountInDecimals: str = Field(description="The amount in the token's smallest unit.")
    reference: str
    walletId: str
    depositAddress: str
    expiresAt: str
    bufferInSeconds: int
    createdAt: str
    paidAt: str | None = None
    failedAt: str | None = None
    expiredAt: str | None = None
    transactionHash: str | None = None
    depositId: str | None = Field(None, description="The deposit that pays (or paid) it.")
    failedReason: str | None = Field(None, description="`amount_mismatch` for a failed invoice.")
    receivedAmountInDecimals: str | None = Field(None, description="What a failed invoice's payment brought.")


class InvoicePage(BaseModel):
    data: list[Invoice]
    pagination: Pagination


class InvoiceListQuery(page_query(10)):  # type: ignore[misc]
    accountId: str | None = Field(None, max_length=64)
    status: InvoiceStatus | None = None
    reference: str | None = Field(None, min_length=1, max_length=128, description="Only the invoice of this reference.")


class DepositTransaction(BaseModel):
    txHash: str
    chainId: int
    networkCode: str
    from_: str = Field(alias="from")
    to: str
    tokenAddress: str
    tokenSymbol: str
    value: str
    valueDecimals: int
    blockchainType: str

    model_config = ConfigDict(populate_by_name=True)


class DepositCredit(BaseModel):
    tokenCode: str
    amount: str
    referenceType: str
    referenceId: str


class Deposit(BaseModel):
    id: str
    accountId: str
    walletId: str
    status: DepositStatus
    matchType: Literal["invoice", "wallet"]
    invoiceId: str | None
    late: bool
    network: str
    chainId: int
    tokenCode: str
    amount: str
    amountInDecimals: str
    transaction: DepositTransaction
    blockNumber: int
    blockHash: str
    logIndex: int | None
    confirmations: int | None
    confirmationsRequired: int
    credit: DepositCredit | None
    invoiceOutcome: Literal["paid", "failed"] | None
    seenAt: str
    creditedAt: str | None
    revertedAt: str | None
    createdAt: str


class DepositPage(BaseModel):
    data: list[Deposit]
    pagination: Pagination


class DepositListQuery(page_query(10)):  # type: ignore[misc]
    accountId: str | None = Field(None, max_length=64)
    invoiceId: str | None = Field(None, max_length=64)
    status: DepositStatus | None = None


class WatcherStatus(BaseModel):
    network: str
    chainId: int
    cursor: int | None = Field(description="The last block scanned.")
    head: int | None
    lag: int | None
    confirmations: int
    lastStepAt: str | None


__all__ = ["PageQuery"]


class CreateWithdrawalRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    accountId: str = Field(max_length=64)
    network: str = Field(max_length=40)
    tokenCode: str = Field(max_length=20)
    to: str = Field(max_length=42, description="The recipient's address.")
    amount: str = Field(max_length=100, description='Human units, a decimal string such as "12.5".')
    reference: str | None = Field(None, min_length=1, max_length=128, description="Your reference; unique per app.")


WithdrawalStatus = Literal["pending", "sending", "sent", "success", "failed"]


class Withdrawal(BaseModel):
    id: str
    accountId: str
    status: WithdrawalStatus
    network: str
    chainId: int
    tokenCode: str
    amount: str
    amountInDecimals: str
    fee: str = Field(description="Charged on top of the amount; none today.")
    from_: str = Field(alias="from", description="The account's deposit address the amount is paid from.")
    to: str
    reference: str | None
    txHash: str | None
    failedReason: str | None
    createdAt: str
    updatedAt: str
    sentAt: str | None
    completedAt: str | None
    failedAt: str | None

    model_config = ConfigDict(populate_by_name=True)


class WithdrawalPage(BaseModel):
    data: list[Withdrawal]
    pagination: Pagination


class WithdrawalListQuery(page_query(10)):  # type: ignore[misc]
    accountId: str | None = Field(None, max_length=64)
    status: WithdrawalStatus | None = None


class Allowlist(BaseModel):
    enabled: bool = Field(description="When true, withdrawals may only go to `addresses`.")
    addresses: list[str]
    updatedAt: str | None = None


class GasWalletBalance(BaseModel):
    network: str
    chainId: int
    balance: str = Field(description="Native coin, human units.")
    symbol: str


class GasWallet(BaseModel):
    mpcSubId: str = Field(description="The custody key.")
    poolType: Literal["dedicated", "organization_owned"]
    address: str = Field(description="The key's own address: it pays the gas of withdrawals; fund it.")
    balances: list[GasWalletBalance]


class GasWalletList(BaseModel):
    data: list[GasWallet]
