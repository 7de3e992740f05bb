"""A withdrawal's nonce is its own until it ends (however long it waits), and a withdrawal kept for review is not
a dead end: the operator's `review-withdrawal` reads the chain at its nonce, then settles or releases it through
the worker's own code, with its event. Effects are checked on anvil, in the ledger and in delivered webhooks."""

from __future__ import annotations

import json

import pytest
from eth_account import Account

from chalicelib import operator as admin
from chalicelib.custody import ledger
from chalicelib.custody.store import get
from chalicelib.custody.withdrawals import lifecycle as withdrawals
from chalicelib.custody.withdrawals import sending
from chalicelib.custody.withdrawals.cosigner_check import deploy_call
from chalicelib.evm import engine, nonces, pipeline, tracking
from chalicelib.platform import aws, clock, settings
from chalicelib.platform.pagination import PageQuery
from chalicelib.platform.transitions import transition
from tests.support.custody import (
    CONFIRMATIONS,
    custody_balance,
    funded_account,
    mine_blocks,
    network_named,
    outbox_events,
    request_withdrawal,
    run_withdrawal,
    token_balance,
)

pytestmark = pytest.mark.integration

TRANSFER = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"


@pytest.fixture(autouse=True)
def _clock():
    yield
    clock.reset()


def _deployed(custody, account):
    """The deposit address deployed by anyone (the factory is open), so the worker's first attempt goes straight
    to the withdrawal's own nonce."""
    w3 = custody["w3"][31337]
    owner = get(f"ACCOUNT#{account['id']}", "ACCOUNT")["ownerAddress"]
    data = "0x" + deploy_call(owner, account["id"]).hex()
    factory = network_named("local-a").accountFactory
    w3.eth.wait_for_transaction_receipt(
        w3.eth.send_transaction({"from": w3.eth.accounts[7], "to": factory, "data": data, "gas": 1_000_000})
    )
    return owner


def _gas(custody, owner, wei):
    custody["w3"][31337].provider.make_request("anvil_setBalance", [owner, hex(wei)])


def _payments_to(custody, recipient):
    """Every USDT Transfer to `recipient` on the chain: what was paid, independent of any record."""
    w3 = custody["w3"][31337]
    usdt = next(c for c in custody["chains"] if c["chainId"] == 31337)["tokens"]["usdt"]
    topic = "0x" + recipient.lower().removeprefix("0x").rjust(64, "0")
    logs = w3.eth.get_logs({"fromBlock": 0, "toBlock": "latest", "address": usdt, "topics": [TRANSFER, None, topic]})
    return [int(log["data"].hex(), 16) for log in logs]


def _dies_in(monkeypatch, module, name, withdrawal_id):
    """The worker dies in `module.name` while it processes the withdrawal."""

    def die(*args, **kwargs):
        raise RuntimeError(f"the worker dies in {name}")

    with monkeypatch.context() as patched:
        patched.setattr(module, name, die)
        with pytest.raises(RuntimeError):
            sending.process(withdrawal_id)


def _consistent(account_id):
    stored = {
        f"{b['network']}#{b['tokenCode']}": {f: int(b[f]) for f in ledger.FIELDS} for b in ledger.balances(account_id)
    }
    assert ledger.replay(account_id) == stored


def test_an_unfunded_gas_wallet_past_the_lease_keeps_the_withdrawals_nonce(custody):
    """The gas wallet has no coin for longer than a nonce lease while another withdrawal of the same key asks for
    a nonce: the first keeps its own. Funded again, each is paid exactly once and none is held for review."""
    first_account = funded_account(custody, usdt=5_000_000, sub_id="first")
    second_account = funded_account(custody, usdt=5_000_000, sub_id="second")
    owner = _deployed(custody, first_account)
    assert _deployed(custody, second_account) == owner, "one custody key pays for both accounts"
    _gas(custody, owner, 0)
    first_to, second_to = Account.create().address, Account.create().address
    first = request_withdrawal(custody, first_account, "1", to=first_to).json_body["data"]
    second = request_withdrawal(custody, second_account, "2", to=second_to).json_body["data"]

    sending.process(first["id"])  # takes its nonce, then finds no gas: back to pending, retried later
    waiting = get(**withdrawals.key(first["id"]))
    assert waiting["status"] == "pending" and "nonce" in waiting
    clock.travel(nonces.LEASE_S + 60)  # the gas wallet stays empty for longer than a lease
    sending.process(second["id"])  # another allocation for the same key address meanwhile
    other = get(**withdrawals.key(second["id"]))
    assert other["status"] == "pending"
    clock.reset()
    assert int(other["nonce"]) != int(waiting["nonce"]), "a waiting withdrawal's nonce went to another"

    _gas(custody, owner, 10**19)  # funded
    sending.process(second["id"])  # the later nonce goes out first (it waits on chain for the gap)...
    assert run_withdrawal(first["id"], custody)["status"] == "success"  # ...which the first closes at its own nonce
    assert run_withdrawal(second["id"], custody)["status"] == "success"
    assert _payments_to(custody, first_to) == [1_000_000] and _payments_to(custody, second_to) == [2_000_000]
    assert token_balance(custody, 31337, "usdt", first_account["wallets"][0]["address"]) == 4_000_000
    for account in (first_account, second_account):
        assert custody_balance(custody, account["id"], "local-a", "usdt")["heldBalance"] == "0"
        _consistent(account["id"])
    assert not outbox_events("withdraw.failed")
    item = aws.table(nonces.TABLE).get_item(Key=nonces.key(owner, 31337), ConsistentRead=True)["Item"]
    assert not nonces.held(item), "both reservations ended with their withdrawals"


def test_a_worker_that_died_holding_the_nonce_keeps_it_past_the_visibility_timeout(custody, monkeypatch):
    """The worker dies after the withdrawal took its nonce, before anything was recorded; SQS redelivers after its
    visibility timeout (360 s). Any send of the key meanwhile gets another nonce; the redelivery pays at the first."""
    account = funded_account(custody, usdt=3_000_000)
    owner = _deployed(custody, account)
    recipient = Account.create().address
    withdrawal = request_withdrawal(custody, account, "1.5", to=recipient).json_body["data"]
    _dies_in(monkeypatch, pipeline, "send", withdrawal["id"])
    mine = int(get(**withdrawals.key(withdrawal["id"]))["nonce"])
    clock.travel(360 + 1)
    w3 = custody["w3"][31337]
    other = nonces.allocate(owner, 31337, w3.eth.get_transaction_count(owner, "pending"))  # e.g. a deployment
    assert other.nonce != mine
    assert nonces.release(other)
    sending.process(withdrawal["id"])  # the redelivered message: its lease ran out, it is claimed again
    clock.reset()
    record = run_withdrawal(withdrawal["id"], custody)
    assert record["status"] == "success" and int(record["nonce"]) == mine
    assert w3.eth.get_transaction(record["txHash"])["nonce"] == mine
    assert _payments_to(custody, recipient) == [1_500_000]


def _needs_review_after_a_foreign_transaction(custody, monkeypatch, account, amount, recipient):
    """A withdrawal sent but not broadcast (the worker died), while a transaction from the key's address that is
    not recorded here (the key imported elsewhere, say) is mined at its nonce: the tracker proves it dropped, and
    the worker keeps it for review."""
    _deployed(custody, account)  # (so that the withdrawal's is the one send of the attempt)
    withdrawal = request_withdrawal(custody, account, amount, to=recipient).json_body["data"]
    _dies_in(monkeypatch, pipeline, "_broadcast", withdrawal["id"])
    record = get(**withdrawals.key(withdrawal["id"]))
    w3 = custody["w3"][31337]
    owner = record["keyAddress"]
    w3.provider.make_request("anvil_impersonateAccount", [owner])
    foreign = w3.eth.send_transaction({"from": owner, "to": owner, "value": 0, "nonce": int(record["nonce"])})
    w3.provider.make_request("anvil_stopImpersonatingAccount", [owner])
    w3.eth.wait_for_transaction_receipt(foreign)
    mine_blocks(w3, CONFIRMATIONS)
    engine.check(record["txHash"])
    assert tracking.read(record["txHash"]).status == "dropped"
    sending.process(withdrawal["id"])
    record = get(**withdrawals.key(withdrawal["id"]))
    assert record["status"] == "failed" and record["failedReason"] == "needs_review" and not record["released"]
    return record, "0x" + bytes(foreign).hex().removeprefix("0x")


def _needs_review_after_its_own_payment(custody, account, amount, recipient):
    """A withdrawal whose own transaction paid, held for review all the same (the tracker saw its nonce used
    before a node had its receipt: its record says `dropped`)."""
    withdrawal = request_withdrawal(custody, account, amount, to=recipient).json_body["data"]
    sending.process(withdrawal["id"])
    record = get(**withdrawals.key(withdrawal["id"]))
    w3 = custody["w3"][31337]
    w3.eth.wait_for_transaction_receipt(record["txHash"])
    tx = tracking.read(record["txHash"])
    assert tx is not None
    aws.write(transition(tx, "dropped", failedReason="its nonce was used by another transaction"))
    sending.process(withdrawal["id"])
    record = get(**withdrawals.key(withdrawal["id"]))
    assert record["status"] == "failed" and record["failedReason"] == "needs_review" and not record["released"]
    return record


def _review(capsys, withdrawal_id, *flags):
    capsys.readouterr()
    code = admin.main(["review-withdrawal", "--withdrawal-id", withdrawal_id, *flags])
    out, err = capsys.readouterr()
    return code, json.loads(out), err


def _delivered(custody, monkeypatch):
    """The app's webhook receiver and a function that delivers what the outbox holds to it."""
    from app import app
    from devtools.workers import WorkerRunner
    from tests.support.servers import Receiver

    monkeypatch.setenv("DOMPET_WEBHOOK_ALLOWLIST", "127.0.0.1/32")
    settings.load_settings.cache_clear()
    receiver = Receiver()
    assert custody["signed"]("PUT", "/api/v1/webhooks/settings", {"url": receiver.url}).status_code == 200
    runner = WorkerRunner(app, region="us-east-1", poll_wait_s=0)
    [source] = [q for q in runner.queues if q.name == "deliver_webhook"]

    def deliver():
        while runner.poll_once(source):
            pass
        return {json.loads(r["body"])["id"]: json.loads(r["body"]) for r in receiver.received}

    return receiver, deliver


def test_the_operator_settles_a_withdrawal_its_own_transaction_paid(custody, monkeypatch, capsys):
    receiver, deliver = _delivered(custody, monkeypatch)
    try:
        account = funded_account(custody, usdt=4_000_000)
        recipient = Account.create().address
        record = _needs_review_after_its_own_payment(custody, account, "1.25", recipient)
        mine_blocks(custody["w3"][31337], CONFIRMATIONS)
        balance = custody_balance(custody, account["id"], "local-a", "usdt")
        assert balance["heldBalance"] == "1.25" and balance["activeBalance"] == "2.75"

        code, shown, _ = _review(capsys, record["id"])  # only looks
        assert code == 0 and shown["verdict"] == "paid", shown
        chain = shown["chain"]
        assert chain["nonce"] == int(record["nonce"]) and chain["nonceUsed"] is True
        assert chain["nonceUsedBy"]["txHash"] == record["txHash"] and chain["nonceUsedBy"]["paysThisWithdrawal"]
        assert chain["ownTransaction"]["mined"] is True and chain["ownTransaction"]["transferLog"] is True
        assert get(**withdrawals.key(record["id"]))["status"] == "failed", "looking changes nothing"

        code, refused, err = _review(capsys, record["id"], "--release")  # the chain shows it paid: never released
        assert code == 1 and "paid" in err and refused["verdict"] == "paid"
        assert get(**withdrawals.key(record["id"]))["released"] is False

        code, settled, _ = _review(capsys, record["id"], "--settle")
        assert code == 0 and settled["withdrawal"]["status"] == "success", settled
        code, again, err = _review(capsys, record["id"], "--settle")
        assert code == 1 and again["withdrawal"]["status"] == "success", "settled once"

        assert _payments_to(custody, recipient) == [1_250_000]
        balance = custody_balance(custody, account["id"], "local-a", "usdt")
        assert balance["heldBalance"] == "0" and balance["activeBalance"] == "2.75"
        _consistent(account["id"])
        kinds = [e["kind"] for e in ledger.journal(account["id"]).page(PageQuery(page=1, limit=100))[0]]
        assert sorted(kinds).count("debit") == 1 and "release" not in kinds
        events = deliver()
        success = events[f"withdraw.success:{record['id']}"]
        assert success["type"] == "withdraw.success"
        assert success["data"]["debit"]["amount"] == 1.25 and success["data"]["withdrawal"]["status"] == "success"
        assert success["data"]["transaction"]["txHash"] == record["txHash"]
        assert success["data"]["withdrawal"]["reason"] is None and success["data"]["withdrawal"]["reviewedAt"]
        shown = custody["signed"]("GET", f"/api/v1/custody/withdrawals/{record['id']}").json_body["data"]
        assert shown["status"] == "success" and shown["failedReason"] is None
    finally:
        receiver.server.shutdown()


def test_the_operator_releases_a_withdrawal_whose_nonce_another_transaction_used(custody, monkeypatch, capsys):
    receiver, deliver = _delivered(custody, monkeypatch)
    try:
        account = funded_account(custody, usdt=4_000_000)
        recipient = Account.create().address
        record, foreign = _needs_review_after_a_foreign_transaction(custody, monkeypatch, account, "3", recipient)
        assert custody_balance(custody, account["id"], "local-a", "usdt")["heldBalance"] == "3"

        code, shown, _ = _review(capsys, record["id"])
        assert code == 0 and shown["verdict"] == "not_paid", shown
        assert shown["chain"]["nonceUsedBy"]["txHash"] == foreign
        assert shown["chain"]["nonceUsedBy"]["paysThisWithdrawal"] is False
        assert shown["chain"]["ownTransaction"]["mined"] is False

        code, refused, err = _review(capsys, record["id"], "--settle")  # nothing paid it: never debited
        assert code == 1 and "not" in err and refused["withdrawal"]["status"] == "failed"

        code, released, _ = _review(capsys, record["id"], "--release")
        assert code == 0 and released["withdrawal"]["status"] == "failed" and released["withdrawal"]["released"]
        code, _, _ = _review(capsys, record["id"], "--release")
        assert code == 1, "released once"

        assert _payments_to(custody, recipient) == []
        assert token_balance(custody, 31337, "usdt", account["wallets"][0]["address"]) == 4_000_000
        balance = custody_balance(custody, account["id"], "local-a", "usdt")
        assert balance["heldBalance"] == "0" and balance["activeBalance"] == "4"
        _consistent(account["id"])
        events = deliver()
        kept, freed = events[f"withdraw.failed:{record['id']}"], events[f"withdraw.failed:{record['id']}:r1"]
        assert kept["data"]["withdrawal"]["released"] is False and "release" not in kept["data"]
        assert freed["type"] == "withdraw.failed" and freed["data"]["withdrawal"]["released"] is True
        assert freed["data"]["release"]["amount"] == 3 and freed["data"]["withdrawal"]["reason"] == "needs_review"

        # The key goes on: its next withdrawal is paid at the next nonce.
        after = request_withdrawal(custody, account, "1", to=recipient).json_body["data"]
        assert run_withdrawal(after["id"], custody)["status"] == "success"
        assert _payments_to(custody, recipient) == [1_000_000]
    finally:
        receiver.server.shutdown()


def test_the_review_refuses_what_it_cannot_decide(custody, capsys):
    account = funded_account(custody, usdt=2_000_000)
    withdrawal = request_withdrawal(custody, account, "1").json_body["data"]
    code, shown, err = _review(capsys, withdrawal["id"], "--release")  # pending, not kept: the worker's
    assert code == 1 and "kept" in err and shown["withdrawal"]["status"] == "pending"
    assert admin.main(["review-withdrawal", "--withdrawal-id", "00000000-0000-0000-0000-000000000000"]) == 1
    assert custody_balance(custody, account["id"], "local-a", "usdt")["heldBalance"] == "1"
