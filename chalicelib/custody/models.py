"""Wire models of the custody routes (Family S). Money: decimal strings; `amountInDecimals`: smallest units."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, Field

from chalicelib.platform.pagination import PageQuery, Pagination, page_query
from chalicelib.platform.wire import WireModel

InvoiceStatus = Literal["pending", "paid", "expired", "failed"]
DepositStatus = Literal["pending", "credited", "reverted"]
_SUB_ID = r"^[A-Za-z0-9._:@+\-]{1,128}$"


_EXAMPLE_CREATE_ACCOUNT_REQUEST: dict[str, Any] = {"subId": "user-42", "poolType": "dedicated"}


class CreateAccountRequest(WireModel):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [_EXAMPLE_CREATE_ACCOUNT_REQUEST]})

    subId: str = Field(pattern=_SUB_ID, description="Your identifier of the account's user; one account per subId.")
    poolType: Literal["dedicated", "organization_owned"] = Field(
        "dedicated",
        description="Whose custody key controls the deposit addresses: this app's own (`dedicated`) or one shared by "
        "the organization's apps (`organization_owned`).",
    )


class CustodyToken(WireModel):
    id: str
    tokenCode: str
    symbol: str
    decimals: int
    network: str
    chainId: int
    tokenAddress: str = Field(description="Empty for the native coin.")
    confirmations: int = Field(description="Blocks after which a deposit of it is credited.")


_EXAMPLE_CUSTODY_TOKEN_LIST: dict[str, Any] = {
    "data": [
        {
            "id": "c3e5a7b9-1d3f-4a6c-8e0b-2d4f6a8c0e1b",
            "tokenCode": "USDT_POLYGON",
            "symbol": "USDT",
            "decimals": 6,
            "network": "polygon-pos",
            "chainId": 137,
            "tokenAddress": "0xc2132D05D31c914a87C6611C10748AEb04B58e8F",
            "confirmations": 64,
        }
    ]
}


class CustodyTokenList(WireModel):
    model_config = ConfigDict(json_schema_extra={"examples": [_EXAMPLE_CUSTODY_TOKEN_LIST]})

    data: list[CustodyToken]


class CustodyWallet(WireModel):
    walletId: str
    network: str
    chainId: int
    address: str
    addressType: str = Field(description="Empty for EVM networks.")


_EXAMPLE_CUSTODY_ACCOUNT: dict[str, Any] = {
    "id": "e5a7c9b1-3d5f-4b7a-9c1e-3f5a7b9d1c3e",
    "subId": "user-42",
    "mpcSubId": "custody:dedicated:e5a7c9b1",
    "status": "active",
    "poolType": "dedicated",
    "wallets": [
        {
            "walletId": "f7b9d1c3-5e7a-4c9b-8d1f-5a7c9e1b3d5f",
            "network": "polygon-pos",
            "chainId": 137,
            "address": "0x03C6FcED478cBbC9a4FAB34eF9f40767739D1Ff7",
            "addressType": "",
        }
    ],
    "createdAt": "2026-11-22T08:00:00.000Z",
}


class CustodyAccount(WireModel):
    model_config = ConfigDict(json_schema_extra={"examples": [_EXAMPLE_CUSTODY_ACCOUNT]})

    id: str
    subId: str
    mpcSubId: str = Field(description="The custody key the deposit addresses belong to.")
    status: Literal["active"]
    poolType: Literal["dedicated", "organization_owned"]
    wallets: list[CustodyWallet]
    createdAt: str


_EXAMPLE_CUSTODY_ACCOUNT_PAGE: dict[str, Any] = {
    "data": [
        {
            "id": "e5a7c9b1-3d5f-4b7a-9c1e-3f5a7b9d1c3e",
            "subId": "user-42",
            "mpcSubId": "custody:dedicated:e5a7c9b1",
            "status": "active",
            "poolType": "dedicated",
            "wallets": [
                {
                    "walletId": "f7b9d1c3-5e7a-4c9b-8d1f-5a7c9e1b3d5f",
                    "network": "polygon-pos",
                    "chainId": 137,
                    "address": "0x03C6FcED478cBbC9a4FAB34eF9f40767739D1Ff7",
                    "addressType": "",
                }
            ],
            "createdAt": "2026-11-22T08:00:00.000Z",
        }
    ],
    "pagination": {"total": 1, "page": 1, "limit": 20, "totalPages": 1, "hasNext": False, "hasPrev": False},
}


class CustodyAccountPage(WireModel):
    model_config = ConfigDict(json_schema_extra={"examples": [_EXAMPLE_CUSTODY_ACCOUNT_PAGE]})

    data: list[CustodyAccount]
    pagination: Pagination


class CustodyAccountListQuery(page_query(10)):  # type: ignore[misc]
    subId: str | None = Field(None, pattern=_SUB_ID, description="Only the account of this subId (0 or 1 records).")


class CustodyBalance(WireModel):
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


_EXAMPLE_CUSTODY_BALANCES: dict[str, Any] = {
    "accountId": "e5a7c9b1-3d5f-4b7a-9c1e-3f5a7b9d1c3e",
    "balances": [
        {
            "network": "polygon-pos",
            "chainId": 137,
            "tokenCode": "USDT_POLYGON",
            "symbol": "USDT",
            "decimals": 6,
            "activeBalance": "25.5",
            "pendingBalance": "0",
            "heldBalance": "10",
            "activeBalanceInDecimals": "25500000",
            "pendingBalanceInDecimals": "0",
            "heldBalanceInDecimals": "10000000",
        }
    ],
}


class CustodyBalances(WireModel):
    model_config = ConfigDict(json_schema_extra={"examples": [_EXAMPLE_CUSTODY_BALANCES]})

    accountId: str
    balances: list[CustodyBalance]


class JournalEntry(WireModel):
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


_EXAMPLE_JOURNAL_ENTRY_PAGE: dict[str, Any] = {
    "data": [
        {
            "id": "7b9d1f3a-5c7e-4b9d-8f1a-3c5e7a9b1d3f",
            "kind": "credit",
            "debitAccount": "deposits:polygon-pos",
            "creditAccount": "e5a7c9b1-3d5f-4b7a-9c1e-3f5a7b9d1c3e",
            "amount": "25500000",
            "network": "polygon-pos",
            "chainId": 137,
            "tokenCode": "USDT_POLYGON",
            "activeDelta": "25500000",
            "pendingDelta": "-25500000",
            "heldDelta": "0",
            "activeAfter": "25500000",
            "pendingAfter": "0",
            "heldAfter": "0",
            "reason": "deposit confirmed",
            "referenceType": "deposit",
            "referenceId": "3d5f7a9c-1e3b-4f5a-8c7e-9b1d3f5a7c9e",
            "createdAt": "2026-11-22T08:00:31.000Z",
        }
    ],
    "pagination": {"total": 1, "page": 1, "limit": 20, "totalPages": 1, "hasNext": False, "hasPrev": False},
}


class JournalEntryPage(WireModel):
    model_config = ConfigDict(json_schema_extra={"examples": [_EXAMPLE_JOURNAL_ENTRY_PAGE]})

    data: list[JournalEntry]
    pagination: Pagination


_EXAMPLE_CREATE_INVOICE_REQUEST: dict[str, Any] = {
    "accountId": "e5a7c9b1-3d5f-4b7a-9c1e-3f5a7b9d1c3e",
    "network": "polygon-pos",
    "tokenCode": "USDT_POLYGON",
    "amount": "25.5",
    "reference": "order-1001",
    "expiresInSeconds": 3600,
}


class CreateInvoiceRequest(WireModel):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [_EXAMPLE_CREATE_INVOICE_REQUEST]})

    accountId: str = Field(max_length=64)
    network: str = Field(max_length=40)
    tokenCode: str = Field(max_length=20)
    amount: str = Field(max_length=100, description='Human units, a decimal string such as "12.5".')
    reference: str = Field(min_length=1, max_length=128, description="Your reference; unique per app.")
    expiresInSeconds: int | None = Field(None, ge=60, le=30 * 86_400)


_EXAMPLE_INVOICE: dict[str, Any] = {
    "id": "1b3d5f7a-9c1e-4d3f-8a5c-7e9b1d3f5a7c",
    "accountId": "e5a7c9b1-3d5f-4b7a-9c1e-3f5a7b9d1c3e",
    "status": "pending",
    "network": "polygon-pos",
    "chainId": 137,
    "tokenCode": "USDT_POLYGON",
    "amount": "25.5",
    "amountInDecimals": "25500000",
    "reference": "order-1001",
    "walletId": "f7b9d1c3-5e7a-4c9b-8d1f-5a7c9e1b3d5f",
    "depositAddress": "0x03C6FcED478cBbC9a4FAB34eF9f40767739D1Ff7",
    "expiresAt": "2026-11-22T09:00:00.000Z",
    "bufferInSeconds": 300,
    "createdAt": "2026-11-22T08:00:00.000Z",
    "paidAt": None,
    "failedAt": None,
    "expiredAt": None,
    "transactionHash": None,
    "depositId": None,
    "failedReason": None,
    "receivedAmountInDecimals": None,
}


class Invoice(WireModel):
    model_config = ConfigDict(json_schema_extra={"examples": [_EXAMPLE_INVOICE]})

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


_EXAMPLE_INVOICE_PAGE: dict[str, Any] = {
    "data": [
        {
            "id": "1b3d5f7a-9c1e-4d3f-8a5c-7e9b1d3f5a7c",
            "accountId": "e5a7c9b1-3d5f-4b7a-9c1e-3f5a7b9d1c3e",
            "status": "pending",
            "network": "polygon-pos",
            "chainId": 137,
            "tokenCode": "USDT_POLYGON",
            "amount": "25.5",
            "amountInDecimals": "25500000",
            "reference": "order-1001",
            "walletId": "f7b9d1c3-5e7a-4c9b-8d1f-5a7c9e1b3d5f",
            "depositAddress": "0x03C6FcED478cBbC9a4FAB34eF9f40767739D1Ff7",
            "expiresAt": "2026-11-22T09:00:00.000Z",
            "bufferInSeconds": 300,
            "createdAt": "2026-11-22T08:00:00.000Z",
            "paidAt": None,
            "failedAt": None,
            "expiredAt": None,
            "transactionHash": None,
            "depositId": None,
            "failedReason": None,
            "receivedAmountInDecimals": None,
        }
    ],
    "pagination": {"total": 1, "page": 1, "limit": 20, "totalPages": 1, "hasNext": False, "hasPrev": False},
}


class InvoicePage(WireModel):
    model_config = ConfigDict(json_schema_extra={"examples": [_EXAMPLE_INVOICE_PAGE]})

    data: list[Invoice]
    pagination: Pagination


class InvoiceListQuery(page_query(10)):  # type: ignore[misc]
    accountId: str | None = Field(None, max_length=64)
    status: InvoiceStatus | None = None
    reference: str | None = Field(None, min_length=1, max_length=128, description="Only the invoice of this reference.")


class DepositTransaction(WireModel):
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


class DepositCredit(WireModel):
    tokenCode: str
    amount: str
    referenceType: str
    referenceId: str


_EXAMPLE_DEPOSIT: dict[str, Any] = {
    "id": "3d5f7a9c-1e3b-4f5a-8c7e-9b1d3f5a7c9e",
    "accountId": "e5a7c9b1-3d5f-4b7a-9c1e-3f5a7b9d1c3e",
    "walletId": "f7b9d1c3-5e7a-4c9b-8d1f-5a7c9e1b3d5f",
    "status": "credited",
    "matchType": "invoice",
    "invoiceId": "1b3d5f7a-9c1e-4d3f-8a5c-7e9b1d3f5a7c",
    "late": False,
    "network": "polygon-pos",
    "chainId": 137,
    "tokenCode": "USDT_POLYGON",
    "amount": "25.5",
    "amountInDecimals": "25500000",
    "transaction": {
        "txHash": "0x2d4f6a8c0e1b3d5f7a9c2e4f6b8d0a1c3e5f7b9d1a3c5e7f9b2d4f6a8c0e1b3d",
        "chainId": 137,
        "networkCode": "polygon-pos",
        "from": "0xAb8483F64d9C6d1EcF9b849Ae677dD3315835cb2",
        "to": "0x03C6FcED478cBbC9a4FAB34eF9f40767739D1Ff7",
        "tokenAddress": "0xc2132D05D31c914a87C6611C10748AEb04B58e8F",
        "tokenSymbol": "USDT",
        "value": "25500000",
        "valueDecimals": 6,
        "blockchainType": "evm",
    },
    "blockNumber": 64128377,
    "blockHash": "0x6b9f2e4c1a3d5f7b9e8c0a2d4f6b8e0c1a3d5f7b9e2c4a6d8f0b1c3e5a7d9f1b",
    "logIndex": 12,
    "confirmations": 64,
    "confirmationsRequired": 64,
    "credit": {
        "tokenCode": "USDT_POLYGON",
        "amount": "25.5",
        "referenceType": "invoice",
        "referenceId": "1b3d5f7a-9c1e-4d3f-8a5c-7e9b1d3f5a7c",
    },
    "invoiceOutcome": "paid",
    "seenAt": "2026-11-22T08:00:00.000Z",
    "creditedAt": "2026-11-22T08:00:31.000Z",
    "revertedAt": None,
    "createdAt": "2026-11-22T08:00:00.000Z",
}


class Deposit(WireModel):
    model_config = ConfigDict(json_schema_extra={"examples": [_EXAMPLE_DEPOSIT]})

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


_EXAMPLE_DEPOSIT_PAGE: dict[str, Any] = {
    "data": [
        {
            "id": "3d5f7a9c-1e3b-4f5a-8c7e-9b1d3f5a7c9e",
            "accountId": "e5a7c9b1-3d5f-4b7a-9c1e-3f5a7b9d1c3e",
            "walletId": "f7b9d1c3-5e7a-4c9b-8d1f-5a7c9e1b3d5f",
            "status": "credited",
            "matchType": "invoice",
            "invoiceId": "1b3d5f7a-9c1e-4d3f-8a5c-7e9b1d3f5a7c",
            "late": False,
            "network": "polygon-pos",
            "chainId": 137,
            "tokenCode": "USDT_POLYGON",
            "amount": "25.5",
            "amountInDecimals": "25500000",
            "transaction": {
                "txHash": "0x2d4f6a8c0e1b3d5f7a9c2e4f6b8d0a1c3e5f7b9d1a3c5e7f9b2d4f6a8c0e1b3d",
                "chainId": 137,
                "networkCode": "polygon-pos",
                "from": "0xAb8483F64d9C6d1EcF9b849Ae677dD3315835cb2",
                "to": "0x03C6FcED478cBbC9a4FAB34eF9f40767739D1Ff7",
                "tokenAddress": "0xc2132D05D31c914a87C6611C10748AEb04B58e8F",
                "tokenSymbol": "USDT",
                "value": "25500000",
                "valueDecimals": 6,
                "blockchainType": "evm",
            },
            "blockNumber": 64128377,
            "blockHash": "0x6b9f2e4c1a3d5f7b9e8c0a2d4f6b8e0c1a3d5f7b9e2c4a6d8f0b1c3e5a7d9f1b",
            "logIndex": 12,
            "confirmations": 64,
            "confirmationsRequired": 64,
            "credit": {
                "tokenCode": "USDT_POLYGON",
                "amount": "25.5",
                "referenceType": "invoice",
                "referenceId": "1b3d5f7a-9c1e-4d3f-8a5c-7e9b1d3f5a7c",
            },
            "invoiceOutcome": "paid",
            "seenAt": "2026-11-22T08:00:00.000Z",
            "creditedAt": "2026-11-22T08:00:31.000Z",
            "revertedAt": None,
            "createdAt": "2026-11-22T08:00:00.000Z",
        }
    ],
    "pagination": {"total": 1, "page": 1, "limit": 20, "totalPages": 1, "hasNext": False, "hasPrev": False},
}


class DepositPage(WireModel):
    model_config = ConfigDict(json_schema_extra={"examples": [_EXAMPLE_DEPOSIT_PAGE]})

    data: list[Deposit]
    pagination: Pagination


class DepositListQuery(page_query(10)):  # type: ignore[misc]
    accountId: str | None = Field(None, max_length=64)
    invoiceId: str | None = Field(None, max_length=64)
    status: DepositStatus | None = None


_EXAMPLE_WATCHER_STATUS: dict[str, Any] = {
    "network": "polygon-pos",
    "chainId": 137,
    "cursor": 64128400,
    "head": 64128402,
    "lag": 2,
    "confirmations": 64,
    "lastStepAt": "2026-11-22T08:00:12.000Z",
}


class WatcherStatus(WireModel):
    model_config = ConfigDict(json_schema_extra={"examples": [_EXAMPLE_WATCHER_STATUS]})

    network: str
    chainId: int
    cursor: int | None = Field(description="The last block scanned.")
    head: int | None
    lag: int | None
    confirmations: int
    lastStepAt: str | None


__all__ = ["PageQuery"]


_EXAMPLE_CREATE_WITHDRAWAL_REQUEST: dict[str, Any] = {
    "accountId": "e5a7c9b1-3d5f-4b7a-9c1e-3f5a7b9d1c3e",
    "network": "polygon-pos",
    "tokenCode": "USDT_POLYGON",
    "to": "0xAb8483F64d9C6d1EcF9b849Ae677dD3315835cb2",
    "amount": "10",
    "reference": "payout-77",
}


class CreateWithdrawalRequest(WireModel):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [_EXAMPLE_CREATE_WITHDRAWAL_REQUEST]})

    accountId: str = Field(max_length=64)
    network: str = Field(max_length=40)
    tokenCode: str = Field(max_length=20)
    to: str = Field(max_length=42, description="The recipient's address.")
    amount: str = Field(max_length=100, description='Human units, a decimal string such as "12.5".')
    reference: str | None = Field(None, min_length=1, max_length=128, description="Your reference; unique per app.")


WithdrawalStatus = Literal["pending", "sending", "sent", "success", "failed"]


_EXAMPLE_WITHDRAWAL: dict[str, Any] = {
    "id": "5f7a9c1e-3b5d-4a7c-9e1b-3d5f7a9c1e3b",
    "accountId": "e5a7c9b1-3d5f-4b7a-9c1e-3f5a7b9d1c3e",
    "status": "pending",
    "network": "polygon-pos",
    "chainId": 137,
    "tokenCode": "USDT_POLYGON",
    "amount": "10",
    "amountInDecimals": "10000000",
    "fee": "0",
    "from": "0x03C6FcED478cBbC9a4FAB34eF9f40767739D1Ff7",
    "to": "0xAb8483F64d9C6d1EcF9b849Ae677dD3315835cb2",
    "reference": "payout-77",
    "txHash": None,
    "failedReason": None,
    "createdAt": "2026-11-22T08:00:00.000Z",
    "updatedAt": "2026-11-22T08:00:00.000Z",
    "sentAt": None,
    "completedAt": None,
    "failedAt": None,
}


class Withdrawal(WireModel):
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

    model_config = ConfigDict(populate_by_name=True, json_schema_extra={"examples": [_EXAMPLE_WITHDRAWAL]})


_EXAMPLE_WITHDRAWAL_PAGE: dict[str, Any] = {
    "data": [
        {
            "id": "5f7a9c1e-3b5d-4a7c-9e1b-3d5f7a9c1e3b",
            "accountId": "e5a7c9b1-3d5f-4b7a-9c1e-3f5a7b9d1c3e",
            "status": "pending",
            "network": "polygon-pos",
            "chainId": 137,
            "tokenCode": "USDT_POLYGON",
            "amount": "10",
            "amountInDecimals": "10000000",
            "fee": "0",
            "from": "0x03C6FcED478cBbC9a4FAB34eF9f40767739D1Ff7",
            "to": "0xAb8483F64d9C6d1EcF9b849Ae677dD3315835cb2",
            "reference": "payout-77",
            "txHash": None,
            "failedReason": None,
            "createdAt": "2026-11-22T08:00:00.000Z",
            "updatedAt": "2026-11-22T08:00:00.000Z",
            "sentAt": None,
            "completedAt": None,
            "failedAt": None,
        }
    ],
    "pagination": {"total": 1, "page": 1, "limit": 20, "totalPages": 1, "hasNext": False, "hasPrev": False},
}


class WithdrawalPage(WireModel):
    model_config = ConfigDict(json_schema_extra={"examples": [_EXAMPLE_WITHDRAWAL_PAGE]})

    data: list[Withdrawal]
    pagination: Pagination


class WithdrawalListQuery(page_query(10)):  # type: ignore[misc]
    accountId: str | None = Field(None, max_length=64)
    status: WithdrawalStatus | None = None


_EXAMPLE_ALLOWLIST: dict[str, Any] = {
    "enabled": True,
    "addresses": ["0xAb8483F64d9C6d1EcF9b849Ae677dD3315835cb2"],
    "updatedAt": "2026-11-22T08:00:00.000Z",
    "inherited": False,
}


class Allowlist(WireModel):
    model_config = ConfigDict(json_schema_extra={"examples": [_EXAMPLE_ALLOWLIST]})

    enabled: bool = Field(description="When true, withdrawals may only go to `addresses`.")
    addresses: list[str]
    updatedAt: str | None = None
    inherited: bool = Field(
        False,
        description="True when the operator set nothing for this app and another app of its organization has an "
        "allowlist on: withdrawals may go nowhere until the operator sets this app's own (or turns it off).",
    )


class GasWalletBalance(WireModel):
    network: str
    chainId: int
    balance: str = Field(description="Native coin, human units.")
    symbol: str


class GasWallet(WireModel):
    mpcSubId: str = Field(description="The custody key.")
    poolType: Literal["dedicated", "organization_owned"]
    address: str = Field(description="The key's own address: it pays the gas of withdrawals; fund it.")
    balances: list[GasWalletBalance]


_EXAMPLE_GAS_WALLET_LIST: dict[str, Any] = {
    "data": [
        {
            "mpcSubId": "custody:dedicated:e5a7c9b1",
            "poolType": "dedicated",
            "address": "0x03C6FcED478cBbC9a4FAB34eF9f40767739D1Ff7",
            "balances": [{"network": "polygon-pos", "chainId": 137, "balance": "0.25", "symbol": "POL"}],
        }
    ]
}


class GasWalletList(WireModel):
    model_config = ConfigDict(json_schema_extra={"examples": [_EXAMPLE_GAS_WALLET_LIST]})

    data: list[GasWallet]
