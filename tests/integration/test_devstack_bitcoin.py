"""Bitcoin custody against the local stack (`make dev`: btcd in regtest beside the anvil chains), over HTTP as an
integrator calls it: an account's two address types, deposits to each credited by the local watcher after the
network's confirmations, an invoice paid exactly, and a withdrawal signed by the threshold key and paid on the
node. Effects are checked on the node (`getrawtransaction`) and in the signed webhooks."""

from __future__ import annotations

import json
import secrets
import time
from decimal import Decimal

import pytest
from embit import ec, script
from embit.networks import NETWORKS

from devtools.bitcoin_node import BtcdClient
from tests.support.devstack import WebhookReceiver, bitcoin_network, signed

pytestmark = pytest.mark.integration


def _wait(check, what, timeout_s=90, mine=None):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        if mine is not None:
            mine.generate(1)
        time.sleep(1.5)
    raise AssertionError(f"{what} did not happen within {timeout_s} s")


def _sats(amount: str) -> int:
    return int(Decimal(amount) * 100_000_000)


def test_bitcoin_deposits_an_invoice_and_a_withdrawal_over_http(stack):
    info = stack["info"]
    btc = bitcoin_network(info)
    assert btc["name"] == "bitcoin-regtest" and btc["miner"]["address"] and btc["miner"]["wif"]
    node = BtcdClient(btc["rpcUrl"], btc["rpcUser"], btc["rpcPassword"])
    with WebhookReceiver() as receiver:
        put = signed(info, "PUT", "/api/v1/webhooks/settings", json.dumps({"url": receiver.url}).encode())
        assert put.status_code == 200, put.text
        created = signed(info, "POST", "/api/v1/custody/accounts", json.dumps({"subId": "dev-bitcoin"}).encode())
        assert created.status_code == 200, created.text
        account = created.json()["data"]
        wallets = {w["addressType"]: w["address"] for w in account["wallets"] if w["network"] == btc["name"]}
        assert set(wallets) == {"native-segwit", "legacy"} and wallets["native-segwit"].startswith("bcrt1q")

        def balance():
            path = f"/api/v1/custody/accounts/{account['id']}/balances"
            found = signed(info, "GET", path).json()["data"]["balances"]
            return next(b for b in found if b["network"] == btc["name"])

        # A deposit to each address type, credited after the network's confirmations.
        node.fund(wallets["native-segwit"], 150_000)
        node.fund(wallets["legacy"], 50_000)
        node.generate(2)
        _wait(lambda: balance()["activeBalance"] == "0.002", "the two deposits' credit")

        # An invoice on the legacy address, paid exactly.
        body = {
            "accountId": account["id"],
            "network": btc["name"],
            "tokenCode": "btc",
            "amount": "0.0003",
            "reference": f"btc-{secrets.token_hex(4)}",
            "addressType": "legacy",
        }
        invoice = signed(info, "POST", "/api/v1/custody/invoices", json.dumps(body).encode()).json()["data"]
        assert invoice["depositAddress"] == wallets["legacy"]
        node.fund(invoice["depositAddress"], 30_000)
        node.generate(2)
        _wait(
            lambda: signed(info, "GET", f"/api/v1/custody/invoices/{invoice['id']}").json()["data"]["status"] == "paid",
            "the invoice's payment",
        )

        # A withdrawal to a fresh P2WPKH address, signed by the account's child key and paid on the node.
        public = ec.PrivateKey(secrets.token_bytes(32)).get_public_key()
        destination = script.p2wpkh(public).address(NETWORKS["regtest"])
        body = {"accountId": account["id"], "network": btc["name"], "tokenCode": "btc", "to": destination}
        answer = signed(info, "POST", "/api/v1/custody/withdrawals", json.dumps({**body, "amount": "0.001"}).encode())
        assert answer.status_code == 200, answer.text
        withdrawal = answer.json()["data"]

        def settled():
            shown = signed(info, "GET", f"/api/v1/custody/withdrawals/{withdrawal['id']}").json()["data"]
            return shown if shown["status"] in ("success", "failed") else None

        shown = _wait(settled, "the withdrawal's settlement", timeout_s=180, mine=node)
        assert shown["status"] == "success", shown
        mined = node.rpc("getrawtransaction", shown["txHash"], 1)
        paid = [(o["scriptPubKey"]["addresses"], round(o["value"] * 1e8)) for o in mined["vout"]]
        assert paid[0] == ([destination], 100_000)
        assert all(addresses == [wallets["native-segwit"]] for addresses, _ in paid[1:])  # the change
        spent = sum(
            round(node.rpc("getrawtransaction", i["txid"], 1)["vout"][i["vout"]]["value"] * 1e8) for i in mined["vin"]
        )
        fee = _sats(shown["fee"])
        assert spent - sum(v for _, v in paid) == fee > 0
        assert _sats(balance()["activeBalance"]) == 230_000 - 100_000 - fee
        assert balance()["heldBalance"] == "0"

        # The signed webhooks tell the same story.
        def events():
            found = receiver.verified(info)
            credited = [
                e["data"]
                for e in found
                if e["type"] == "deposit.wallet.credited" and e["data"]["wallet"]["address"] in wallets.values()
            ]
            paid = [
                e for e in found if e["type"] == "deposit.invoice.paid" and e["data"]["invoice"]["id"] == invoice["id"]
            ]
            success = [
                e["data"]
                for e in found
                if e["type"] == "withdraw.success" and e["data"]["withdrawal"]["id"] == withdrawal["id"]
            ]
            return (credited, paid, success) if len(credited) >= 2 and paid and success else None

        credited, _, [success] = _wait(events, "the webhooks")
        assert {c["wallet"]["address"] for c in credited} == set(wallets.values())
        assert all(c["transaction"]["blockchainType"] == "bitcoin" for c in credited)
        assert success["withdrawal"]["txHash"] == shown["txHash"]
