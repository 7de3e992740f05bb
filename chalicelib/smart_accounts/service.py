"""Smart-account owners: one owner record per address and app, its gas tank, and its accounts: one per network and
type. A `simple` account is a SimpleAccount (v0.7) the factory deploys at a counterfactual address; an `eip7702`
account is the owner's own address (an MPC wallet) delegating to Simple7702Account (v0.8), on the networks that have
EIP-7702 accounts.

Creation is one DynamoDB transaction (address item, owner record, tank, every account, the entry of the app's
owners list) and no RPC call: the account addresses are counterfactual, computed locally (counterfactual.py), or
the owner's. A repeated or concurrent call for the same address (any letter case) finds the address item taken and
returns the existing record, adding the accounts of networks configured since, and of the type asked for.
"""

from __future__ import annotations

import re
import uuid

from chalicelib.evm.aa import counterfactual
from chalicelib.platform import aws, unit_of_work
from chalicelib.platform.addresses import checksum_address
from chalicelib.platform.clock import iso_now
from chalicelib.platform.errors import ApiError, bad_request, not_found
from chalicelib.platform.networks import Network, registry
from chalicelib.platform.pagination import PageQuery
from chalicelib.platform.unit_of_work import Plan
from chalicelib.smart_accounts import store, tanks
from chalicelib.smart_accounts.models import (
    Account,
    AccountType,
    GasTank,
    NetworkInfo,
    Owner,
    OwnerRecord,
    SmartAccount,
    UsdtInfo,
)
from chalicelib.tenancy.models import App

UNSUPPORTED_PROVIDER = "UNSUPPORTED_PROVIDER"
NO_EIP7702_NETWORK = "NO_EIP7702_NETWORK"
OWNER_NOT_FOUND = "OWNER_NOT_FOUND"
NOT_DEPLOYED = "not_deployed"
DEPLOYED = "deployed"  # set when a user operation that deployed the account is settled (`deployed`)
PROVIDERS = ("wallet",)
EIP7702_ACCOUNT_VERSION = "simple7702-0.8"  # Simple7702Account of @account-abstraction/contracts 0.8.0


def networks() -> list[NetworkInfo]:
    return [_network_info(n) for n in smart_account_networks()]


def smart_account_networks() -> list[Network]:
    return [n for n in registry().networks if n.supports_smart_accounts]


def create(app: App, address: str, provider: str, account_type: AccountType = "simple") -> OwnerRecord:
    if provider not in PROVIDERS:
        raise bad_request(
            UNSUPPORTED_PROVIDER,
            f"Provider {provider[:40]!r} is not supported; use one of {', '.join(PROVIDERS)}",
            errors=[{"field": "owner.provider", "message": "only `wallet` is supported", "type": "provider"}],
        )
    owner_address = checksum_address(address, "owner.id")
    if account_type == "eip7702" and not _networks_for(account_type):
        raise ApiError(422, NO_EIP7702_NETWORK, "No network of the service has EIP-7702 accounts")
    now = iso_now()
    record_id = str(uuid.uuid4())
    tank_put, tank = tanks.registered().open(record_id, now)
    owner = Owner(
        **store.owner_key(record_id),
        id=record_id,
        createdAt=now,
        updatedAt=None,
        ownerId=owner_address,
        provider=provider,
        clientId=app.clientId,
        appId=app.appId,
        tankId=tank.id,
    )
    accounts = [_account_item(owner, n, now, account_type) for n in _networks_for(account_type)]
    taken = aws.put("address", store.TABLE, {**store.address_key(app.appId, owner_address), "ownerRecordId": record_id})
    try:
        unit_of_work.commit(
            Plan(
                items=[
                    taken,
                    aws.put("owner", store.TABLE, owner.to_item()),
                    tank_put,
                    *map(_put, accounts),
                    *(_pointer(a) for a in accounts),
                ],
                lists=[(store.app_owners(app.appId), {"ownerRecordId": record_id, "createdAt": now})],
            )
        )
    except aws.TransactionCancelledError as exc:
        if not exc.condition_failed("address"):
            raise
        existing = str(exc.old["address"]["ownerRecordId"])  # created before, or by a concurrent call
        return _with_new_networks(app, existing, account_type)
    return _record(owner, tank, accounts)


def get(app: App, owner_id: str) -> OwnerRecord:
    """By owner record id or by owner address."""
    owner, accounts = _find(app, owner_id)
    return _record(owner, tanks.registered().show(owner.tankId, owner.id), accounts)


def page(app: App, query: PageQuery) -> tuple[list[OwnerRecord], int]:
    """Page `query` of the app's owner records (as `get` shows them), newest first, and the exact total."""
    entries, total = store.app_owners(app.appId).page(query)
    return [get(app, str(entry["ownerRecordId"])) for entry in entries], total


def owner_of(app: App, owner_id: str) -> Owner:
    """The owner record of this app named by id or address; 404 OWNER_NOT_FOUND otherwise (another app's too)."""
    return _find(app, owner_id)[0]


def deployed(account_id: str, now: str) -> aws.TxItem:
    """The account's move to `deployed` (item `account`), once a user operation that deployed it is settled."""
    found = store.account_by_id(account_id)
    if found is None:
        raise RuntimeError(f"no smart account {account_id}")
    account, _ = found
    return aws.update(
        "account",
        store.TABLE,
        store.account_key(account.ownerId, account.chainId, account.accountType),
        aws.Changes(set={"status": DEPLOYED, "updatedAt": now}),
        aws.EXISTS,
    )


def _find(app: App, owner_id: str) -> tuple[Owner, list[SmartAccount]]:
    record_id: str | None = owner_id
    if re.fullmatch(r"0x[0-9a-fA-F]{40}", owner_id):
        record_id = store.record_id_for_address(app.appId, owner_id)
    elif not re.fullmatch(r"[0-9a-f-]{36}", owner_id):
        record_id = None
    owner, accounts = store.owner_items(record_id) if record_id else (None, [])
    if owner is None or owner.appId != app.appId:
        raise not_found(OWNER_NOT_FOUND, "No smart-account owner with this id or address in this app")
    return owner, accounts


def _with_new_networks(app: App, record_id: str, account_type: AccountType = "simple") -> OwnerRecord:
    owner, accounts = store.owner_items(record_id)
    if owner is None:
        raise RuntimeError("address item without an owner record")
    have = {(a.chainId, a.accountType) for a in accounts}
    types = {account_type, *(a.accountType for a in accounts)}
    missing = [(n, t) for t in sorted(types) for n in _networks_for(t) if (n.chainId, t) not in have]
    if missing:
        now = iso_now()
        added = [_account_item(owner, n, now, t) for n, t in missing]
        puts = [*map(_put, added), *map(_pointer, added)]
        try:
            unit_of_work.commit(Plan(items=puts))
        except aws.TransactionCancelledError as exc:
            if exc.conflict or any(exc.condition_failed(_item_name("account", a)) for a in added):
                return _with_new_networks(app, record_id, account_type)  # a concurrent call added them: read again
            raise
    return get(app, record_id)


def _networks_for(account_type: str) -> list[Network]:
    networks = smart_account_networks()
    return [n for n in networks if n.supports_eip7702_accounts] if account_type == "eip7702" else networks


def _item_name(what: str, account: SmartAccount) -> str:
    return f"{what}-{account.chainId}" + ("-eip7702" if account.accountType == "eip7702" else "")


def _put(account: SmartAccount) -> aws.TxItem:
    return aws.put(_item_name("account", account), store.TABLE, account.to_item())


def _pointer(account: SmartAccount) -> aws.TxItem:
    item = {**store.account_pointer_key(account.id), "ownerRecordId": account.ownerId, "chainId": account.chainId}
    return aws.put(_item_name("pointer", account), store.TABLE, item)


def _account_item(owner: Owner, network: Network, now: str, account_type: str = "simple") -> SmartAccount:
    common = {
        "id": str(uuid.uuid4()),
        "createdAt": now,
        "updatedAt": None,
        "ownerId": owner.id,
        "status": NOT_DEPLOYED,
        "chainId": network.chainId,
        "network": network.name,
        "clientId": owner.clientId,
        "appId": owner.appId,
    }
    if account_type == "eip7702":
        return SmartAccount(
            **store.account_key(owner.id, network.chainId, account_type),
            **common,
            aaAddress=owner.ownerId,  # the wallet itself
            version=EIP7702_ACCOUNT_VERSION,
            accountType="eip7702",
        )
    assert network.accountFactory is not None
    return SmartAccount(
        **store.account_key(owner.id, network.chainId),
        **common,
        aaAddress=counterfactual.account_address(network.accountFactory, owner.ownerId),
        version=counterfactual.ACCOUNT_VERSION,
        factory=network.accountFactory,
    )


def _record(owner: Owner, tank: GasTank, accounts: list[SmartAccount]) -> OwnerRecord:
    return OwnerRecord(
        id=owner.id,
        createdAt=owner.createdAt,
        updatedAt=owner.updatedAt,
        ownerId=owner.ownerId,
        provider=owner.provider,
        clientId=owner.clientId,
        appId=owner.appId,
        gasTanks=[tank],
        accounts=[
            Account.model_validate({k: v for k, v in a.to_item().items() if k in Account.model_fields})
            for a in sorted(accounts, key=lambda a: (a.chainId, a.accountType))
        ],
    )


def _network_info(network: Network) -> NetworkInfo:
    assert network.usdtDecimals is not None and network.poolAddress and network.entryPoint
    assert network.accountFactory and network.paymaster
    return NetworkInfo(
        name=network.name,
        chainId=network.chainId,
        nativeSymbol=network.nativeSymbol,
        nativeDecimals=network.nativeDecimals,
        usdt=UsdtInfo(address=network.usdt, decimals=network.usdtDecimals),
        poolAddress=network.poolAddress,
        entryPoint=network.entryPoint,
        accountFactory=network.accountFactory,
        paymaster=network.paymaster,
        accountVersion=counterfactual.ACCOUNT_VERSION,
        entryPointV08=network.entryPointV08,
        eip7702Account=network.eip7702Account,
        paymasterV08=network.paymasterV08,
    )
