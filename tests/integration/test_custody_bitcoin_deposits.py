"""Deposits and invoices on a Bitcoin network (a real btcd in regtest): the watcher reads the node's blocks, finds
outputs paying either address of an account, records them pending in their first block and credits them after
the network's confirmations, once per (txid, output index), across rescans and a reorganisation; invoices take
the account's native SegWit address unless `legacy` is asked. Effects are checked on the node and in the events."""

from __future__ import annotations

import pytest

from chalicelib.custody.deposits import watcher
from chalicelib.custody.store import get
from chalicelib.platform import networks
from tests.support.custody import create_account, custody_balance, outbox_events

pytestmark = pytest.mark.integration

NETWORK = "bitcoin-regtest"


def step():
    report = watcher.step(networks.registry().any_by_name(NETWORK))
    assert report is not None
    return report


def addresses_of(account):
    return {w["addressType"]: w for w in account["wallets"] if w["network"] == NETWORK}


def balance(btc_custody, account):
    found = custody_balance(btc_custody, account["id"], NETWORK, "btc")
    return found["pendingBalance"], found["activeBalance"]


def test_deposits_to_both_address_types_are_pending_then_credited_once_per_output(btc_custody, btc_node):
    account = create_account(btc_custody, "btc-user")
    wallets = addresses_of(account)
    segwit, legacy = wallets["native-segwit"]["address"], wallets["legacy"]["address"]
    other = addresses_of(create_account(btc_custody, "someone-else"))["native-segwit"]["address"]
    step()  # the cursor starts at the head
    first = btc_node.fund(segwit, 150_000)
    # One transaction paying the account twice (both address types) and another account once.
    second = btc_node.pay([(legacy, 20_000), (other, 5_000), (segwit, 7_000)])
    btc_node.generate(1)
    report = step()
    assert report.recorded == 4 and report.credited == 0
    assert balance(btc_custody, account) == ("0.00177", "0")

    raw_pending = outbox_events("deposit.wallet.pending_confirmation")
    ours = {wallets["native-segwit"]["walletId"], wallets["legacy"]["walletId"]}
    # The account's first output of a transaction keeps the txid as its reference, a later one `<txid>:<n>`.
    assert sorted(e["id"].split(":", 2)[2] for e in raw_pending if e["id"].split(":")[1] in ours) == sorted(
        [first, second, f"{second}:2"]
    )
    pending = [e["data"] for e in raw_pending]
    mine = sorted(
        (e["transaction"]["txHash"], e["wallet"]["address"], e["transaction"]["value"])
        for e in pending
        if e["wallet"]["address"] in (segwit, legacy)
    )
    assert mine == sorted([(first, segwit, "150000"), (second, legacy, "20000"), (second, segwit, "7000")])
    for event in pending:
        tx = event["transaction"]
        assert tx["blockchainType"] == "bitcoin" and tx["valueDecimals"] == 8
        assert tx["tokenAddress"] == "" and tx["tokenSymbol"] == "BTC" and tx["networkCode"] == NETWORK
        assert tx["to"] == event["wallet"]["address"] and event["token"]["decimals"] == 8
        wallet = next(w for w in btc_custody_wallets(btc_custody) if w["address"] == tx["to"])
        assert event["wallet"]["walletId"] == wallet["walletId"]

    btc_node.generate(1)  # two confirmations
    assert step().credited == 4
    assert step().credited == 0  # a rescan credits nothing twice
    credited = [e["data"] for e in outbox_events("deposit.wallet.credited")]
    assert len(credited) == 4
    transfer_ids = {e["tokenTransfer"]["id"] for e in credited}
    assert len(transfer_ids) == 4  # one per (txid, output index)
    assert balance(btc_custody, account) == ("0", "0.00177")
    # The node agrees: the outputs the service credited are unspent at the account's addresses.
    for txid, vout, address in ((first, 0, segwit), (second, 0, legacy), (second, 2, segwit)):
        found = btc_node.rpc("gettxout", txid, vout, True)
        assert found["scriptPubKey"]["addresses"] == [address]
    listed = btc_custody["signed"]("GET", f"/api/v1/custody/deposits?accountId={account['id']}").json_body["data"]
    assert {(d["transaction"]["txHash"], d["status"], d["confirmations"]) for d in listed["data"]} == {
        (first, "credited", 2),
        (second, "credited", 2),
    }


def btc_custody_wallets(btc_custody):
    answer = btc_custody["signed"]("GET", "/api/v1/custody/accounts?limit=100").json_body["data"]
    return [w for account in answer["data"] for w in account["wallets"]]


def test_a_reorg_before_confirmations_credits_nothing_until_the_transaction_returns_then_once(btc_custody, btc_node):
    account = create_account(btc_custody, "btc-reorg")
    segwit = addresses_of(account)["native-segwit"]["address"]
    step()
    txid = btc_node.fund(segwit, 42_000)
    [block] = btc_node.generate(1)
    assert step().recorded == 1
    btc_node.rpc("invalidateblock", block)  # its block leaves the chain; the transaction goes back to the mempool
    report = step()
    assert report.credited == 0 and report.recorded == 0
    assert balance(btc_custody, account) == ("0.00042", "0")

    btc_node.generate(2)  # mined again, in another block at the same height
    assert btc_node.rpc("getrawtransaction", txid, 1)["blockhash"] != block
    reports = [step() for _ in range(3)]
    assert sum(r.stepped_back for r in reports) > 0, "the cursor stepped back over the replaced block"
    assert sum(r.credited for r in reports) == 1
    [credited] = outbox_events("deposit.wallet.credited")
    record = get(f"DEPOSIT#{credited['data']['tokenTransfer']['id']}", "DEPOSIT")
    assert record["status"] == "credited" and record["blockHash"] != block
    assert balance(btc_custody, account) == ("0", "0.00042")
    assert outbox_events("deposit.reverted") == []


def test_invoices_take_the_asked_address_type_and_are_paid_or_failed(btc_custody, btc_node):
    signed = btc_custody["signed"]
    account = create_account(btc_custody, "btc-invoices")
    wallets = addresses_of(account)
    step()

    def invoice(reference, amount, **extra):
        body = {"accountId": account["id"], "network": NETWORK, "tokenCode": "btc", "amount": amount, **extra}
        answer = signed("POST", "/api/v1/custody/invoices", {**body, "reference": reference})
        assert answer.status_code == 200, answer.json_body
        return answer.json_body["data"]

    paid = invoice("btc-order-1", "0.0025")
    assert paid["depositAddress"] == wallets["native-segwit"]["address"] and paid["addressType"] == "native-segwit"
    assert paid["amountInDecimals"] == "250000"
    btc_node.fund(wallets["legacy"]["address"], 250_000)  # the account's other address: a wallet deposit
    btc_node.fund(paid["depositAddress"], 250_000)
    btc_node.generate(2)
    step()
    shown = signed("GET", f"/api/v1/custody/invoices/{paid['id']}").json_body["data"]
    assert shown["status"] == "paid"
    [paid_event] = outbox_events("deposit.invoice.paid")
    assert paid_event["data"]["transaction"]["to"] == paid["depositAddress"]
    assert paid_event["data"]["transaction"]["blockchainType"] == "bitcoin"
    assert len(outbox_events("deposit.wallet.credited")) == 1  # the legacy payment

    failed = invoice("btc-order-2", "0.001", addressType="legacy")
    assert failed["depositAddress"] == wallets["legacy"]["address"] and failed["addressType"] == "legacy"
    btc_node.fund(failed["depositAddress"], 99_999)
    btc_node.generate(2)
    step()
    assert signed("GET", f"/api/v1/custody/invoices/{failed['id']}").json_body["data"]["status"] == "failed"
    [failed_event] = outbox_events("invoice.failed")
    assert failed_event["data"]["transaction"]["value"] == "99999"
    assert balance(btc_custody, account) == ("0", "0.00599999")

    evm = signed(
        "POST",
        "/api/v1/custody/invoices",
        {
            "accountId": account["id"],
            "network": "local-a",
            "tokenCode": "usdt",
            "amount": "1",
            "reference": "evm-legacy",
            "addressType": "legacy",
        },
    )
    assert evm.status_code == 400 and evm.json_body["data"]["code"] == "ADDRESS_TYPE_NOT_OFFERED"
    unknown = signed(
        "POST",
        "/api/v1/custody/invoices",
        {
            **{k: failed[k] for k in ("accountId", "network")},
            "tokenCode": "btc",
            "amount": "1",
            "reference": "x",
            "addressType": "taproot",
        },
    )
    assert unknown.status_code == 400
