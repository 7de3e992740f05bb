"""The custody use cases behind the routes: they take the signing app and answer wire models."""

from __future__ import annotations

from chalicelib.custody import accounts, ledger, pool_keys
from chalicelib.custody.models import (
    CustodyAccount,
    CustodyAccountListQuery,
    CustodyAccountPage,
    CustodyBalance,
    CustodyBalances,
    CustodyToken,
    CustodyTokenList,
    GasWallet,
    GasWalletBalance,
    GasWalletList,
    JournalEntry,
    JournalEntryPage,
)
from chalicelib.custody.store import get
from chalicelib.custody.tokens import all_accepted, custody_networks
from chalicelib.evm.rpc import native_balance
from chalicelib.platform.amounts import format_units
from chalicelib.platform.logging import logger
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
