"""Gas-tank routes (Family S): top-ups of owner and organization tanks, the organization tank, histories."""

from __future__ import annotations

from chalice import Blueprint

from chalicelib.auth import guards
from chalicelib.gas_tanks import service
from chalicelib.gas_tanks.models import (
    ClientGasTank,
    ClientTopUp,
    GasTankSettings,
    GasTankSettingsState,
    OwnerTopUp,
    SponsorshipPolicy,
    SponsorshipPolicyState,
    TopUpPage,
    UsagePage,
)
from chalicelib.platform.pagination import page_query
from chalicelib.platform.router import Call, Reply, route
from chalicelib.smart_accounts.routes import OWNER_ID

bp = Blueprint(__name__)
HistoryQuery = page_query(10)
TOPUP_DESCRIPTION = (
    "Credited once the chain shows the USDT transfer to the pool from the address that signed `<chainId>.<txHash>`, "
    "with the network's confirmations and its block still the chain's; a transaction credits once in the whole "
    "service. The signature is checked first: a claim by anyone but the sender is refused and stores nothing. "
    "`immediate: false` answers at once and checks about 20 s later (the record is `pending` until then)."
)


def _message(immediate: bool) -> str:
    return "top-up successful" if immediate else "top-up received; it is checked in about 20 seconds"


@route(
    bp,
    "/api/v1/smart-account/topUp",
    "POST",
    summary="Top up a smart-account owner's gas tank",
    description=TOPUP_DESCRIPTION,
    tag="Gas tanks",
    guard=guards.signed_request,
    body=OwnerTopUp,
    message="top-up successful",
    errors={
        400: ("NETWORK_WITHOUT_GAS_TANKS", "NOT_THE_POOL", "NOT_USDT"),
        404: ("OWNER_NOT_FOUND",),
        409: ("TOPUP_ALREADY_USED",),
        502: ("UPSTREAM_UNAVAILABLE",),
        503: ("LIST_BUSY",),
    },
)
def top_up_owner(call: Call) -> Reply:
    service.top_up_owner(call.principal, call.body)
    return Reply(None, _message(call.body.immediate))


@route(
    bp,
    "/api/v1/client/gasTank/topUp",
    "POST",
    summary="Top up the organization gas tank",
    description=TOPUP_DESCRIPTION,
    tag="Gas tanks",
    guard=guards.signed_request,
    body=ClientTopUp,
    message="top-up successful",
    errors={
        400: ("NETWORK_WITHOUT_GAS_TANKS", "NOT_THE_POOL", "NOT_USDT"),
        409: ("TOPUP_ALREADY_USED",),
        502: ("UPSTREAM_UNAVAILABLE",),
        503: ("LIST_BUSY",),
    },
)
def top_up_client(call: Call) -> Reply:
    service.top_up_client(call.principal, call.body)
    return Reply(None, _message(call.body.immediate))


@route(
    bp,
    "/api/v1/client/gasTank",
    "GET",
    summary="The organization gas tank (one per client)",
    tag="Gas tanks",
    guard=guards.signed_request,
    response=ClientGasTank,
    errors={503: ("LIST_BUSY",)},
    description="Family S. The client's organization gas tank (USDT base units), which pays sponsored user "
    "operations (`isSponsored: true`).",
)
def get_client_tank(call: Call) -> Reply:
    return Reply(service.client_tank(call.principal))


@route(
    bp,
    "/api/v1/client/gasTank/topUp/history",
    "GET",
    summary="Top-ups of the organization gas tank, newest first",
    tag="Gas tanks",
    guard=guards.signed_request,
    query=HistoryQuery,
    response=TopUpPage,
    errors={503: ("LIST_BUSY",)},
    description="Family S. Top-ups credited to (or pending for) the organization gas tank. Query `page` (from 1) and "
    "`limit`; the answer is `{data, pagination}` with `total`, `totalPages`, `hasNext`, `hasPrev`.",
)
def client_top_up_history(call: Call) -> Reply:
    return Reply(service.client_top_ups(call.principal, call.query))


@route(
    bp,
    "/api/v1/smart-account/{ownerId}/topUp/history",
    "GET",
    summary="Top-ups of an owner's gas tank, newest first",
    tag="Gas tanks",
    guard=guards.signed_request,
    query=HistoryQuery,
    response=TopUpPage,
    errors={404: ("OWNER_NOT_FOUND",)},
    ids={"ownerId": OWNER_ID},
    description="Family S. Top-ups of one owner's gas tank; `ownerId` is the owner record id or the owner address. "
    "Query `page` (from 1) and `limit`; the answer is `{data, pagination}` with `total`, `totalPages`, "
    "`hasNext`, `hasPrev`.",
)
def owner_top_up_history(call: Call) -> Reply:
    return Reply(service.owner_top_ups(call.principal, call.path_params["ownerId"], call.query))


@route(
    bp,
    "/api/v1/gasTank/organization/usage/history",
    "GET",
    summary="What user operations charged the organization gas tank, newest first",
    tag="Gas tanks",
    guard=guards.signed_request,
    query=HistoryQuery,
    response=UsagePage,
    errors={503: ("LIST_BUSY",)},
    description="Family S. One record per user operation paid by the organization gas tank: what was deducted when "
    "it was submitted and what was refunded once its real cost was known. Query `page` (from 1) and "
    "`limit`; the answer is `{data, pagination}` with `total`, `totalPages`, `hasNext`, `hasPrev`.",
)
def organization_usage_history(call: Call) -> Reply:
    return Reply(service.client_usage(call.principal, call.query))


POLICY_DESCRIPTION = (
    "Family S, per app. Which sponsored user operations (`isSponsored: true`) the organization tank pays for: caps "
    "per owner (24 h amount and count, 30-day amount), per operation, for the whole app per 24 h, the networks, the "
    "contracts and functions an operation may call, and an activation window. Amounts are tank units (USDT at 18 "
    "decimals), counted from the charges the usage history shows (the initial deduction, then the settled amount); "
    "windows are rolling. A refused submit is `403 SPONSORSHIP_DENIED` with `data.rule`; nothing is charged or sent. "
    "See docs/smart-accounts.md."
)


@route(
    bp,
    "/api/v1/client/gasTank/policy",
    "PUT",
    summary="Set the app's gas sponsorship policy",
    description=POLICY_DESCRIPTION + " Replaces the app's policy; `{}` sponsors every operation again.",
    tag="Gas tanks",
    guard=guards.signed_request,
    body=SponsorshipPolicy,
    response=SponsorshipPolicyState,
    message="sponsorship policy set",
    errors={400: ("INVALID_ADDRESS", "UNKNOWN_NETWORK")},
)
def put_sponsorship_policy(call: Call) -> Reply:
    return Reply(service.set_sponsorship_policy(call.principal, call.body), "sponsorship policy set")


@route(
    bp,
    "/api/v1/client/gasTank/policy",
    "GET",
    summary="The app's gas sponsorship policy",
    description=POLICY_DESCRIPTION,
    tag="Gas tanks",
    guard=guards.signed_request,
    response=SponsorshipPolicyState,
)
def get_sponsorship_policy(call: Call) -> Reply:
    return Reply(service.sponsorship_policy(call.principal))


SETTINGS_DESCRIPTION = (
    "Family S. `lowBalanceThreshold` (tank units; null: no alerts): when the tank's balance, after an operation "
    "settles, is below it, a signed `gasTank.low_balance` webhook event is sent to the app, once per crossing; a "
    "credited top-up that lifts the balance to the threshold or above arms it again, and so does a new setting. "
    "See docs/webhooks.md."
)


@route(
    bp,
    "/api/v1/client/gasTank/settings",
    "PUT",
    summary="Alert settings of the organization gas tank",
    description=SETTINGS_DESCRIPTION,
    tag="Gas tanks",
    guard=guards.signed_request,
    body=GasTankSettings,
    response=GasTankSettingsState,
    message="gas tank settings set",
    errors={503: ("LIST_BUSY",)},
)
def put_client_tank_settings(call: Call) -> Reply:
    return Reply(service.set_client_tank_settings(call.principal, call.body), "gas tank settings set")


@route(
    bp,
    "/api/v1/client/gasTank/settings",
    "GET",
    summary="Alert settings of the organization gas tank",
    description=SETTINGS_DESCRIPTION,
    tag="Gas tanks",
    guard=guards.signed_request,
    response=GasTankSettingsState,
    errors={503: ("LIST_BUSY",)},
)
def get_client_tank_settings(call: Call) -> Reply:
    return Reply(service.client_tank_settings(call.principal))


@route(
    bp,
    "/api/v1/smart-account/{ownerId}/gasTank/settings",
    "PUT",
    summary="Alert settings of an owner's gas tank",
    description=SETTINGS_DESCRIPTION + " `ownerId`: the owner record id or the owner's address.",
    tag="Gas tanks",
    guard=guards.signed_request,
    body=GasTankSettings,
    response=GasTankSettingsState,
    message="gas tank settings set",
    errors={404: ("OWNER_NOT_FOUND",)},
    ids={"ownerId": OWNER_ID},
)
def put_owner_tank_settings(call: Call) -> Reply:
    settings = service.set_owner_tank_settings(call.principal, call.path_params["ownerId"], call.body)
    return Reply(settings, "gas tank settings set")


@route(
    bp,
    "/api/v1/smart-account/{ownerId}/gasTank/settings",
    "GET",
    summary="Alert settings of an owner's gas tank",
    description=SETTINGS_DESCRIPTION + " `ownerId`: the owner record id or the owner's address.",
    tag="Gas tanks",
    guard=guards.signed_request,
    response=GasTankSettingsState,
    errors={404: ("OWNER_NOT_FOUND",)},
    ids={"ownerId": OWNER_ID},
)
def get_owner_tank_settings(call: Call) -> Reply:
    return Reply(service.owner_tank_settings(call.principal, call.path_params["ownerId"]))
