"""Smart-account routes (Family S: the app of the request signature is the tenant)."""

from __future__ import annotations

from chalice import Blueprint

from chalicelib.auth import guards
from chalicelib.platform.path_ids import PathId
from chalicelib.platform.router import Call, Reply, route
from chalicelib.smart_accounts import service
from chalicelib.smart_accounts.models import CreateSmartAccount, NetworkList, OwnerRecord

bp = Blueprint(__name__)
CREATED = "account created successfully"
# `{ownerId}` of every route of an owner (its record id or address), here and in the domains built on this one.
OWNER_ID = PathId(service.OWNER_NOT_FOUND, "No smart-account owner with this id or address in this app")


@route(
    bp,
    "/api/v1/networks",
    "GET",
    summary="Networks with smart accounts and gas tanks: contracts, USDT and the pool top-ups are sent to",
    tag="Smart accounts",
    guard=guards.signed_request,
    response=NetworkList,
    description="Family S. For each network with smart accounts: the ERC-4337 contracts (EntryPoint, factory, "
    "paymaster), its USDT and the pool address gas-tank top-ups are sent to.",
)
def list_networks(call: Call) -> Reply:
    return Reply(NetworkList(networks=service.networks()))


@route(
    bp,
    "/api/v1/smart-account",
    "POST",
    summary="Create (or return) the owner's smart accounts, one per network, and its gas tank",
    description="Idempotent per owner address (any letter case) and app. Accounts are counterfactual "
    "(`not_deployed`): `aaAddress` is where the factory deploys the account with its first user operation. "
    '`accountType` `"eip7702"` (the owner an MPC wallet of the service): accounts at the wallet\'s own address, on '
    "the networks with EIP-7702 accounts, `deployed` once an operation delegated the wallet to Simple7702Account "
    "(docs/smart-accounts.md); asked again for an owner that has accounts, the other type's are added.",
    tag="Smart accounts",
    guard=guards.signed_request,
    body=CreateSmartAccount,
    response=OwnerRecord,
    message=CREATED,
    errors={
        400: ("UNSUPPORTED_PROVIDER",),
        404: ("OWNER_NOT_FOUND",),
        422: ("NO_EIP7702_NETWORK",),
        503: ("LIST_BUSY",),
    },
)
def create_smart_account(call: Call) -> Reply:
    owner = call.body.owner
    return Reply(service.create(call.principal, owner.id, owner.provider, call.body.accountType), CREATED)


@route(
    bp,
    "/api/v1/smart-account/{ownerId}",
    "GET",
    summary="An owner's record with its accounts and gas tank (by owner record id or owner address)",
    tag="Smart accounts",
    guard=guards.signed_request,
    response=OwnerRecord,
    errors={404: ("OWNER_NOT_FOUND",)},
    ids={"ownerId": OWNER_ID},
    description="Family S. The owner record created by `POST /api/v1/smart-account`, with one counterfactual account "
    "per network and its gas tank; `ownerId` is the record id or the owner address (any letter case).",
)
def get_smart_account(call: Call) -> Reply:
    return Reply(service.get(call.principal, call.path_params["ownerId"]))
