"""Custody routes (Family S, signed requests; the signing app is the tenant). docs/custody.md."""

from __future__ import annotations

from chalice import Blueprint

from chalicelib.auth import guards
from chalicelib.custody import service
from chalicelib.custody.accounts import ACCOUNT_NOT_FOUND
from chalicelib.custody.deposits import service as deposits
from chalicelib.custody.deposits.invoices import INVOICE_NOT_FOUND
from chalicelib.custody.deposits.lifecycle import DEPOSIT_NOT_FOUND
from chalicelib.custody.deposits.models import (
    CreateInvoiceRequest,
    Deposit,
    DepositListQuery,
    DepositPage,
    Invoice,
    InvoiceListQuery,
    InvoicePage,
    WatcherStatus,
)
from chalicelib.custody.models import (
    CreateAccountRequest,
    CustodyAccount,
    CustodyAccountListQuery,
    CustodyAccountPage,
    CustodyBalances,
    CustodyTokenList,
    GasWalletList,
    JournalEntryPage,
)
from chalicelib.custody.withdrawals import service as withdrawals
from chalicelib.custody.withdrawals.lifecycle import WITHDRAWAL_NOT_FOUND
from chalicelib.custody.withdrawals.models import (
    Allowlist,
    CreateWithdrawalRequest,
    Withdrawal,
    WithdrawalListQuery,
    WithdrawalPage,
)
from chalicelib.platform.networks import UNKNOWN_NETWORK
from chalicelib.platform.pagination import page_query
from chalicelib.platform.path_ids import PathId
from chalicelib.platform.router import Call, Reply, route

bp = Blueprint(__name__)
TAG = "Custody"
EntryQuery = page_query(20)
ACCOUNT_ID = PathId(ACCOUNT_NOT_FOUND, "No such account")


@route(
    bp,
    "/api/v1/custody/tokens",
    "GET",
    summary="Tokens custody accounts accept, per network",
    tag=TAG,
    guard=guards.signed_request,
    response=CustodyTokenList,
    description="Family S. Every token a custody account can hold, with its network, contract, decimals and the "
    "confirmations a deposit needs before it is credited.",
)
def list_tokens(call: Call) -> Reply:
    return Reply(service.tokens())


@route(
    bp,
    "/api/v1/custody/accounts",
    "POST",
    summary="Create (or get) the custody account of a subId",
    tag=TAG,
    guard=guards.signed_request,
    body=CreateAccountRequest,
    response=CustodyAccount,
    description="Idempotent per app and subId: a repeat answers the same account (message `account exists`) "
    "and emits no second `account.created`.",
    message="account created",
    errors={
        400: ("INVALID_ADDRESS", "INVALID_PRIVATE_KEY"),
        403: ("POLICY_DENIED",),
        404: ("ACCOUNT_NOT_FOUND",),
        502: ("UPSTREAM_UNAVAILABLE",),
        503: (
            "CUSTODY_BUSY",
            "CUSTODY_KEY_PENDING",
            "LIST_BUSY",
            "NO_CUSTODY_NETWORKS",
            "SIGNER_BUSY",
            "SIGNER_UNAVAILABLE",
            "WALLET_POOL_EMPTY",
        ),
    },
)
def create_account(call: Call) -> Reply:
    account, created = service.create_account(call.principal, call.body.subId, call.body.poolType)
    return Reply(account, "account created" if created else "account exists")


@route(
    bp,
    "/api/v1/custody/accounts",
    "GET",
    summary="The app's custody accounts, newest first",
    tag=TAG,
    guard=guards.signed_request,
    query=CustodyAccountListQuery,
    response=CustodyAccountPage,
    description="Family S. The app's custody accounts, each with its deposit addresses per network. Query `page` "
    "(from 1) and `limit`; the answer is `{data, pagination}` with `total`, `totalPages`, `hasNext`, "
    "`hasPrev`.",
)
def list_accounts(call: Call) -> Reply:
    return Reply(service.account_page(call.principal, call.query))


@route(
    bp,
    "/api/v1/custody/accounts/{accountId}",
    "GET",
    summary="One custody account",
    tag=TAG,
    guard=guards.signed_request,
    response=CustodyAccount,
    errors={404: ("ACCOUNT_NOT_FOUND",)},
    description="Family S. One custody account of the app with its deposit addresses; another app's account is not "
    "found.",
    ids={"accountId": ACCOUNT_ID},
)
def get_account(call: Call) -> Reply:
    return Reply(service.account(call.principal, call.path_params["accountId"]))


@route(
    bp,
    "/api/v1/custody/accounts/{accountId}/balances",
    "GET",
    summary="An account's balances per token",
    tag=TAG,
    guard=guards.signed_request,
    response=CustodyBalances,
    errors={404: ("ACCOUNT_NOT_FOUND",)},
    description="Family S. Per network and token: `activeBalance` (spendable), `pendingBalance` (deposits seen, not "
    "yet confirmed) and `heldBalance` (withdrawals in flight), in human units and in base units "
    "(`...InDecimals`).",
    ids={"accountId": ACCOUNT_ID},
)
def get_balances(call: Call) -> Reply:
    return Reply(service.balances(call.principal, call.path_params["accountId"]))


@route(
    bp,
    "/api/v1/custody/accounts/{accountId}/entries",
    "GET",
    summary="An account's journal, newest first (for reconciliation)",
    tag=TAG,
    guard=guards.signed_request,
    query=EntryQuery,
    response=JournalEntryPage,
    errors={404: ("ACCOUNT_NOT_FOUND",)},
    description="Family S. The account's double-entry journal (credits, holds, releases, debits, corrections) with "
    "the balances after each entry, for reconciliation. Query `page` (from 1) and `limit`; the answer is "
    "`{data, pagination}` with `total`, `totalPages`, `hasNext`, `hasPrev`.",
    ids={"accountId": ACCOUNT_ID},
)
def list_entries(call: Call) -> Reply:
    return Reply(service.entries(call.principal, call.path_params["accountId"], call.query))


@route(
    bp,
    "/api/v1/custody/invoices",
    "POST",
    summary="Create an invoice",
    tag=TAG,
    guard=guards.signed_request,
    body=CreateInvoiceRequest,
    response=Invoice,
    message="invoice created",
    errors={
        400: (
            "ADDRESS_TYPE_NOT_OFFERED",
            "INVALID_AMOUNT",
            "NETWORK_MISMATCH",
            "NETWORK_NOT_CUSTODIAL",
            "NETWORK_NOT_ON_ACCOUNT",
            "NETWORK_REQUIRED",
            "UNKNOWN_NETWORK",
            "UNKNOWN_TOKEN",
        ),
        404: ("ACCOUNT_NOT_FOUND", "INVOICE_NOT_FOUND"),
        409: ("DUPLICATE_REFERENCE", "INVOICE_ALREADY_PENDING"),
        503: ("CUSTODY_BUSY", "LIST_BUSY"),
    },
    idempotent=True,
    description="Honours `Idempotency-Key`; `GET /api/v1/custody/invoices?reference=` finds an invoice by its "
    "reference.",
)
def create_invoice(call: Call) -> Reply:
    return Reply(deposits.create_invoice(call.principal, call.body), "invoice created")


@route(
    bp,
    "/api/v1/custody/invoices",
    "GET",
    summary="The app's invoices, newest first",
    tag=TAG,
    guard=guards.signed_request,
    query=InvoiceListQuery,
    response=InvoicePage,
    errors={404: ("ACCOUNT_NOT_FOUND",)},
    description="Family S. The app's invoices, optionally of one account or status. Query `page` (from 1) and "
    "`limit`; the answer is `{data, pagination}` with `total`, `totalPages`, `hasNext`, `hasPrev`.",
)
def list_invoices(call: Call) -> Reply:
    return Reply(deposits.invoice_page(call.principal, call.query))


@route(
    bp,
    "/api/v1/custody/invoices/{invoiceId}",
    "GET",
    summary="One invoice",
    tag=TAG,
    guard=guards.signed_request,
    response=Invoice,
    errors={404: ("INVOICE_NOT_FOUND",)},
    description="Family S. One invoice: `pending` until a matching transfer is confirmed (`paid`), its expiry passes "
    "(`expired`) or a confirmed payment does not match (`failed`).",
    ids={"invoiceId": PathId(INVOICE_NOT_FOUND, "No such invoice")},
)
def get_invoice(call: Call) -> Reply:
    return Reply(deposits.invoice(call.principal, call.path_params["invoiceId"]))


@route(
    bp,
    "/api/v1/custody/deposits",
    "GET",
    summary="Deposits to the app's accounts, newest first",
    tag=TAG,
    guard=guards.signed_request,
    query=DepositListQuery,
    response=DepositPage,
    errors={
        400: ("NETWORK_MISMATCH", "NETWORK_NOT_CUSTODIAL", "NETWORK_REQUIRED", "UNKNOWN_NETWORK", "UNKNOWN_TOKEN"),
        404: ("ACCOUNT_NOT_FOUND", "INVOICE_NOT_FOUND"),
    },
    description="Family S. Transfers seen to the app's deposit addresses: `pending` until confirmed, then `credited` "
    "(or `reverted` after a reorganisation). Query `page` (from 1) and `limit`; the answer is `{data, "
    "pagination}` with `total`, `totalPages`, `hasNext`, `hasPrev`.",
)
def list_deposits(call: Call) -> Reply:
    return Reply(deposits.deposit_page(call.principal, call.query))


@route(
    bp,
    "/api/v1/custody/deposits/{depositId}",
    "GET",
    summary="One deposit",
    tag=TAG,
    guard=guards.signed_request,
    response=Deposit,
    errors={
        400: (
            "NETWORK_MISMATCH",
            "NETWORK_NOT_CUSTODIAL",
            "NETWORK_REQUIRED",
            "UNKNOWN_NETWORK",
            "UNKNOWN_TOKEN",
            "VALIDATION_ERROR",
        ),
        404: ("DEPOSIT_NOT_FOUND",),
    },
    description="Family S. One deposit with its on-chain transaction, confirmations and the off-chain credit it made.",
    ids={"depositId": PathId(DEPOSIT_NOT_FOUND, "No such deposit")},
)
def get_deposit(call: Call) -> Reply:
    return Reply(deposits.deposit(call.principal, call.path_params["depositId"]))


@route(
    bp,
    "/api/v1/custody/networks/{network}/watcher",
    "GET",
    summary="The deposit watcher of a network: cursor, head, lag",
    tag=TAG,
    guard=guards.signed_request,
    response=WatcherStatus,
    errors={
        400: ("NETWORK_MISMATCH", "NETWORK_NOT_CUSTODIAL", "NETWORK_REQUIRED", "UNKNOWN_NETWORK", "VALIDATION_ERROR"),
        502: ("UPSTREAM_UNAVAILABLE",),
    },
    description="Family S. Where the network's deposit watcher is: the last block scanned (`cursor`), the chain head "
    "and the lag between them.",
    ids={"network": PathId(UNKNOWN_NETWORK, "Unknown network", 400)},
)
def get_watcher(call: Call) -> Reply:
    return Reply(deposits.watcher_status(call.path_params["network"]))


@route(
    bp,
    "/api/v1/custody/withdrawals",
    "POST",
    summary="Request a withdrawal from an account's balance",
    tag=TAG,
    guard=guards.signed_request,
    body=CreateWithdrawalRequest,
    response=Withdrawal,
    message="withdrawal created",
    errors={
        400: (
            "INVALID_ADDRESS",
            "INVALID_AMOUNT",
            "NETWORK_MISMATCH",
            "NETWORK_NOT_CUSTODIAL",
            "NETWORK_NOT_ON_ACCOUNT",
            "NETWORK_REQUIRED",
            "UNKNOWN_NETWORK",
            "UNKNOWN_TOKEN",
        ),
        404: ("ACCOUNT_NOT_FOUND",),
        409: ("DUPLICATE_REFERENCE",),
        422: (
            "DAILY_LIMIT_EXCEEDED",
            "DESTINATION_NOT_ALLOWED",
            "INSUFFICIENT_BALANCE",
            "WITHDRAWAL_LIMIT_EXCEEDED",
            "WITHDRAWAL_TOO_FRAGMENTED",
        ),
        502: ("UPSTREAM_UNAVAILABLE",),  # a Bitcoin withdrawal asks the node for its fee rate
        503: ("CUSTODY_BUSY", "LIST_BUSY"),
    },
    idempotent=True,
    description="The amount moves from `activeBalance` to `heldBalance` at once (422 `INSUFFICIENT_BALANCE` and "
    "nothing recorded when it is not there); the withdrawal is then sent on chain from the account's deposit "
    "address. On Bitcoin it spends the account's confirmed outputs (reserved at once), pays exactly `amount` to "
    "`to` (P2WPKH, P2PKH, P2SH, P2WSH or P2TR), sends the change back to the account's native SegWit address, and "
    "`fee` (the network fee, at the node's fee rate within the network's bounds) is held and debited with the "
    "amount. Honours `Idempotency-Key`.",
)
def create_withdrawal(call: Call) -> Reply:
    return Reply(withdrawals.create_withdrawal(call.principal, call.body), "withdrawal created")


@route(
    bp,
    "/api/v1/custody/withdrawals",
    "GET",
    summary="The app's withdrawals, newest first",
    tag=TAG,
    guard=guards.signed_request,
    query=WithdrawalListQuery,
    response=WithdrawalPage,
    errors={
        400: ("NETWORK_MISMATCH", "NETWORK_NOT_CUSTODIAL", "NETWORK_REQUIRED", "UNKNOWN_NETWORK", "UNKNOWN_TOKEN"),
        404: ("ACCOUNT_NOT_FOUND",),
    },
    description="Family S. The app's withdrawals (`pending`, `sending`, `sent`, `success`, `failed`). Query `page` "
    "(from 1) and `limit`; the answer is `{data, pagination}` with `total`, `totalPages`, `hasNext`, "
    "`hasPrev`.",
)
def list_withdrawals(call: Call) -> Reply:
    return Reply(withdrawals.withdrawal_page(call.principal, call.query))


@route(
    bp,
    "/api/v1/custody/withdrawals/{withdrawalId}",
    "GET",
    summary="One withdrawal",
    tag=TAG,
    guard=guards.signed_request,
    response=Withdrawal,
    errors={
        400: (
            "NETWORK_MISMATCH",
            "NETWORK_NOT_CUSTODIAL",
            "NETWORK_REQUIRED",
            "UNKNOWN_NETWORK",
            "UNKNOWN_TOKEN",
            "VALIDATION_ERROR",
        ),
        404: ("WITHDRAWAL_NOT_FOUND",),
    },
    description="Family S. One withdrawal with its transaction hash once sent and its failure reason if it failed.",
    ids={"withdrawalId": PathId(WITHDRAWAL_NOT_FOUND, "No such withdrawal")},
)
def get_withdrawal(call: Call) -> Reply:
    return Reply(withdrawals.withdrawal(call.principal, call.path_params["withdrawalId"]))


@route(
    bp,
    "/api/v1/custody/withdrawal-allowlist",
    "GET",
    summary="The app's withdrawal destination allowlist",
    description="Set by the operator (`python -m chalicelib.operator set-withdrawal-allowlist`), not through "
    "the API: an API function that could change it could defeat it (docs/custody.md).",
    tag=TAG,
    guard=guards.signed_request,
    response=Allowlist,
)
def get_allowlist(call: Call) -> Reply:
    return Reply(withdrawals.allowlist(call.principal))


@route(
    bp,
    "/api/v1/custody/gas-wallets",
    "GET",
    summary="The app's custody keys and their native balances (they pay withdrawals' gas)",
    tag=TAG,
    guard=guards.signed_request,
    response=GasWalletList,
    errors={404: ("ACCOUNT_NOT_FOUND",), 502: ("UPSTREAM_UNAVAILABLE",)},
    description="Family S. The custody keys of the app's pools and their native coin balances per network: fund them "
    "so withdrawals can pay their gas.",
)
def list_gas_wallets(call: Call) -> Reply:
    return Reply(service.gas_wallets(call.principal))
