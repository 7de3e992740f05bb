"""Custody accounts on a Bitcoin network (a real btcd in regtest beside the anvil chains): each account gets a
native SegWit and a legacy address of its own child of the pool's Bitcoin key, an HD key that never presigns and
that the cosigner records with its chain code; `account.created` and the account list both; the coin is listed."""

from __future__ import annotations

import pytest

from chalicelib.bitcoin import addresses
from chalicelib.custody import accounts, pool_keys
from chalicelib.custody.store import get
from chalicelib.mpc import presignatures, shares
from chalicelib.mpc import service as mpc
from chalicelib.mpc.cosigner_checks import COSIGNER_POLICY_TABLE
from chalicelib.platform import aws
from tests.support.custody import outbox_events

pytestmark = pytest.mark.integration


def test_an_account_gets_a_segwit_and_a_legacy_address_of_its_own_child_key(btc_custody, btc_node):
    signed = btc_custody["signed"]
    listed = signed("GET", "/api/v1/custody/tokens").json_body["data"]["data"]
    assert {
        "network": "bitcoin-regtest",
        "tokenCode": "btc",
        "symbol": "BTC",
        "decimals": 8,
        "chainId": 18443,
    }.items() <= next(t for t in listed if t["network"] == "bitcoin-regtest").items()

    made = [signed("POST", "/api/v1/custody/accounts", {"subId": f"user-{n}"}).json_body["data"] for n in (1, 2)]
    scope = pool_keys.scope("dedicated", btc_custody["tenant"].appId, btc_custody["tenant"].organizationId)
    key_item = get(pool_keys.key_pk(scope, "bitcoin"), "KEY")
    assert key_item["status"] == "ready" and len(bytes.fromhex(key_item["chainCode"])) == 32
    master = bytes.fromhex(key_item["publicKey"])
    seen: set[str] = set()
    for account in made:
        on_btc = {w["addressType"]: w for w in account["wallets"] if w["network"] == "bitcoin-regtest"}
        assert set(on_btc) == {"native-segwit", "legacy"}
        child = mpc.derive_public_key(
            master, bytes.fromhex(key_item["chainCode"]), pool_keys.bitcoin_path(account["id"], 18443)
        )
        assert on_btc["native-segwit"]["address"] == addresses.deposit_address(child, "native-segwit", "regtest")
        assert on_btc["legacy"]["address"] == addresses.deposit_address(child, "legacy", "regtest")
        assert on_btc["native-segwit"]["address"].startswith("bcrt1q") and on_btc["legacy"]["address"][0] in "mn"
        assert on_btc["native-segwit"]["walletId"] != on_btc["legacy"]["walletId"]
        assert [w["addressType"] for w in account["wallets"] if w["network"] != "bitcoin-regtest"] == ["", ""]
        for wallet in on_btc.values():  # the address index finds the account by either address, exactly
            index = get(**accounts.address_key(18443, wallet["address"]))
            assert index["accountId"] == account["id"] and index["walletId"] == wallet["walletId"]
            seen.add(wallet["address"])
        shown = signed("GET", f"/api/v1/custody/accounts/{account['id']}").json_body["data"]
        assert shown["wallets"] == account["wallets"]
        btc_node.fund(on_btc["native-segwit"]["address"], 10_000)  # a valid regtest address the node pays
    assert len(seen) == 4  # every account has addresses of its own

    events = {e["data"]["account"]["id"]: e["data"]["wallets"] for e in outbox_events("account.created")}
    for account in made:
        assert [(w["network"], w["addressType"], w["address"]) for w in events[account["id"]]] == [
            (w["network"], w["addressType"], w["address"]) for w in account["wallets"]
        ]

    # The cosigner recorded the key as an HD key of the pool, from its own share; it never presigns.
    recorded = aws.table(COSIGNER_POLICY_TABLE).get_item(Key={"pk": f"CUSTODYKEY#{key_item['keyId']}", "sk": "KEY"})[
        "Item"
    ]
    assert recorded["chainCode"] == key_item["chainCode"] and recorded["scope"] == scope
    assert presignatures.ready_ids(shares.COSIGNER, key_item["keyId"]) == []
    assert presignatures.ready_ids(shares.SIGNER, key_item["keyId"]) == []


def test_a_registry_with_custody_on_bitcoin_only_makes_bitcoin_accounts(btc_custody):
    import json

    from chalicelib.platform import networks, settings

    path = settings.load_settings().networks_file
    registry = json.loads(path.read_text())
    for entry in registry["networks"]:
        if entry.get("kind", "evm") == "evm":
            entry.pop("custodyTokens", None)
    path.write_text(json.dumps(registry))
    networks.registry.cache_clear()
    answer = btc_custody["signed"]("POST", "/api/v1/custody/accounts", {"subId": "bitcoin-only"})
    assert answer.status_code == 200, answer.json_body
    wallets = answer.json_body["data"]["wallets"]
    assert [(w["network"], w["addressType"]) for w in wallets] == [
        ("bitcoin-regtest", "native-segwit"),
        ("bitcoin-regtest", "legacy"),
    ]
