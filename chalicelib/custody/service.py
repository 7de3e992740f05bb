"""The custody use cases behind the routes: they take the signing app and answer wire models."""

from __future__ import annotations

from chalicelib.custody import accounts, cursor, deposits, invoices, ledger, limits, pool_keys, withdrawals
from chalicelib.custody.models import (
    Allowlist,
    CreateInvoiceRequest,
    CreateWithdrawalRequest,
    CustodyAccount,
    CustodyAccountListQuery,
    CustodyAccountPage,
    CustodyBalance,
    CustodyBalances,
    CustodyToken,
    CustodyTokenList,
    Deposit,
    DepositListQuery,
    DepositPage,
    GasWallet,
    GasWalletBalance,
    GasWalletList,
    Invoice,
    InvoiceListQuery,
    InvoicePage,
    JournalEntry,
    JournalEntryPage,
    WatcherStatus,
    Withdrawal,
    WithdrawalListQuery,
    WithdrawalPage,
)
from chalicelib.custody.store import get
from chalicelib.custody.tokens import all_accepted, custody_networks
from chalicelib.evm.rpc import native_balance
from chalicelib.platform.amounts import format_units
from chalicelib.platform.errors import bad_request
from chalicelib.platform.logging import logger
from chalicelib.platform.networks import registry, resolve
from chalicelib.platform.pagination import PageQuery, pagination
from chalicelib.tenancy.models import App


def tokens() -> CustodyTokenList:
    return CustodyTokenList(data=[CustodyToken.model_validate(p.public()) for p in all_accepted()])


def create_account(app: App, sub_id: str, pool_type: str) -> tuple[CustodyAccount, bool]:
    account, created = accounts.create(app, sub_id, pool_type)  # type: ignore[arg-type]
    return CustodyAccount.model_validate(accounts.public(account)), created


def account(app: App, account_id: str) -> CustodyAccount:
    return CustodyAccount.model_validate(accounts.public(accounts.of_app(app.appId, account_id)))


def account_page(app: App, query: CustodyAccountListQuery) -> CustodyAccountPage:
    if query.subId is not None:
        found = accounts.by_sub(app.appId, query.subId)
        records = [found] if found else []
        start = (query.page - 1) * query.limit
        shown = records[start : start + query.limit]
        return CustodyAccountPage(
            data=[CustodyAccount.model_validate(accounts.public(a)) for a in shown],
            pagination=pagination(len(records), query),
        )
    records, total = accounts.page(app.appId, query)
    return CustodyAccountPage(
        data=[CustodyAccount.model_validate(accounts.public(a)) for a in records], pagination=pagination(total, query)
    )


def balances(app: App, account_id: str) -> CustodyBalances:
    accounts.of_app(app.appId, account_id)
    stored = {f"{b['network']}#{b['tokenCode']}": b for b in ledger.balances(account_id)}
    rows = []
    for pair in all_accepted():
        item = stored.get(pair.key, {})
        amounts = {f: int(item.get(f, "0")) for f in ledger.FIELDS}
        decimals = pair.token.decimals
        rows.append(
            CustodyBalance(
                network=pair.network.name,
                chainId=pair.network.chainId,
                tokenCode=pair.token.tokenCode,
                symbol=pair.token.symbol,
                decimals=decimals,
                activeBalance=format_units(amounts["active"], decimals),
                pendingBalance=format_units(amounts["pending"], decimals),
                heldBalance=format_units(amounts["held"], decimals),
                activeBalanceInDecimals=str(amounts["active"]),
                pendingBalanceInDecimals=str(amounts["pending"]),
                heldBalanceInDecimals=str(amounts["held"]),
            )
        )
    return CustodyBalances(accountId=account_id, balances=rows)


def entries(app: App, account_id: str, query: PageQuery) -> JournalEntryPage:
    accounts.of_app(app.appId, account_id)
    records, total = ledger.entries(account_id, query)
    return JournalEntryPage(
        data=[JournalEntry.model_validate({**r, "chainId": int(r["chainId"])}) for r in records],
        pagination=pagination(total, query),
    )


def create_invoice(app: App, request: CreateInvoiceRequest) -> Invoice:
    invoice = invoices.create(
        app,
        request.accountId,
        request.network,
        request.tokenCode,
        request.amount,
        request.reference,
        request.expiresInSeconds,
    )
    return Invoice.model_validate(invoices.public(invoice))


def invoice(app: App, invoice_id: str) -> Invoice:
    return Invoice.model_validate(invoices.public(invoices.of_app(app.appId, invoice_id)))


def invoice_page(app: App, query: InvoiceListQuery) -> InvoicePage:
    if query.accountId is not None:
        accounts.of_app(app.appId, query.accountId)
    if query.reference is not None:  # the way back to an invoice whose creation's answer was lost
        found = invoices.by_reference(app.appId, query.reference)
        matching = [
            i
            for i in ([found] if found else [])
            if (query.accountId is None or i.accountId == query.accountId)
            and (query.status is None or i.status == query.status)
        ]
        start = (query.page - 1) * query.limit
        return InvoicePage(
            data=[Invoice.model_validate(invoices.public(i)) for i in matching[start : start + query.limit]],
            pagination=pagination(len(matching), query),
        )
    records, total = invoices.page(app.appId, query.accountId, query.status, query)
    return InvoicePage(
        data=[Invoice.model_validate(invoices.public(i)) for i in records], pagination=pagination(total, query)
    )


def deposit(app: App, deposit_id: str) -> Deposit:
    record = deposits.of_app(app.appId, deposit_id)
    return Deposit.model_validate(deposits.public(record, _head(int(record["chainId"]))))


def deposit_page(app: App, query: DepositListQuery) -> DepositPage:
    if query.accountId is not None:
        accounts.of_app(app.appId, query.accountId)
    if query.invoiceId is not None:
        invoices.of_app(app.appId, query.invoiceId)
    records, total = deposits.page(app.appId, query.accountId, query.invoiceId, query.status, query)
    heads: dict[int, int | None] = {}
    data = []
    for record in records:
        chain_id = int(record["chainId"])
        if chain_id not in heads:
            heads[chain_id] = _head(chain_id)
        data.append(Deposit.model_validate(deposits.public(record, heads[chain_id])))
    return DepositPage(data=data, pagination=pagination(total, query))


def watcher_status(network_name: str) -> WatcherStatus:
    network = resolve(network_name, None)
    if not network.custody:
        raise bad_request(
            "NETWORK_NOT_CUSTODIAL",
            f"{network.name} has no custody tokens",
            errors=[{"field": "network", "message": "no custody tokens configured", "type": "network"}],
        )
    return WatcherStatus.model_validate(cursor.status(network))


def _head(chain_id: int) -> int | None:
    """The head the watcher last saw (confirmations of pending deposits are counted from it)."""
    network = registry().by_chain_id(chain_id)
    known = cursor.read(chain_id) if network else None
    return int(known["head"]) if known and "head" in known else None


def create_withdrawal(app: App, request: CreateWithdrawalRequest) -> Withdrawal:
    record = withdrawals.create(
        app, request.accountId, request.network, request.tokenCode, request.to, request.amount, request.reference
    )
    return Withdrawal.model_validate(withdrawals.public(record))


def withdrawal(app: App, withdrawal_id: str) -> Withdrawal:
    return Withdrawal.model_validate(withdrawals.public(withdrawals.of_app(app.appId, withdrawal_id)))


def withdrawal_page(app: App, query: WithdrawalListQuery) -> WithdrawalPage:
    if query.accountId is not None:
        accounts.of_app(app.appId, query.accountId)
    records, total = withdrawals.page(app.appId, query.accountId, query.status, query)
    return WithdrawalPage(
        data=[Withdrawal.model_validate(withdrawals.public(r)) for r in records], pagination=pagination(total, query)
    )


def allowlist(app: App) -> Allowlist:
    return Allowlist.model_validate(limits.allowlist(app.appId, app.organizationId))


def gas_wallets(app: App) -> GasWalletList:
    """The app's custody keys (its own pool, its organization's) with their native balances: what an operator funds
    so withdrawals can pay gas."""
    wallets = []
    for pool in ("dedicated", "organization_owned"):
        item = get(f"KEY#{pool_keys.scope(pool, app.appId, app.organizationId)}", "KEY")  # type: ignore[arg-type]
        if item is None or item.get("status") != "ready":
            continue
        balances = []
        for network in custody_networks():
            try:
                wei = native_balance(network, str(item["address"]))
            except Exception as exc:  # noqa: BLE001 - a node down: that network's balance is left out
                logger.warning(
                    "gas wallet balance not read", extra={"network": network.name, "errorType": type(exc).__name__}
                )
                continue
            balances.append(
                GasWalletBalance(
                    network=network.name,
                    chainId=network.chainId,
                    balance=format_units(wei, network.nativeDecimals),
                    symbol=network.nativeSymbol,
                )
            )
        wallets.append(
            GasWallet(mpcSubId=str(item["keyId"]), poolType=pool, address=str(item["address"]), balances=balances)
        )
    return GasWalletList(data=wallets)
