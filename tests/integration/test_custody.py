"""Custodial deposits end to end on anvil through the real watcher: accounts and their deposit addresses (the real
MPC key generation), invoices, ERC-20 and native deposits, confirmations, reorgs, expiry, the ledger and the
events (read from the outbox and delivered signed to a local receiver). Effects are checked on the chain too."""

from __future__ import annotations

import json
import random
import threading
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal

import pytest
from eth_account import Account

from chalicelib.custody import accounts, ledger, pool_keys
from chalicelib.custody.cursor import cursor_key, unlease
from chalicelib.custody.deposits import invoices, scan, watcher
from chalicelib.custody.deposits import lifecycle as deposits
from chalicelib.custody.store import get
from chalicelib.evm import logs
from chalicelib.evm.abi import encode_call
from chalicelib.platform import aws, clock, settings
from chalicelib.platform.pagination import PageQuery
from tests.support.custody import (
    CONFIRMATIONS,
    create_account,
    custody_balance,
    mine_blocks,
    network_named,
    outbox_events,
    send_token,
    token_balance,
    watcher_step,
)
from tests.support.top_ups import ERC20_ABI as _ERC20

pytestmark = pytest.mark.integration


def test_tokens_and_idempotent_concurrent_account_creation(custody):
    tokens = custody["signed"]("GET", "/api/v1/custody/tokens").json_body["data"]["data"]
    assert {(t["network"], t["tokenCode"]) for t in tokens} == {
        (n, c) for n in ("local-a", "local-b") for c in ("eth", "usdt", "erc20")
    }
    usdt = next(t for t in tokens if t["network"] == "local-a" and t["tokenCode"] == "usdt")
    assert usdt["decimals"] == 6 and usdt["symbol"] == "USDT" and len(usdt["id"]) == 36

    with ThreadPoolExecutor(5) as pool:
        answers = list(
            pool.map(lambda _: custody["signed"]("POST", "/api/v1/custody/accounts", {"subId": "u-42"}), range(5))
        )
    assert all(a.status_code == 200 for a in answers), [a.json_body for a in answers]
    ids = {a.json_body["data"]["id"] for a in answers}
    assert len(ids) == 1, "one account per (app, subId), also under concurrent calls"
    account = answers[0].json_body["data"]
    assert sum(a.json_body["message"] == "account created" for a in answers) == 1
    again = custody["signed"]("POST", "/api/v1/custody/accounts", {"subId": "u-42"})
    assert again.json_body["data"] == account and again.json_body["message"] == "account exists"

    [event] = outbox_events("account.created")
    assert event["id"] == f"account.created:{account['id']}"
    assert event["data"] == {
        "appId": custody["tenant"].appId,
        "account": {
            "id": account["id"],
            "subId": "u-42",
            "mpcSubId": account["mpcSubId"],
            "status": "active",
            "poolType": "dedicated",
        },
        "wallets": [
            {"walletId": w["walletId"], "network": w["network"], "address": w["address"], "addressType": ""}
            for w in account["wallets"]
        ],
    }
    # The deposit address is the factory's own counterfactual account of the custody key, on every chain.
    owner = get(f"ACCOUNT#{account['id']}", "ACCOUNT")["ownerAddress"]
    assert [w["network"] for w in account["wallets"]] == ["local-a", "local-b"]
    for wallet in account["wallets"]:
        chain = next(c for c in custody["chains"] if c["name"] == wallet["network"])
        w3 = custody["w3"][chain["chainId"]]
        factory = w3.eth.contract(
            address=chain["accountFactory"],
            abi=[
                {
                    "name": "getAddress",
                    "type": "function",
                    "stateMutability": "view",
                    "inputs": [{"name": "owner", "type": "address"}, {"name": "salt", "type": "uint256"}],
                    "outputs": [{"name": "", "type": "address"}],
                }
            ],
        )
        assert factory.functions.getAddress(owner, pool_keys.salt(account["id"])).call() == wallet["address"]
    # A second account of the same app shares the key (no second key generation) but not the address.
    other = create_account(custody, "u-43")
    assert (
        other["mpcSubId"] == account["mpcSubId"] and other["wallets"][0]["address"] != account["wallets"][0]["address"]
    )
    listed = custody["signed"]("GET", "/api/v1/custody/accounts?subId=u-42").json_body["data"]
    assert [a["id"] for a in listed["data"]] == [account["id"]] and listed["pagination"]["total"] == 1
    assert custody["signed"]("GET", "/api/v1/custody/accounts").json_body["data"]["pagination"]["total"] == 2
    bad = custody["signed"]("POST", "/api/v1/custody/accounts", {"subId": "a b"})
    assert bad.status_code == 400


def test_a_usdt_invoice_paid_exactly_is_pending_then_paid_and_credited_once(custody):
    account = create_account(custody)
    address = account["wallets"][0]["address"]
    answer = custody["signed"](
        "POST",
        "/api/v1/custody/invoices",
        {
            "accountId": account["id"],
            "network": "local-a",
            "tokenCode": "usdt",
            "amount": "12.5",
            "reference": "order-1",
        },
    )
    assert answer.status_code == 200, answer.json_body
    invoice = answer.json_body["data"]
    assert invoice["status"] == "pending" and invoice["amountInDecimals"] == "12500000"
    assert invoice["depositAddress"] == address and invoice["bufferInSeconds"] == 600
    second = custody["signed"](
        "POST",
        "/api/v1/custody/invoices",
        {"accountId": account["id"], "network": "local-a", "tokenCode": "usdt", "amount": "1", "reference": "order-2"},
    )
    assert second.status_code == 409 and second.json_body["data"]["code"] == "INVOICE_ALREADY_PENDING"

    tx_hash = send_token(custody, 31337, "usdt", address, 12_500_000)
    assert token_balance(custody, 31337, "usdt", address) == 12_500_000  # on chain
    report = watcher_step("local-a")
    assert report.recorded == 1 and report.credited == 0
    assert custody_balance(custody, account["id"], "local-a", "usdt")["pendingBalance"] == "12.5"
    [pending] = outbox_events("deposit.invoice.pending_confirmation")
    assert pending["id"] == f"deposit.invoice.pending_confirmation:{invoice['id']}:{tx_hash}"
    data = pending["data"]
    assert set(data) == {"appId", "matchType", "confirmationStatus", "userId", "invoice", "transaction", "token"}
    assert data["matchType"] == "invoice" and data["confirmationStatus"] == "pending" and data["userId"] == "user-1"
    assert data["invoice"] == {
        "id": invoice["id"],
        "status": "pending",
        "amount": 12.5,
        "amountInDecimals": "12500000",
        "reference": "order-1",
        "walletId": invoice["walletId"],
        "depositAddress": address,
        "transactionHash": tx_hash,
    }
    assert data["transaction"]["value"] == "12500000" and data["transaction"]["valueDecimals"] == 6
    assert data["transaction"]["to"] == address and data["transaction"]["chainId"] == 31337
    assert data["token"]["tokenCode"] == "usdt" and data["token"]["decimals"] == 6

    watcher_step("local-a")
    assert custody_balance(custody, account["id"], "local-a", "usdt")["activeBalance"] == "0", (
        "not before confirmations"
    )
    mine_blocks(custody["w3"][31337], CONFIRMATIONS)
    report = watcher_step("local-a")
    assert report.credited == 1
    for _ in range(2):  # more steps, a rescan from the start: nothing more
        watcher_step("local-a")
    cursor = get(**cursor_key(31337))
    aws.table("custody").update_item(
        Key=cursor_key(31337),
        UpdateExpression="SET #n = :s, hashes = :h",
        ExpressionAttributeNames={"#n": "next"},
        ExpressionAttributeValues={":s": network_named("local-a").custodyStartBlock, ":h": {}},
    )
    assert watcher_step("local-a").recorded == 0
    assert int(cursor["next"]) > 0
    balance = custody_balance(custody, account["id"], "local-a", "usdt")
    assert balance["activeBalance"] == "12.5" and balance["pendingBalance"] == "0"
    paid = custody["signed"]("GET", f"/api/v1/custody/invoices/{invoice['id']}").json_body["data"]
    assert paid["status"] == "paid" and paid["paidAt"] and paid["transactionHash"] == tx_hash
    [event] = outbox_events("deposit.invoice.paid")
    assert event["id"] == f"deposit.invoice.paid:{invoice['id']}:{tx_hash}"
    assert set(event["data"]) == {
        "appId",
        "matchType",
        "userId",
        "invoice",
        "transaction",
        "token",
        "tokenTransfer",
        "credit",
    }
    assert event["data"]["invoice"]["paidAt"] == paid["paidAt"] and event["data"]["invoice"]["status"] == "paid"
    deposit_id = event["data"]["tokenTransfer"]["id"]
    assert event["data"]["tokenTransfer"] == {"id": deposit_id, "amountInDecimals": "12500000"}
    assert event["data"]["credit"] == {
        "tokenCode": "usdt",
        "amount": 12.5,
        "referenceType": "invoice",
        "referenceId": invoice["id"],
    }
    deposit = custody["signed"]("GET", f"/api/v1/custody/deposits/{deposit_id}").json_body["data"]
    assert deposit["status"] == "credited" and deposit["invoiceOutcome"] == "paid"
    assert deposit["confirmations"] >= CONFIRMATIONS and deposit["transaction"]["txHash"] == tx_hash
    entries = custody["signed"]("GET", f"/api/v1/custody/accounts/{account['id']}/entries").json_body["data"]
    assert [e["kind"] for e in entries["data"]] == ["credit", "pending"]
    assert ledger.replay(account["id"])["local-a#usdt"] == {"active": 12_500_000, "pending": 0, "held": 0}
    # A new invoice can be opened once the first is settled.
    assert (
        custody["signed"](
            "POST",
            "/api/v1/custody/invoices",
            {
                "accountId": account["id"],
                "network": "local-a",
                "tokenCode": "usdt",
                "amount": "1",
                "reference": "order-2",
            },
        ).status_code
        == 200
    )


def test_a_wrong_amount_fails_the_invoice_and_credits_the_money_to_the_account(custody):
    account = create_account(custody)
    address = account["wallets"][1]["address"]  # local-b
    invoice = custody["signed"](
        "POST",
        "/api/v1/custody/invoices",
        {"accountId": account["id"], "network": "local-b", "tokenCode": "erc20", "amount": "2", "reference": "short"},
    ).json_body["data"]
    tx_hash = send_token(custody, 31338, "erc20", address, 10**18 + 1)  # 1.000000000000000001
    watcher_step("local-b")
    mine_blocks(custody["w3"][31338], CONFIRMATIONS)
    assert watcher_step("local-b").credited == 1
    failed = custody["signed"]("GET", f"/api/v1/custody/invoices/{invoice['id']}").json_body["data"]
    assert failed["status"] == "failed" and failed["failedAt"]
    [event] = outbox_events("invoice.failed")
    assert event["id"] == f"invoice.failed:{invoice['id']}:{tx_hash}"
    raw = next(i["body"] for i in aws.table("webhooks").scan()["Items"] if i.get("type") == "invoice.failed")
    assert '"amount":1.000000000000000001,' in raw, "the human amount keeps every digit"
    assert json.loads(raw, parse_float=Decimal)["data"]["credit"]["amount"] == Decimal("1.000000000000000001")
    assert event["data"]["credit"]["referenceType"] == "token_transfer"
    balance = custody_balance(custody, account["id"], "local-b", "erc20")
    assert balance["activeBalanceInDecimals"] == str(10**18 + 1) and balance["activeBalance"] == "1.000000000000000001"


def test_native_and_uninvoiced_deposits_are_wallet_deposits_pending_then_credited(custody):
    account = create_account(custody)
    address = account["wallets"][0]["address"]
    w3 = custody["w3"][31337]
    tx_hash = "0x" + w3.eth.send_transaction(
        {"from": w3.eth.accounts[3], "to": address, "value": 10**17}
    ).hex().removeprefix("0x")
    w3.eth.wait_for_transaction_receipt(tx_hash)
    assert w3.eth.get_balance(address) == 10**17
    watcher_step("local-a")
    [pending] = outbox_events("deposit.wallet.pending_confirmation")
    wallet_id = account["wallets"][0]["walletId"]
    assert pending["id"] == f"deposit.wallet.pending_confirmation:{wallet_id}:{tx_hash}"
    assert pending["data"]["amount"] == 0.1 and pending["data"]["wallet"] == {
        "walletId": wallet_id,
        "address": address,
        "networkCode": "local-a",
        "chainId": 31337,
    }
    assert (
        pending["data"]["transaction"]["tokenAddress"] == "" and pending["data"]["transaction"]["tokenSymbol"] == "ETH"
    )
    mine_blocks(w3, CONFIRMATIONS)
    watcher_step("local-a")
    [credited] = outbox_events("deposit.wallet.credited")
    deposit_id = credited["data"]["tokenTransfer"]["id"]
    assert credited["id"] == f"deposit.wallet.credited:{deposit_id}"
    assert credited["data"]["credit"] == {
        "tokenCode": "eth",
        "amount": 0.1,
        "referenceType": "token_transfer",
        "referenceId": deposit_id,
    }
    assert custody_balance(custody, account["id"], "local-a", "eth")["activeBalance"] == "0.1"
    listed = custody["signed"]("GET", f"/api/v1/custody/deposits?accountId={account['id']}&status=credited")
    assert [d["id"] for d in listed.json_body["data"]["data"]] == [deposit_id]


def test_a_reorg_before_confirmation_credits_nothing_and_a_re_mined_transfer_is_followed(custody):
    account = create_account(custody)
    address = account["wallets"][0]["address"]
    w3 = custody["w3"][31337]
    chain = custody["chains"].by_name("local-a")
    token = w3.eth.contract(address=chain["tokens"]["usdt"], abi=_ERC20)
    sender = Account.create()
    w3.provider.make_request("anvil_setBalance", [sender.address, hex(10**18)])
    w3.eth.wait_for_transaction_receipt(
        token.functions.mint(sender.address, 5_000_000).transact({"from": w3.eth.accounts[0]})
    )
    snapshot = w3.provider.make_request("evm_snapshot", [])["result"]
    signed = sender.sign_transaction(
        token.functions.transfer(address, 5_000_000).build_transaction(
            {
                "from": sender.address,
                "nonce": w3.eth.get_transaction_count(sender.address),
                "gas": 100_000,
                "maxFeePerGas": 10**10,
                "maxPriorityFeePerGas": 10**9,
                "chainId": 31337,
            }
        )
    )
    w3.eth.wait_for_transaction_receipt(w3.eth.send_raw_transaction(signed.raw_transaction))
    assert watcher_step("local-a").recorded == 1
    assert custody_balance(custody, account["id"], "local-a", "usdt")["pendingBalance"] == "5"

    w3.provider.make_request("evm_revert", [snapshot])  # the transfer's block is gone
    mine_blocks(w3, CONFIRMATIONS + 2)  # a longer chain without it
    report = watcher_step("local-a")
    assert report.reverted == 1 and report.credited == 0
    assert report.stepped_back > 0, "the cursor stepped back over the replaced blocks"
    assert token_balance(custody, 31337, "usdt", address) == 0
    balance = custody_balance(custody, account["id"], "local-a", "usdt")
    assert balance["pendingBalance"] == "0" and balance["activeBalance"] == "0"
    [reverted] = outbox_events("deposit.reverted")
    deposit_id = reverted["data"]["tokenTransfer"]["id"]
    assert reverted["data"]["afterCredit"] is False
    assert outbox_events("deposit.wallet.credited") == []

    # The same signed transfer is mined again in another block: the same deposit is followed there.
    w3.eth.wait_for_transaction_receipt(w3.eth.send_raw_transaction(signed.raw_transaction))
    for _ in range(2):
        watcher_step("local-a")
    record = get(f"DEPOSIT#{deposit_id}", "DEPOSIT")
    assert record["status"] == "pending"
    mine_blocks(w3, CONFIRMATIONS)
    watcher_step("local-a")
    assert get(f"DEPOSIT#{deposit_id}", "DEPOSIT")["status"] == "credited"
    balance = custody_balance(custody, account["id"], "local-a", "usdt")
    assert balance["activeBalance"] == "5" and balance["pendingBalance"] == "0"
    assert token_balance(custody, 31337, "usdt", address) == 5_000_000


def test_two_concurrent_watcher_runs_and_rescans_record_and_credit_once(custody):
    account = create_account(custody)
    address = account["wallets"][0]["address"]
    send_token(custody, 31337, "usdt", address, 3_000_000)
    mine_blocks(custody["w3"][31337], CONFIRMATIONS)
    barrier = threading.Barrier(2)
    network = network_named("local-a")

    def run(_):
        barrier.wait()
        return watcher.step(network)

    with ThreadPoolExecutor(2) as pool:
        list(pool.map(run, range(2)))
    # Without the lease: a forced rescan of the same blocks by hand.
    unlease(network.chainId, "x")
    aws.table("custody").delete_item(Key={"pk": f"LEASE#{network.chainId}", "sk": "LEASE"})
    aws.table("custody").update_item(
        Key=cursor_key(31337),
        UpdateExpression="SET #n = :s, hashes = :h",
        ExpressionAttributeNames={"#n": "next"},
        ExpressionAttributeValues={":s": network.custodyStartBlock, ":h": {}},
    )
    for _ in range(3):
        watcher_step("local-a")
    assert len(outbox_events("deposit.wallet.pending_confirmation")) == 1
    assert len(outbox_events("deposit.wallet.credited")) == 1
    assert custody_balance(custody, account["id"], "local-a", "usdt")["activeBalance"] == "3"
    assert ledger.replay(account["id"])["local-a#usdt"]["active"] == 3_000_000


def test_expiry_with_buffer_and_a_late_payment_credited_to_the_account(custody, monkeypatch):
    monkeypatch.setenv("DOMPET_INVOICE_BUFFER_S", "30")
    settings.load_settings.cache_clear()
    account = create_account(custody)
    address = account["wallets"][0]["address"]
    invoice = custody["signed"](
        "POST",
        "/api/v1/custody/invoices",
        {
            "accountId": account["id"],
            "network": "local-a",
            "tokenCode": "usdt",
            "amount": "7",
            "reference": "exp-1",
            "expiresInSeconds": 60,
        },
    ).json_body["data"]
    w3 = custody["w3"][31337]
    try:
        clock.travel(75)  # past expiresAt, inside the buffer
        assert invoices.expire_due() == 0
        clock.travel(20)  # past expiresAt + bufferInSeconds
        assert invoices.expire_due() == 0, "the watcher has not read the chain up to the deadline yet"
        w3.provider.make_request("evm_increaseTime", [200])
        mine_blocks(w3, 1)
        watcher_step("local-a")  # now it has: nothing was paid by then
        assert invoices.expire_due() == 1
        assert invoices.expire_due() == 0
    finally:
        clock.reset()
    expired = custody["signed"]("GET", f"/api/v1/custody/invoices/{invoice['id']}").json_body["data"]
    assert expired["status"] == "expired" and expired["expiredAt"]
    [event] = outbox_events("invoice.expired")
    assert event["id"] == f"invoice.expired:{invoice['id']}"
    assert event["data"]["invoice"]["expiresAt"] == invoice["expiresAt"]
    assert event["data"]["invoice"]["bufferInSeconds"] == 30 and event["data"]["invoice"]["status"] == "expired"
    assert set(event["data"]) == {"appId", "userId", "invoice", "token"}

    send_token(custody, 31337, "usdt", address, 7_000_000)
    watcher_step("local-a")
    mine_blocks(w3, CONFIRMATIONS)
    watcher_step("local-a")
    [credited] = outbox_events("deposit.wallet.credited")
    assert credited["data"]["invoiceId"] == invoice["id"] and credited["data"]["late"] is True
    assert custody_balance(custody, account["id"], "local-a", "usdt")["activeBalance"] == "7"
    listed = custody["signed"]("GET", f"/api/v1/custody/deposits?invoiceId={invoice['id']}").json_body["data"]
    assert listed["data"][0]["late"] is True


def test_bad_input_is_a_4xx_with_a_code_and_changes_nothing(custody):
    account = create_account(custody)
    cases = [
        (
            {"accountId": account["id"], "network": "nope", "tokenCode": "usdt", "amount": "1", "reference": "r"},
            400,
            "UNKNOWN_NETWORK",
        ),
        (
            {"accountId": account["id"], "network": "local-a", "tokenCode": "doge", "amount": "1", "reference": "r"},
            400,
            "UNKNOWN_TOKEN",
        ),
        (
            {
                "accountId": account["id"],
                "network": "local-a",
                "tokenCode": "usdt",
                "amount": "0.0000001",
                "reference": "r",
            },
            400,
            "INVALID_AMOUNT",
        ),
        (
            {"accountId": account["id"], "network": "local-a", "tokenCode": "usdt", "amount": "-1", "reference": "r"},
            400,
            "INVALID_AMOUNT",
        ),
        (
            {
                "accountId": "00000000-0000-0000-0000-000000000000",
                "network": "local-a",
                "tokenCode": "usdt",
                "amount": "1",
                "reference": "r",
            },
            404,
            "ACCOUNT_NOT_FOUND",
        ),
    ]
    for body, status, code in cases:
        answer = custody["signed"]("POST", "/api/v1/custody/invoices", body)
        assert answer.status_code == status and answer.json_body["data"]["code"] == code, (body, answer.json_body)
    assert custody["signed"]("GET", "/api/v1/custody/invoices").json_body["data"]["pagination"]["total"] == 0
    assert custody["signed"]("GET", "/api/v1/custody/deposits/not-a-uuid").status_code == 404
    assert custody["signed"]("GET", "/api/v1/custody/accounts/x/balances").status_code == 404
    status = custody["signed"]("GET", "/api/v1/custody/networks/local-a/watcher").json_body["data"]
    assert status["network"] == "local-a" and status["head"] is not None


def test_the_journal_replays_to_the_balances_after_a_randomized_run(custody):
    rng = random.Random(7)
    made = [create_account(custody, f"r-{i}") for i in range(3)]
    w3 = custody["w3"][31337]
    for _ in range(8):
        account = rng.choice(made)
        address = account["wallets"][0]["address"]
        if rng.random() < 0.5:
            send_token(custody, 31337, "usdt", address, rng.randint(1, 10**9))
        else:
            w3.eth.wait_for_transaction_receipt(
                w3.eth.send_transaction({"from": w3.eth.accounts[4], "to": address, "value": rng.randint(1, 10**18)})
            )
        if rng.random() < 0.5:
            watcher_step("local-a")
    mine_blocks(w3, CONFIRMATIONS)
    for _ in range(2):
        watcher_step("local-a")
    for account in made:
        # Double entry: per ledger account, credits minus debits over the journal equal the balance.
        entries = ledger.journal(account["id"]).page(PageQuery(page=1, limit=100))[0]
        sums: dict[str, int] = {}
        for e in entries:
            assert e["debitAccount"] != e["creditAccount"] and int(e["amount"]) > 0
            sums[e["creditAccount"]] = sums.get(e["creditAccount"], 0) + int(e["amount"])
            sums[e["debitAccount"]] = sums.get(e["debitAccount"], 0) - int(e["amount"])
        assert sum(sums.values()) == 0
        for b in ledger.balances(account["id"]):
            for f in ledger.FIELDS:
                assert sums.get(f"account:{account['id']}:{b['network']}:{b['tokenCode']}:{f}", 0) == int(b[f])
        stored = {
            f"{b['network']}#{b['tokenCode']}": {f: int(b[f]) for f in ledger.FIELDS}
            for b in ledger.balances(account["id"])
        }
        assert ledger.replay(account["id"]) == stored
        for pair, amounts in stored.items():
            address = account["wallets"][0]["address"]
            on_chain = (
                w3.eth.get_balance(address) if pair.endswith("#eth") else token_balance(custody, 31337, "usdt", address)
            )
            assert amounts["active"] == on_chain and amounts["pending"] == 0, "credited = what the chain holds"


def test_deposits_seen_twice_by_id_are_one(custody):
    """The deposit id is the UUIDv5 of (chainId, txHash, position within the transaction)."""
    assert deposits.deposit_id(1, "0xAB", "0") == deposits.deposit_id(1, "0xab", "0")
    assert deposits.deposit_id(1, "0xab", "0") != deposits.deposit_id(1, "0xab", "1")
    assert accounts  # imported for the fixtures' side effects


def test_the_scheduled_functions_run_the_watcher_and_the_expiry(custody, monkeypatch):
    """What EventBridge invokes (the local worker runner calls the same handlers)."""
    from app import app
    from devtools.workers import WorkerRunner

    monkeypatch.setenv("DOMPET_WATCH_LOOP_S", "0")
    settings.load_settings.cache_clear()
    account = create_account(custody)
    send_token(custody, 31337, "usdt", account["wallets"][0]["address"], 1_000_000)
    mine_blocks(custody["w3"][31337], CONFIRMATIONS)
    runner = WorkerRunner(app, region="us-east-1", poll_wait_s=0, periods={"watch_deposits": 1})
    [watch] = [s for s in runner.schedules if s.name == "watch_deposits"]
    [expire] = [s for s in runner.schedules if s.name == "expire_invoices"]
    runner.invoke_scheduled(watch)
    runner.invoke_scheduled(expire)
    assert custody_balance(custody, account["id"], "local-a", "usdt")["activeBalance"] == "1"
    assert runner.run_due_schedules(10**12) == []  # as on AWS: the first run one period after the start
    assert "watch_deposits" in runner.run_due_schedules(10**12 + 1)


def test_a_lagging_node_answering_no_logs_and_range_limits_lose_nothing(custody, monkeypatch):
    """A node behind a load balancer that lags the head answers `eth_getLogs` over a range with []: the blocks'
    blooms say a Transfer of ours may be there, so those blocks are asked again by hash. A provider that refuses
    ranges of more than one block gets the range halved down to single blocks. Either way every transfer is
    recorded."""
    from chalicelib.evm.rpc import RpcError

    account = create_account(custody)
    address = account["wallets"][0]["address"]
    for amount in (1_000_000, 2_000_000, 3_000_000):
        send_token(custody, 31337, "usdt", address, amount)
    real = scan.rpc_call
    asked = {"range": 0, "by_hash": 0, "refused": 0}

    def lagging(network, method, params):
        if method == "eth_getLogs" and "blockHash" not in params[0]:
            asked["range"] += 1
            return []  # the lagging node: an empty answer, not an error
        if method == "eth_getLogs":
            asked["by_hash"] += 1
        return real(network, method, params)

    monkeypatch.setattr(scan, "rpc_call", lagging)
    monkeypatch.setattr(logs, "rpc_call", lagging)  # the range queries (evm/logs.py)
    assert watcher_step("local-a").recorded == 3
    assert asked["range"] >= 1 and asked["by_hash"] >= 3

    account2 = create_account(custody, "user-2")
    for amount in (4_000_000, 5_000_000):
        send_token(custody, 31337, "usdt", account2["wallets"][0]["address"], amount)

    def limited(network, method, params):
        query = params[0] if params else {}
        if method == "eth_getLogs" and "fromBlock" in query and query["fromBlock"] != query["toBlock"]:
            asked["refused"] += 1
            raise RpcError(-32005, "query returned more than 10000 results")
        return real(network, method, params)

    monkeypatch.setattr(scan, "rpc_call", limited)
    monkeypatch.setattr(logs, "rpc_call", limited)  # the range queries (evm/logs.py)
    assert watcher_step("local-a").recorded == 2
    assert asked["refused"] >= 1
    monkeypatch.setattr(scan, "rpc_call", real)
    monkeypatch.setattr(logs, "rpc_call", real)
    mine_blocks(custody["w3"][31337], CONFIRMATIONS)
    watcher_step("local-a")
    assert custody_balance(custody, account["id"], "local-a", "usdt")["activeBalance"] == "6"
    assert custody_balance(custody, account2["id"], "local-a", "usdt")["activeBalance"] == "9"


def test_a_reverted_native_transfer_is_not_a_deposit(custody):
    """A transaction that carries value to a deposit address but reverts moved nothing: receipt status 1 is
    required. (The address is given code that always reverts, so the chain really mines a failed transfer.)"""
    account = create_account(custody)
    address = account["wallets"][0]["address"]
    w3 = custody["w3"][31337]
    w3.provider.make_request("anvil_setCode", [address, "0x60006000fd"])  # PUSH1 0 PUSH1 0 REVERT
    tx_hash = w3.eth.send_transaction({"from": w3.eth.accounts[6], "to": address, "value": 10**16, "gas": 50_000})
    assert w3.eth.wait_for_transaction_receipt(tx_hash).status == 0
    w3.provider.make_request("anvil_setCode", [address, "0x"])
    ok = w3.eth.send_transaction({"from": w3.eth.accounts[6], "to": address, "value": 2 * 10**16})
    w3.eth.wait_for_transaction_receipt(ok)
    assert watcher_step("local-a").recorded == 1  # only the successful one
    mine_blocks(w3, CONFIRMATIONS)
    watcher_step("local-a")
    assert custody_balance(custody, account["id"], "local-a", "eth")["activeBalance"] == "0.02"
    assert w3.eth.get_balance(address) == 2 * 10**16


def test_native_value_that_does_not_stay_at_the_deposit_address_is_not_a_deposit(custody):
    """A deployed deposit address is a SimpleAccount: a payment calling its `addDeposit()` succeeds but moves the
    coin on to the EntryPoint. It is not credited and does not pay the invoice; a plain transfer still does."""
    account = create_account(custody)
    address = account["wallets"][0]["address"]
    w3 = custody["w3"][31337]
    chain = next(c for c in custody["chains"] if c["chainId"] == 31337)
    owner = get(f"ACCOUNT#{account['id']}", "ACCOUNT")["ownerAddress"]
    # Anyone can deploy a counterfactual account: a stranger deploys the deposit address.
    create = w3.eth.send_transaction(
        {
            "from": w3.eth.accounts[7],
            "to": chain["accountFactory"],
            "data": encode_call("createAccount(address,uint256)", owner, pool_keys.salt(account["id"])),
        }
    )
    assert w3.eth.wait_for_transaction_receipt(create).status == 1
    assert w3.eth.get_code(address) != b""
    invoice = custody["signed"](
        "POST",
        "/api/v1/custody/invoices",
        {"accountId": account["id"], "network": "local-a", "tokenCode": "eth", "amount": "0.3", "reference": "fwd"},
    ).json_body["data"]

    forwarded = w3.eth.send_transaction(
        {"from": w3.eth.accounts[7], "to": address, "value": 3 * 10**17, "data": encode_call("addDeposit()")}
    )
    assert w3.eth.wait_for_transaction_receipt(forwarded).status == 1
    in_entry_point = w3.eth.call({"to": chain["entryPoint"], "data": encode_call("balanceOf(address)", address)})
    assert w3.eth.get_balance(address) == 0 and int.from_bytes(in_entry_point, "big") == 3 * 10**17
    assert watcher_step("local-a").recorded == 0
    mine_blocks(w3, CONFIRMATIONS)
    watcher_step("local-a")
    balance = custody_balance(custody, account["id"], "local-a", "eth")
    assert balance["activeBalance"] == "0" and balance["pendingBalance"] == "0"
    still = custody["signed"]("GET", f"/api/v1/custody/invoices/{invoice['id']}").json_body["data"]
    assert still["status"] == "pending"
    assert outbox_events("deposit.invoice.pending_confirmation") == [] and outbox_events("deposit.invoice.paid") == []

    # A plain transfer (no call data) to the same, deployed, address stays there: it pays the invoice.
    plain = w3.eth.send_transaction({"from": w3.eth.accounts[7], "to": address, "value": 3 * 10**17})
    assert w3.eth.wait_for_transaction_receipt(plain).status == 1
    assert w3.eth.get_balance(address) == 3 * 10**17
    assert watcher_step("local-a").recorded == 1
    mine_blocks(w3, CONFIRMATIONS)
    assert watcher_step("local-a").credited == 1
    assert custody_balance(custody, account["id"], "local-a", "eth")["activeBalance"] == "0.3"
    paid = custody["signed"]("GET", f"/api/v1/custody/invoices/{invoice['id']}").json_body["data"]
    assert paid["status"] == "paid" and paid["transactionHash"] == "0x" + plain.hex().removeprefix("0x")


def test_status_filters_keep_invoices_and_deposits_apart_and_a_reference_finds_its_invoice(custody):
    account = create_account(custody)
    address = account["wallets"][0]["address"]
    invoice = custody["signed"](
        "POST",
        "/api/v1/custody/invoices",
        {"accountId": account["id"], "network": "local-a", "tokenCode": "usdt", "amount": "3", "reference": "ref-7"},
    ).json_body["data"]
    send_token(custody, 31337, "usdt", address, 3_000_000)
    watcher_step("local-a")  # a pending deposit and a pending invoice now share the word "pending"
    for path, kind in (
        ("/api/v1/custody/invoices?status=pending", "invoice"),
        (f"/api/v1/custody/invoices?status=pending&accountId={account['id']}", "invoice"),
        ("/api/v1/custody/deposits?status=pending", "deposit"),
        (f"/api/v1/custody/deposits?status=pending&accountId={account['id']}", "deposit"),
    ):
        answer = custody["signed"]("GET", path)
        assert answer.status_code == 200, (path, answer.json_body)
        [record] = answer.json_body["data"]["data"]
        assert ("reference" in record) == (kind == "invoice") and answer.json_body["data"]["pagination"]["total"] == 1
    found = custody["signed"]("GET", "/api/v1/custody/invoices?reference=ref-7").json_body["data"]
    assert [i["id"] for i in found["data"]] == [invoice["id"]]
    assert custody["signed"]("GET", "/api/v1/custody/invoices?reference=nope").json_body["data"]["data"] == []


def test_a_node_answering_no_receipt_for_a_canonical_block_reverts_nothing(custody, monkeypatch):
    account = create_account(custody)
    send_token(custody, 31337, "usdt", account["wallets"][0]["address"], 2_000_000)
    watcher_step("local-a")
    mine_blocks(custody["w3"][31337], CONFIRMATIONS)
    real = scan.rpc_batch

    def lagging(network, calls):
        answers = real(network, calls)
        return [None if method == "eth_getTransactionReceipt" else a for (method, _), a in zip(calls, answers)]

    monkeypatch.setattr(scan, "rpc_batch", lagging)
    report = watcher_step("local-a")
    assert report.reverted == 0 and report.credited == 0  # no verdict: its block is still canonical
    monkeypatch.setattr(scan, "rpc_batch", real)
    assert watcher_step("local-a").credited == 1
    assert outbox_events("deposit.reverted") == []


def test_zero_value_and_earlier_transfers_do_not_touch_an_invoice(custody):
    account = create_account(custody)
    address = account["wallets"][0]["address"]
    send_token(custody, 31337, "usdt", address, 1_500_000)  # mined before the invoice exists
    # The watcher has seen the head but not scanned it yet (it lags): the transfer is found after the invoice.
    head = custody["w3"][31337].eth.block_number
    aws.table("custody").update_item(
        Key=cursor_key(31337), UpdateExpression="SET head = :h", ExpressionAttributeValues={":h": head}
    )
    invoice = custody["signed"](
        "POST",
        "/api/v1/custody/invoices",
        {"accountId": account["id"], "network": "local-a", "tokenCode": "usdt", "amount": "1.5", "reference": "later"},
    ).json_body["data"]
    send_token(custody, 31337, "usdt", address, 0)  # anyone can send 0: it must not fail the invoice
    watcher_step("local-a")
    mine_blocks(custody["w3"][31337], CONFIRMATIONS)
    watcher_step("local-a")
    assert (
        custody["signed"]("GET", f"/api/v1/custody/invoices/{invoice['id']}").json_body["data"]["status"] == "pending"
    )
    [credited] = outbox_events("deposit.wallet.credited")
    assert "invoiceId" not in credited["data"]
    assert len(outbox_events("deposit.wallet.pending_confirmation")) == 1


def test_an_invoice_create_with_an_idempotency_key_is_one_invoice(custody, api):
    from datetime import UTC, datetime

    from scripts.dompet_sign import signed_headers  # type: ignore[import-not-found]

    account = create_account(custody)
    tenant = custody["tenant"]
    body = json.dumps(
        {"accountId": account["id"], "network": "local-a", "tokenCode": "eth", "amount": "0.5", "reference": "idem-1"}
    ).encode()
    answers = []
    for _ in range(2):
        stamp = datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")
        headers = signed_headers(
            tenant.appId, tenant.appSecret, "POST", "http://x/api/v1/custody/invoices", body, timestamp=stamp
        )
        headers.update({"Content-Type": "application/json", "Idempotency-Key": "key-1"})
        answers.append(api.post("/api/v1/custody/invoices", headers=headers, body=body))
    assert [a.status_code for a in answers] == [200, 200]
    assert answers[0].json_body == answers[1].json_body
    assert answers[1].headers.get("Idempotent-Replayed") == "true"
    assert custody["signed"]("GET", "/api/v1/custody/invoices").json_body["data"]["pagination"]["total"] == 1


def test_custody_events_are_delivered_signed_to_the_apps_receiver(custody, monkeypatch):
    """The events go through the outbox like every event: delivered to the app's URL, signed, verifiable."""
    import base64

    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    from app import app
    from devtools.workers import WorkerRunner
    from tests.support.servers import Receiver

    monkeypatch.setenv("DOMPET_WEBHOOK_ALLOWLIST", "127.0.0.1/32")
    settings.load_settings.cache_clear()
    receiver = Receiver()
    try:
        assert custody["signed"]("PUT", "/api/v1/webhooks/settings", {"url": receiver.url}).status_code == 200
        account = create_account(custody)
        send_token(custody, 31337, "usdt", account["wallets"][0]["address"], 250_000)
        watcher_step("local-a")
        mine_blocks(custody["w3"][31337], CONFIRMATIONS)
        watcher_step("local-a")
        runner = WorkerRunner(app, region="us-east-1", poll_wait_s=0)
        [source] = [q for q in runner.queues if q.name == "deliver_webhook"]
        for _ in range(20):
            if runner.poll_once(source) == 0 and len(receiver.received) >= 3:
                break
        types = [json.loads(r["body"])["type"] for r in receiver.received]
        # A batch is delivered at once, in no order (docs/webhooks.md): each event once.
        assert sorted(types) == ["account.created", "deposit.wallet.credited", "deposit.wallet.pending_confirmation"]
        key = custody["signed"]("GET", "/api/v1/webhooks/public-key").json_body["data"]["publicKey"]
        for got in receiver.received:
            headers, body = got["headers"], got["body"]
            envelope = json.loads(body)
            assert headers["X-Service-Event-Id"] == envelope["id"] and envelope["apiVersion"] == "2025-06-22"
            content = f"{envelope['id']}.{headers['X-Service-Timestamp']}.".encode() + body
            Ed25519PublicKey.from_public_bytes(base64.b64decode(key)).verify(
                base64.b64decode(headers["X-Service-Signature"]), content
            )
        [credited] = [e for r in receiver.received if (e := json.loads(r["body"]))["type"] == "deposit.wallet.credited"]
        assert (
            credited["data"]["credit"]["amount"] == 0.25
            and credited["data"]["tokenTransfer"]["amountInDecimals"] == "250000"
        )
    finally:
        receiver.server.shutdown()
