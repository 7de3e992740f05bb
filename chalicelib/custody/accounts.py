"""Custody accounts: one per (app, subId), with deposit addresses on every custody network (pool_keys.py): one on
each EVM network (`addressType` ""), and a native SegWit and a legacy one on each Bitcoin network, both of the
account's child of its pool's Bitcoin key on that network."""

from __future__ import annotations

import uuid
from typing import Any

from chalicelib.bitcoin import addresses as bitcoin_addresses
from chalicelib.custody import cursor, events, pool_keys
from chalicelib.custody.store import TABLE, busy, canonical_address, get
from chalicelib.custody.tokens import NAMESPACE, bitcoin_custody_networks, custody_networks
from chalicelib.platform import aws, clock, unit_of_work
from chalicelib.platform.errors import ApiError, not_found
from chalicelib.platform.pagination import AppendOnlyList, PageQuery, records_page
from chalicelib.platform.unit_of_work import Event, Plan
from chalicelib.tenancy.models import App

ACCOUNT_NOT_FOUND = "ACCOUNT_NOT_FOUND"
NETWORK_NOT_ON_ACCOUNT = "NETWORK_NOT_ON_ACCOUNT"  # the account has no deposit address on that network
NO_CUSTODY_NETWORKS = "NO_CUSTODY_NETWORKS"


def accounts_list(app_id: str) -> AppendOnlyList:
    return AppendOnlyList(TABLE, f"ACCOUNTS#{app_id}")


def account_key(account_id: str) -> dict[str, str]:
    return {"pk": f"ACCOUNT#{account_id}", "sk": "ACCOUNT"}


def address_key(chain_id: int, address: str) -> dict[str, str]:
    """The address index's key."""
    return {"pk": f"ADDR#{chain_id}#{canonical_address(address)}", "sk": "ADDR"}


def create(app: App, sub_id: str, pool_type: pool_keys.PoolType) -> tuple[dict[str, Any], bool]:
    """The app's account for `sub_id`: (account, created). Idempotent, also under concurrent calls: one account
    and one `account.created` per (app, subId)."""
    existing = by_sub(app.appId, sub_id)
    if existing is not None:
        return existing, False
    networks, bitcoin = custody_networks(), bitcoin_custody_networks()
    if not networks and not bitcoin:
        raise ApiError(503, NO_CUSTODY_NETWORKS, "No network is configured for custody accounts")
    cursor.ensure_cursors([*networks, *bitcoin])  # the watcher starts no later than the first address exists
    scope = pool_keys.scope(pool_type, app.appId, app.organizationId)
    key = pool_keys.ensure(scope)
    account_id = str(uuid.uuid4())
    wallets: list[dict[str, Any]] = []
    for network in networks:
        assert network.accountFactory is not None  # validated with custodyTokens
        wallets.append(
            {
                "walletId": str(uuid.uuid5(NAMESPACE, f"wallet:{account_id}:{network.chainId}")),
                "network": network.name,
                "chainId": network.chainId,
                "address": pool_keys.deposit_address(network.accountFactory, key, account_id),
                "addressType": "",
            }
        )
    if bitcoin:
        bitcoin_key = pool_keys.ensure(scope, "bitcoin")
        for btc in bitcoin:
            child = pool_keys.bitcoin_key(bitcoin_key, account_id, btc.chainId)  # one key per account and network
            for address_type in ("native-segwit", "legacy"):
                wallets.append(
                    {
                        "walletId": str(uuid.uuid5(NAMESPACE, f"wallet:{account_id}:{btc.chainId}:{address_type}")),
                        "network": btc.name,
                        "chainId": btc.chainId,
                        "address": bitcoin_addresses.deposit_address(child, address_type, btc.chain),
                        "addressType": address_type,
                    }
                )
    now = clock.iso_now()
    account = {
        **account_key(account_id),
        "id": account_id,
        "appId": app.appId,
        "subId": sub_id,
        "mpcSubId": key.key_id,
        "ownerAddress": key.address,
        "status": "active",
        "poolType": pool_type,
        "wallets": wallets,
        "createdAt": now,
    }

    def plan() -> Plan:
        items = [
            aws.put("sub", TABLE, {"pk": f"SUB#{app.appId}#{sub_id}", "sk": "SUB", "accountId": account_id}),
            aws.put("account", TABLE, account),
            *(
                aws.put(
                    f"address-{i}",
                    TABLE,
                    {
                        **address_key(w["chainId"], w["address"]),
                        "accountId": account_id,
                        "appId": app.appId,
                        "walletId": w["walletId"],
                    },
                )
                for i, w in enumerate(wallets)
            ),
        ]
        event = Event(app.appId, "account.created", f"account.created:{account_id}", events.account_created(account))
        return Plan(items, [(accounts_list(app.appId), {"accountId": account_id, "createdAt": now})], event)

    try:
        unit_of_work.commit(plan, on_busy=busy)
    except aws.TransactionCancelledError as exc:
        if exc.condition_failed("sub"):  # a concurrent call for the same subId won: its account is the one
            winner = by_sub(app.appId, sub_id)
            if winner is not None:
                return winner, False
        raise
    return account, True


def by_sub(app_id: str, sub_id: str) -> dict[str, Any] | None:
    pointer = get(f"SUB#{app_id}#{sub_id}", "SUB")
    return get(**account_key(str(pointer["accountId"]))) if pointer else None


def of_app(app_id: str, account_id: str) -> dict[str, Any]:
    """The app's account, or 404 (another app's account is not found either)."""
    try:
        uuid.UUID(account_id)
    except ValueError:
        raise not_found(ACCOUNT_NOT_FOUND, "No such account") from None
    account = get(**account_key(account_id))
    if account is None or account["appId"] != app_id:
        raise not_found(ACCOUNT_NOT_FOUND, "No such account")
    return account


def page(app_id: str, query: PageQuery) -> tuple[list[dict[str, Any]], int]:
    return records_page(accounts_list(app_id), query, "accountId", account_key)


def public(account: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": account["id"],
        "subId": account["subId"],
        "mpcSubId": account["mpcSubId"],
        "status": account["status"],
        "poolType": account["poolType"],
        "wallets": [{k: (int(v) if k == "chainId" else v) for k, v in w.items()} for w in account["wallets"]],
        "createdAt": account["createdAt"],
    }
