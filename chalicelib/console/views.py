"""The console's read-only pages: wallets, smart accounts and gas tanks, user operations, custody and signing
policies, of every app of the member's organization.

Each page reads through the services the API's routes call, passing the app as a signed request's principal would
be: the same checks, the same wire models. An id in the URL that is none of the organization's is a 404, as the API
answers another app's id. Lists are bounded (the newest few of each, with a note on the page) so that a page stays
fast. Amounts are shown as the API shows them, decimal strings of base units (with the exact human amount beside
them where the decimals are known); only the charts' values are floats, for drawing.
"""

from __future__ import annotations

import json
import re
import urllib.parse
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, timedelta
from typing import Any, TypeVar

from chalice import Blueprint
from pydantic import ConfigDict, Field, field_validator, model_validator

from chalicelib.auth.users import User
from chalicelib.console import apps
from chalicelib.console.web import PageCall, Reply, page, parsed_query
from chalicelib.custody import service as custody
from chalicelib.custody.accounts import ACCOUNT_NOT_FOUND
from chalicelib.custody.deposits import service as custody_deposits
from chalicelib.custody.deposits.models import DepositListQuery, DepositPage, InvoiceListQuery, InvoicePage
from chalicelib.custody.models import (
    CustodyAccount,
    CustodyAccountListQuery,
    CustodyAccountPage,
    CustodyBalance,
    CustodyBalances,
    JournalEntryPage,
)
from chalicelib.custody.withdrawals import service as custody_withdrawals
from chalicelib.custody.withdrawals.models import WithdrawalListQuery, WithdrawalPage
from chalicelib.gas_tanks import service as gas_tanks
from chalicelib.gas_tanks import store as tank_store
from chalicelib.gas_tanks.models import ClientGasTank, TopUpRecord, UsageRecord
from chalicelib.platform import clock
from chalicelib.platform.amounts import format_units
from chalicelib.platform.errors import ApiError, not_found
from chalicelib.platform.networks import registry
from chalicelib.platform.pagination import MAX_LIMIT, PageQuery
from chalicelib.platform.path_ids import PathId
from chalicelib.platform.wire import WireModel
from chalicelib.policies import service as policies
from chalicelib.policies.models import PolicyView
from chalicelib.smart_accounts import service as smart_accounts
from chalicelib.smart_accounts.models import OwnerRecord
from chalicelib.smart_accounts.service import OWNER_NOT_FOUND
from chalicelib.tenancy.models import App, Client
from chalicelib.user_ops import service as user_ops
from chalicelib.user_ops.models import UserOperation, UserOpRecord
from chalicelib.user_ops.service import USER_OP_NOT_FOUND
from chalicelib.wallets import history
from chalicelib.wallets import store as wallet_store

bp = Blueprint(__name__)

LIST_LIMIT = 20  # rows of a list on a page
WALLET_USERS = 20  # wallets shown per client
WALLET_TXS = 5  # transactions shown per wallet
OWNERS_SHOWN = 10  # smart-account owners shown per app (each costs a few reads)
SCANNED = MAX_LIMIT  # newest records of each app (or tank) that filters and charts read
JOURNAL_ENTRIES = 50
CHART_DAYS = 30
ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
USER_OP_ID = PathId(USER_OP_NOT_FOUND, "No user operation with this id in this organization")
ACCOUNT_ID = PathId(ACCOUNT_NOT_FOUND, "No such account in this organization")
OWNER = re.compile(rf"0x[0-9a-fA-F]{{40}}|{ID.pattern}")
T = TypeVar("T")


# --- shared helpers ---------------------------------------------------------------------------------------------


def explorer(network: str | None, kind: str, value: str | None) -> str | None:
    """`<explorerUrl>/<kind>/<value>` for a network with an `explorerUrl` (kind `tx` or `address`), else None."""
    found = registry().by_name(network) if network else None
    if found is None or not found.explorerUrl or not value:
        return None
    return f"{found.explorerUrl.rstrip('/')}/{kind}/{urllib.parse.quote(value, safe='')}"


def units(value: str | int | None, decimals: int) -> str:
    """Base units as an exact human amount (`"1500000", 6` → `"1.5"`); empty for no value."""
    if value is None or value == "":
        return ""
    try:
        return format_units(int(value), decimals)
    except ValueError:
        return ""


def per_day(points: Iterable[tuple[str, int]], days: int = CHART_DAYS) -> tuple[list[int], list[int]]:
    """Sums of `points` (ISO time, amount) per UTC day over the last `days` days, oldest first: each day's start
    (unix seconds) and its exact sum. Points outside the window are left out."""
    today = clock.now().replace(hour=0, minute=0, second=0, microsecond=0)
    starts = [today - timedelta(days=days - 1 - i) for i in range(days)]
    sums = dict.fromkeys((s.date() for s in starts), 0)
    for at, amount in points:
        day = clock.parse_iso(at).astimezone(UTC).date()
        if day in sums:
            sums[day] += amount
    return [int(s.timestamp()) for s in starts], [sums[s.date()] for s in starts]


def chart(x: list[int], series: list[tuple[str, list[float]]], unit: str) -> str:
    """The `data-series` of a chart (console.js): JSON, escaped by the template."""
    return json.dumps(
        {"x": x, "series": [{"label": label, "values": values} for label, values in series], "unit": unit},
        separators=(",", ":"),
    )


def _first_of(org_apps: list[App], find: Callable[[App], T]) -> tuple[App, T] | None:
    """The first app of the organization for which `find` answers (a 404 means "not this app's")."""
    for app in org_apps:
        try:
            return app, find(app)
        except ApiError as exc:
            if exc.status != 404:
                raise
    return None


def _common() -> dict[str, Any]:
    return {"explorer": explorer, "units": units}


# --- wallets ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class WalletRow:
    user: User
    transactions: list[dict[str, Any]]  # as the API lists them (evm/tracking.py `public`)
    total: int


@dataclass(frozen=True)
class ClientWallets:
    client: Client
    wallets: list[WalletRow]
    more: bool


@page(bp, "/console/wallets")
def wallets_page(call: PageCall) -> Reply:
    groups = []
    for group in apps.overview(call.member.organizationId):
        bound, more = wallet_store.of_client(group.client.clientId, WALLET_USERS)
        rows = []
        for user in bound:
            assert user.walletId is not None  # of_client lists users bound to a wallet
            transactions, total = history.page(user.walletId, PageQuery(page=1, limit=WALLET_TXS))
            rows.append(WalletRow(user, transactions, total))
        groups.append(ClientWallets(group.client, rows, more))
    return call.view("wallets.html", clients=groups, wallet_users=WALLET_USERS, wallet_txs=WALLET_TXS, **_common())


# --- smart accounts and gas tanks -------------------------------------------------------------------------------


@dataclass(frozen=True)
class OrganizationTank:
    client: Client
    tank: ClientGasTank


@dataclass(frozen=True)
class AppOwners:
    app: App
    owners: list[OwnerRecord]
    total: int


@dataclass(frozen=True)
class TankTopUp:
    tank: str  # whose tank: the client's organization tank, or the owner's address
    record: TopUpRecord


@dataclass(frozen=True)
class TankUsage:
    tank: str
    record: UsageRecord
    organization: bool


@page(bp, "/console/smart-accounts")
def smart_accounts_page(call: PageCall) -> Reply:
    history_query = PageQuery(page=1, limit=SCANNED)
    tanks: list[OrganizationTank] = []
    top_ups: list[TankTopUp] = []
    usage: list[TankUsage] = []
    groups = apps.overview(call.member.organizationId)
    for group in groups:
        if not group.apps:  # the organization tank is read through an app of its client, as the API does
            continue
        app = group.apps[0]
        label = f"{group.client.name} (organization)"
        tanks.append(OrganizationTank(group.client, gas_tanks.client_tank(app)))
        top_ups += [TankTopUp(label, r) for r in gas_tanks.client_top_ups(app, history_query).data]
        usage += [TankUsage(label, r, True) for r in gas_tanks.client_usage(app, history_query).data]
    per_app: list[AppOwners] = []
    for app in (app for group in groups for app in group.apps):
        owners, total = smart_accounts.page(app, PageQuery(page=1, limit=OWNERS_SHOWN))
        per_app.append(AppOwners(app, owners, total))
        for owner in owners:
            owner_top_ups = gas_tanks.owner_top_ups(app, owner.id, history_query).data
            owner_usage = gas_tanks.owner_usage(app, owner.id, history_query).data
            top_ups += [TankTopUp(owner.ownerId, r) for r in owner_top_ups]
            usage += [TankUsage(owner.ownerId, r, False) for r in owner_usage]
    top_ups.sort(key=lambda t: t.record.createdAt, reverse=True)
    usage.sort(key=lambda u: u.record.createdAt, reverse=True)
    x, organization = per_day((u.record.createdAt, int(u.record.amountInGasTank)) for u in usage if u.organization)
    _, owner_tanks = per_day((u.record.createdAt, int(u.record.amountInGasTank)) for u in usage if not u.organization)
    spend = chart(
        x,
        [
            ("Organization tanks", [v / 10**tank_store.DECIMALS for v in organization]),
            ("Owner tanks", [v / 10**tank_store.DECIMALS for v in owner_tanks]),
        ],
        tank_store.TOKEN_NAME,
    )
    return call.view(
        "smart_accounts.html",
        tanks=tanks,
        apps=per_app,
        top_ups=top_ups[:LIST_LIMIT],
        usage=usage[:LIST_LIMIT],
        spend=spend,
        tank_decimals=tank_store.DECIMALS,
        list_limit=LIST_LIMIT,
        scanned=SCANNED,
        chart_days=CHART_DAYS,
        **_common(),
    )


# --- user operations --------------------------------------------------------------------------------------------


class UserOpFilters(WireModel):
    """The user-operations page's query: each filter optional (an empty field is no filter)."""

    model_config = ConfigDict(extra="forbid")

    status: str | None = Field(None, max_length=20)
    owner: str | None = Field(None, max_length=42, description="Owner record id or owner address.")
    network: str | None = Field(None, max_length=40)

    @model_validator(mode="before")
    @classmethod
    def _blank_is_none(cls, data: Any) -> Any:
        if isinstance(data, dict):
            return {k: (None if v == "" else v) for k, v in data.items()}
        return data

    @field_validator("status")
    @classmethod
    def _status(cls, value: str | None) -> str | None:
        if value is not None and value not in UserOpRecord.machine.states:
            raise ValueError(f"one of {', '.join(sorted(UserOpRecord.machine.states))}")
        return value

    @field_validator("owner")
    @classmethod
    def _owner(cls, value: str | None) -> str | None:
        if value is not None and not OWNER.fullmatch(value):
            raise ValueError("an owner record id or a 0x address")
        return value

    @field_validator("network")
    @classmethod
    def _network(cls, value: str | None) -> str | None:
        if value is not None and registry().by_name(value) is None:
            raise ValueError("not a configured network")
        return value


@dataclass(frozen=True)
class AppUserOp:
    app: App
    op: UserOperation


@page(bp, "/console/user-ops")
def user_ops_page(call: PageCall) -> Reply:
    filters = parsed_query(call, UserOpFilters)
    latest = PageQuery(page=1, limit=SCANNED)
    found: list[AppUserOp] = []
    owner_seen = False
    for app in apps.apps(call.member.organizationId):
        if filters.owner is not None:
            try:
                listed = user_ops.page_for_owner(app, filters.owner, latest)
            except ApiError as exc:
                if exc.status == 404:  # not an owner of this app
                    continue
                raise
            owner_seen = True
        else:
            listed = user_ops.page_for_app(app, latest)
        found += [
            AppUserOp(app, op)
            for op in listed.data
            if (filters.status is None or op.status == filters.status)
            and (filters.network is None or op.network == filters.network)
        ]
    if filters.owner is not None and not owner_seen:
        raise not_found(OWNER_NOT_FOUND, "No smart-account owner with this id or address in this organization")
    found.sort(key=lambda f: f.op.createdAt, reverse=True)
    return call.view(
        "user_ops.html",
        ops=found[:LIST_LIMIT],
        matched=len(found),
        filters=filters,
        statuses=sorted(UserOpRecord.machine.states - {"created"}),  # a listed operation was submitted
        networks=[n.name for n in smart_accounts.smart_account_networks()],
        list_limit=LIST_LIMIT,
        scanned=SCANNED,
        **_common(),
    )


@page(bp, "/console/user-ops/{userOpId}", ids={"userOpId": USER_OP_ID})
def user_op_page(call: PageCall) -> Reply:
    user_op_id = call.path_params["userOpId"]
    org_apps = apps.apps(call.member.organizationId)
    found = _first_of(org_apps, lambda app: user_ops.get(app, user_op_id)) if ID.fullmatch(user_op_id) else None
    if found is None:
        raise not_found(USER_OP_NOT_FOUND, "No user operation with this id in this organization")
    app, op = found
    return call.view("user_op.html", app=app, op=op, **_common())


# --- custody ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AccountBalance:
    account: CustodyAccount
    balance: CustodyBalance


@dataclass(frozen=True)
class AppCustody:
    app: App
    accounts: CustodyAccountPage
    balances: list[AccountBalance]  # of the accounts shown, where they hold something
    invoices: InvoicePage
    deposits: DepositPage  # the newest SCANNED (the chart's); the page shows LIST_LIMIT of them
    withdrawals: WithdrawalPage  # likewise


def _held(balances: CustodyBalances) -> list[CustodyBalance]:
    """The rows of an account's balances where it holds something (active, pending or held)."""
    return [
        b
        for b in balances.balances
        if any(v != "0" for v in (b.activeBalanceInDecimals, b.pendingBalanceInDecimals, b.heldBalanceInDecimals))
    ]


@page(bp, "/console/custody")
def custody_page(call: PageCall) -> Reply:
    shown = {"page": 1, "limit": LIST_LIMIT}
    scanned = {"page": 1, "limit": SCANNED}
    sections: list[AppCustody] = []
    for app in apps.apps(call.member.organizationId):
        listed = custody.account_page(app, CustodyAccountListQuery.model_validate(shown))
        balances = [AccountBalance(a, b) for a in listed.data for b in _held(custody.balances(app, a.id))]
        sections.append(
            AppCustody(
                app,
                listed,
                balances,
                custody_deposits.invoice_page(app, InvoiceListQuery.model_validate(shown)),
                custody_deposits.deposit_page(app, DepositListQuery.model_validate(scanned)),
                custody_withdrawals.withdrawal_page(app, WithdrawalListQuery.model_validate(scanned)),
            )
        )
    x, deposits = per_day((d.createdAt, 1) for s in sections for d in s.deposits.data)
    _, withdrawals = per_day((w.createdAt, 1) for s in sections for w in s.withdrawals.data)
    flows = chart(
        x, [("Deposits", [float(v) for v in deposits]), ("Withdrawals", [float(v) for v in withdrawals])], "per day"
    )
    return call.view(
        "custody.html",
        sections=sections,
        flows=flows,
        list_limit=LIST_LIMIT,
        scanned=SCANNED,
        chart_days=CHART_DAYS,
        **_common(),
    )


@page(bp, "/console/custody/accounts/{accountId}", ids={"accountId": ACCOUNT_ID})
def custody_account_page(call: PageCall) -> Reply:
    account_id = call.path_params["accountId"]
    org_apps = apps.apps(call.member.organizationId)
    found = _first_of(org_apps, lambda app: custody.account(app, account_id)) if ID.fullmatch(account_id) else None
    if found is None:
        raise not_found(ACCOUNT_NOT_FOUND, "No such account in this organization")
    app, account = found
    shown = {"page": 1, "limit": LIST_LIMIT, "accountId": account.id}
    journal: JournalEntryPage = custody.entries(app, account.id, PageQuery(page=1, limit=JOURNAL_ENTRIES))
    return call.view(
        "custody_account.html",
        app=app,
        account=account,
        balances=custody.balances(app, account.id).balances,
        journal=journal,
        deposits=custody_deposits.deposit_page(app, DepositListQuery.model_validate(shown)),
        withdrawals=custody_withdrawals.withdrawal_page(app, WithdrawalListQuery.model_validate(shown)),
        list_limit=LIST_LIMIT,
        journal_entries=JOURNAL_ENTRIES,
        **_common(),
    )


# --- signing policies -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AppPolicy:
    app: App
    view: PolicyView | None
    document: str | None  # the document, indented for reading
    error: ApiError | None


@page(bp, "/console/policies")
def policies_page(call: PageCall) -> Reply:
    shown: list[AppPolicy] = []
    for app in apps.apps(call.member.organizationId):
        try:
            view = policies.get_policy(app)
        except ApiError as exc:
            if exc.status < 500:
                raise
            shown.append(AppPolicy(app, None, None, exc))  # the cosigner did not answer for this app
            continue
        document = json.dumps(view.policy, indent=2, ensure_ascii=False) if view.policy is not None else None
        shown.append(AppPolicy(app, view, document, None))
    return call.view("policies.html", policies=shown)
