"""Gas-tank top-ups against real anvil chains: USDT sent to the pool is credited exactly once, converted
exactly (6 and 18 decimals), refused with a code when the chain does not show it, and checked later by the
delayed checker. Effects are checked on the chain (the pool's token balance) and in the tank."""

from __future__ import annotations

import json
import os
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from eth_account import Account

from chalicelib.evm import erc20
from chalicelib.gas_tanks import confirmations as checks
from chalicelib.gas_tanks import service
from chalicelib.gas_tanks.models import TopUpRecord
from chalicelib.platform import aws, clock, due, networks, settings
from chalicelib.tenancy import service as tenancy
from tests.support.family_s import call, create
from tests.support.top_ups import entry, funded, pool_balance, request, transfer
from tests.support.user_ops import submit

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def chains(aa_chains, tmp_path_factory):
    """Both anvil chains with the real EntryPoint, factory, paymaster and Alto (tests/integration/conftest.py);
    local-a's USDT has 6 decimals, local-b's 18 (TestUSDT18, as on BSC)."""
    from web3 import Web3

    entries = []
    for network, token_key, decimals in (
        (aa_chains.by_name("local-a"), "usdt", 6),
        (aa_chains.by_name("local-b"), "usdt18", 18),
    ):
        entries.append(
            {
                "name": network["name"],
                "chainId": network["chainId"],
                "rpcUrls": [network["rpc"]],
                "nativeSymbol": "ETH",
                "confirmations": 1,
                "tokens": {"usdt": network["tokens"][token_key]},
                "usdtDecimals": decimals,
                "entryPoint": network["entryPoint"],
                "accountFactory": network["accountFactory"],
                "paymaster": network["paymaster"],
                "bundlerUrls": [network["bundlerUrl"]],
                "poolAddress": network["poolAddress"],
                "nativeToGasTankRate": "2000",
            }
        )
    path = tmp_path_factory.mktemp("networks") / "networks.json"
    path.write_text(json.dumps({"networks": entries}))
    return {
        "file": path,
        "entries": entries,
        "w3": {e["chainId"]: Web3(Web3.HTTPProvider(e["rpcUrls"][0])) for e in entries},
    }


@pytest.fixture
def env(chains, monkeypatch, api, tenant):
    monkeypatch.setenv("DOMPET_NETWORKS_FILE", str(chains["file"]))
    monkeypatch.setenv("DOMPET_TOPUP_CHECK_DELAY_S", "1")
    settings.load_settings.cache_clear()
    networks.registry.cache_clear()
    erc20._info.clear()
    yield chains
    settings.load_settings.cache_clear()
    networks.registry.cache_clear()


def use_registry(monkeypatch, path):
    monkeypatch.setenv("DOMPET_NETWORKS_FILE", str(path))
    settings.load_settings.cache_clear()
    networks.registry.cache_clear()


def owner_tank(api, tenant, owner_id):
    return call(api, tenant, "GET", f"/api/v1/smart-account/{owner_id}").json_body["data"]["gasTanks"][0]


def test_a_top_up_is_credited_exactly_on_both_chains(api, tenant, env):
    owner = create(api, tenant, Account.create().address).json_body["data"]
    for chain_id, amount, credited in ((31337, 1_500_000, 1_500_000 * 10**12), (31338, 15 * 10**17, 15 * 10**17)):
        before_pool = pool_balance(env, chain_id)
        before = int(owner_tank(api, tenant, owner["id"])["balance"])
        tx_hash, sender = transfer(env, chain_id, amount)
        answer = call(
            api,
            tenant,
            "POST",
            "/api/v1/smart-account/topUp",
            request(env, chain_id, tx_hash, sender, receiverOwnerId=owner["id"]),
        )
        assert answer.status_code == 200, answer.json_body
        assert pool_balance(env, chain_id) - before_pool == amount  # on chain
        assert int(owner_tank(api, tenant, owner["id"])["balance"]) - before == credited  # exact conversion
        history = call(api, tenant, "GET", f"/api/v1/smart-account/{owner['id']}/topUp/history").json_body["data"]
        assert history["data"][0]["txHash"] == tx_hash and history["data"][0]["amount"] == str(amount)
        assert history["data"][0]["status"] == "success" and history["data"][0]["chainId"] == chain_id


def test_a_transaction_credits_once_in_the_whole_service(api, tenant, env):
    owner = create(api, tenant, Account.create().address).json_body["data"]
    tx_hash, sender = transfer(env, 31337, 2_000_000)
    body = request(env, 31337, tx_hash, sender, receiverOwnerId=owner["id"])
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda _: call(api, tenant, "POST", "/api/v1/smart-account/topUp", body), range(8)))
    assert sorted(a.status_code for a in answers) == [200] + [409] * 7
    assert {a.json_body["data"]["code"] for a in answers if a.status_code == 409} == {"TOPUP_ALREADY_USED"}
    assert owner_tank(api, tenant, owner["id"])["balance"] == str(2_000_000 * 10**12)
    client_body = {k: v for k, v in body.items() if k != "receiverOwnerId"}
    assert call(api, tenant, "POST", "/api/v1/client/gasTank/topUp", client_body).status_code == 409
    other = tenancy.create_tenant("Other")
    assert call(api, other, "POST", "/api/v1/client/gasTank/topUp", client_body).status_code == 409
    assert call(api, other, "GET", "/api/v1/client/gasTank").json_body["data"]["balance"] == "0"


@pytest.mark.parametrize("immediate", [True, False])
def test_what_the_chain_does_not_show_is_refused_with_a_code(api, tenant, env, immediate):
    """Either mode: a refusal is a 422 with its code, before anything is stored."""
    owner = create(api, tenant, Account.create().address).json_body["data"]
    tx_hash, sender = transfer(env, 31337, 1_000_000)
    cases = [
        (request(env, 31337, tx_hash, Account.create(), immediate), "SIGNATURE_MISMATCH"),
        (request(env, 31337, "0x" + "ee" * 32, sender, immediate), "TX_NOT_FOUND"),
        (
            request(env, 31337, *transfer(env, 31337, 1_000, to=Account.create().address), immediate),
            "NO_TRANSFER_TO_POOL",
        ),
        (request(env, 31337, *transfer(env, 31337, 1_000, gas=60_000), immediate), "TX_FAILED"),  # twice its balance
    ]
    for body, code in cases:
        answer = call(api, tenant, "POST", "/api/v1/smart-account/topUp", {**body, "receiverOwnerId": owner["id"]})
        assert answer.status_code == 422 and answer.json_body["data"]["code"] == code, (code, answer.json_body)
    assert owner_tank(api, tenant, owner["id"])["balance"] == "0"
    assert stored_top_ups() == []
    # A refused top-up used nothing: the right signature still credits the same transaction.
    good = call(
        api,
        tenant,
        "POST",
        "/api/v1/smart-account/topUp",
        {**request(env, 31337, tx_hash, sender), "receiverOwnerId": owner["id"]},
    )
    assert good.status_code == 200


def test_too_few_confirmations_is_422_and_works_once_confirmed(api, tenant, env, chains, monkeypatch):
    entries = [dict(e, confirmations=3) for e in chains["entries"]]
    path = chains["file"].with_name("confirmations.json")
    path.write_text(json.dumps({"networks": entries}))
    use_registry(monkeypatch, path)
    tx_hash, sender = transfer(env, 31337, 500_000)
    body = request(env, 31337, tx_hash, sender)
    early = call(api, tenant, "POST", "/api/v1/client/gasTank/topUp", body)
    assert early.status_code == 422 and early.json_body["data"]["code"] == "TX_NOT_CONFIRMED"
    chains["w3"][31337].provider.make_request("anvil_mine", [2])
    assert call(api, tenant, "POST", "/api/v1/client/gasTank/topUp", body).status_code == 200
    assert call(api, tenant, "GET", "/api/v1/client/gasTank").json_body["data"]["balance"] == str(500_000 * 10**12)


def test_a_delayed_top_up_is_credited_by_the_checker_once(api, tenant, env):
    tx_hash, sender = transfer(env, 31338, 3 * 10**18)
    answer = call(
        api, tenant, "POST", "/api/v1/client/gasTank/topUp", request(env, 31338, tx_hash, sender, immediate=False)
    )
    assert answer.status_code == 200 and set(answer.json_body) == {"status", "message"}, answer.json_body
    assert call(api, tenant, "GET", "/api/v1/client/gasTank").json_body["data"]["balance"] == "0"
    [pending] = call(api, tenant, "GET", "/api/v1/client/gasTank/topUp/history").json_body["data"]["data"]
    assert pending["status"] == "pending" and pending["amount"] == "0" and pending["txHash"] == tx_hash
    assert set(pending) == set(TopUpRecord.model_fields)  # the seed's fields, nothing of the check's
    twice = call(api, tenant, "POST", "/api/v1/client/gasTank/topUp", request(env, 31338, tx_hash, sender, False))
    assert twice.status_code == 409 and twice.json_body["data"]["code"] == "TOPUP_ALREADY_USED"
    [body] = receive_checks()
    run_check(body)
    run_check(body)  # a re-delivered message credits nothing more
    assert call(api, tenant, "GET", "/api/v1/client/gasTank").json_body["data"]["balance"] == str(3 * 10**18)
    [record] = call(api, tenant, "GET", "/api/v1/client/gasTank/topUp/history").json_body["data"]["data"]
    assert record["status"] == "success" and record["amount"] == str(3 * 10**18) and record["updatedAt"]
    assert due_top_ups() == []  # no longer due once credited


def run_check(body):
    """As the check_top_up function runs it (its AWS calls are recorded for the IAM test)."""
    from chalicelib.platform.invocation import running_as

    with running_as("check_top_up"):
        checks.check(body)


def receive_checks(wait_s: float = 2.5):
    """Take the visible checks off the queue, as the consumer of check_top_up (Lambda's event source) does."""
    from chalicelib.platform.invocation import running_as

    time.sleep(wait_s)  # DOMPET_TOPUP_CHECK_DELAY_S=1 (doubling on re-queue)
    with running_as("check_top_up"):
        answer = aws.client("sqs").receive_message(QueueUrl=aws.queue("topup-checks"), MaxNumberOfMessages=10)
        messages = answer.get("Messages") or []
        for message in messages:
            aws.client("sqs").delete_message(QueueUrl=aws.queue("topup-checks"), ReceiptHandle=message["ReceiptHandle"])
    return [json.loads(m["Body"]) for m in messages]


def test_a_node_that_is_down_records_nothing_and_a_retry_works(api, tenant, env, chains, monkeypatch):
    entries = [dict(e, rpcUrls=["http://127.0.0.1:9"]) for e in chains["entries"]]
    path = chains["file"].with_name("down.json")
    path.write_text(json.dumps({"networks": entries}))
    tx_hash, sender = transfer(env, 31337, 700_000)
    body = request(env, 31337, tx_hash, sender)
    use_registry(monkeypatch, path)
    down = call(api, tenant, "POST", "/api/v1/client/gasTank/topUp", body)
    assert down.status_code == 502 and down.json_body["data"]["code"] == "UPSTREAM_UNAVAILABLE"
    use_registry(monkeypatch, chains["file"])
    assert call(api, tenant, "POST", "/api/v1/client/gasTank/topUp", body).status_code == 200
    assert call(api, tenant, "GET", "/api/v1/client/gasTank").json_body["data"]["balance"] == str(700_000 * 10**12)


def stored_top_ups():
    """Every top-up record and transaction marker in the table."""
    return [i for i in aws.table("gas-tanks").scan()["Items"] if i["pk"].startswith(("TOPUPS#", "TOPUPTX#"))]


def due_top_ups():
    """The records in the table's `due` index (pending top-ups whose checker should come back)."""
    return aws.table("gas-tanks").scan(IndexName="due").get("Items", [])


def sent_checks(monkeypatch):
    """The checks queued from now on (still sent), in order."""
    sent = []
    real_send = aws.send_message

    def spy(name, body, **kwargs):
        if name == service.QUEUE:
            sent.append(body)
        return real_send(name, body, **kwargs)

    monkeypatch.setattr(aws, "send_message", spy)
    return sent


def drain():
    """The checks queued and visible now (with DOMPET_TOPUP_CHECK_DELAY_S=0), taken off the queue."""
    return receive_checks(wait_s=0)


def checks_at_once(monkeypatch):
    """First checks without delay: a queued check is visible at once."""
    monkeypatch.setenv("DOMPET_TOPUP_CHECK_DELAY_S", "0")
    settings.load_settings.cache_clear()


def with_registry(chains, monkeypatch, name, **changes):
    """The test chains' registry with `changes` on local-a (31337)."""
    entries = [dict(e, **changes) if e["chainId"] == 31337 else e for e in chains["entries"]]
    path = chains["file"].with_name(f"{name}.json")
    path.write_text(json.dumps({"networks": entries}))
    use_registry(monkeypatch, path)


def rpc(chains, method, *params):
    answer = chains["w3"][31337].provider.make_request(method, list(params))
    assert "error" not in answer, answer
    return answer.get("result")


def client_balance(api, tenant):
    return int(call(api, tenant, "GET", "/api/v1/client/gasTank").json_body["data"]["balance"])


# --- who may claim a transfer: the sender only, proven before anything is stored ----------------------------------


def test_a_claim_not_signed_by_the_sender_leaves_no_trace_and_the_sender_is_credited_once(
    api, tenant, env, chains, monkeypatch
):
    """Someone else's mined transfer, not yet confirmed: a claim with a junk signature, or one by a key that is not
    the sender, is refused (before the confirmations are looked at) in either mode and stores nothing; the sender's
    own delayed claim is then recorded and credited once, to the sender's tank."""
    checks_at_once(monkeypatch)
    with_registry(chains, monkeypatch, "two-confirmations", confirmations=2)
    thief = tenancy.create_tenant("Thief")
    before_pool = pool_balance(env, 31337)
    tx_hash, sender = transfer(env, 31337, 4_000_000)
    junk = {**request(env, 31337, tx_hash, sender, immediate=False), "signature": "0x" + os.urandom(65).hex()}
    not_the_sender = request(env, 31337, tx_hash, Account.create(), immediate=False)
    for body in (junk, not_the_sender, {**junk, "immediate": True}, {**not_the_sender, "immediate": True}):
        answer = call(api, thief, "POST", "/api/v1/client/gasTank/topUp", body)
        assert answer.status_code == 422 and answer.json_body["data"]["code"] == "SIGNATURE_MISMATCH", answer.json_body
    assert stored_top_ups() == [] and drain() == []

    real = call(api, tenant, "POST", "/api/v1/client/gasTank/topUp", request(env, 31337, tx_hash, sender, False))
    assert real.status_code == 200, real.json_body
    rpc(chains, "anvil_mine", 1)  # its second confirmation
    [body] = drain()
    run_check(body)
    assert client_balance(api, tenant) == 4_000_000 * 10**12 and client_balance(api, thief) == 0
    assert pool_balance(env, 31337) - before_pool == 4_000_000  # on chain, once
    again = call(api, tenant, "POST", "/api/v1/client/gasTank/topUp", request(env, 31337, tx_hash, sender))
    assert again.status_code == 409 and again.json_body["data"]["code"] == "TOPUP_ALREADY_USED"
    assert client_balance(api, tenant) == 4_000_000 * 10**12


def test_a_transaction_not_yet_mined_is_claimed_by_its_sender_only(api, tenant, env, chains, monkeypatch):
    """A delayed claim of a transaction still in the node's mempool: the signature must be its sender's; the check
    waits for it to be mined, then credits it, or fails it when it fails on chain. One chain of checks: a duplicate
    message queues no second successor."""
    checks_at_once(monkeypatch)
    sent = sent_checks(monkeypatch)

    sender, failing_sender = funded(env, 31337, 900_000), funded(env, 31337, 1_000)
    rpc(chains, "evm_setAutomine", False)
    try:
        tx_hash, _ = transfer(env, 31337, 900_000, sender=sender, mined=False)
        failing_hash, _ = transfer(env, 31337, 1_000, sender=failing_sender, gas=60_000, mined=False)  # twice its USDT
        assert rpc(chains, "eth_getTransactionReceipt", tx_hash) is None
        refused = call(
            api, tenant, "POST", "/api/v1/client/gasTank/topUp", request(env, 31337, tx_hash, Account.create(), False)
        )
        assert refused.status_code == 422 and refused.json_body["data"]["code"] == "SIGNATURE_MISMATCH"
        for tx, signer in ((tx_hash, sender), (failing_hash, failing_sender)):
            answer = call(api, tenant, "POST", "/api/v1/client/gasTank/topUp", request(env, 31337, tx, signer, False))
            assert answer.status_code == 200, answer.json_body
        first = {b["txHash"]: b for b in drain()}
        sent.clear()
        run_check(first[tx_hash])  # not mined: the next attempt is queued
        run_check(first[tx_hash])  # a duplicate of the same attempt queues nothing more
        assert [(b["txHash"], b["attempt"]) for b in sent] == [(tx_hash, 2)]
    finally:
        rpc(chains, "evm_setAutomine", True)
    rpc(chains, "evm_mine")
    run_check(sent[0])
    run_check(first[failing_hash])
    assert client_balance(api, tenant) == 900_000 * 10**12
    records = call(api, tenant, "GET", "/api/v1/client/gasTank/topUp/history").json_body["data"]["data"]
    assert {r["txHash"]: r["status"] for r in records} == {tx_hash: "success", failing_hash: "failed"}
    assert due_top_ups() == []


# --- the check is queued after the commit, and queued again by the schedule when lost ------------------------------


def test_a_check_that_runs_before_a_slow_commit_still_credits_the_top_up(api, tenant, env, monkeypatch):
    """A commit slower than the check's delay: the checker runs while the top-up's transaction is still on its way
    (here: just before it commits). The check is queued only once the top-up committed, so it finds it."""
    checks_at_once(monkeypatch)
    tx_hash, sender = transfer(env, 31337, 2_500_000)
    real_append = service._append
    early = []

    def slow_commit(*args, **kwargs):
        for body in drain():  # what the checker would see now
            early.append(body)
            run_check(body)
        return real_append(*args, **kwargs)

    monkeypatch.setattr(service, "_append", slow_commit)
    answer = call(api, tenant, "POST", "/api/v1/client/gasTank/topUp", request(env, 31337, tx_hash, sender, False))
    assert answer.status_code == 200, answer.json_body
    monkeypatch.setattr(service, "_append", real_append)
    assert early == []
    for body in drain():
        run_check(body)
    assert client_balance(api, tenant) == 2_500_000 * 10**12
    [record] = call(api, tenant, "GET", "/api/v1/client/gasTank/topUp/history").json_body["data"]["data"]
    assert record["status"] == "success"


def test_a_crash_before_the_commit_queues_nothing_and_leaves_the_transaction_usable(api, tenant, env, monkeypatch):
    checks_at_once(monkeypatch)
    tx_hash, sender = transfer(env, 31337, 300_000)

    def crash(*_, **__):
        raise RuntimeError("the function died here")

    body = request(env, 31337, tx_hash, sender, False)
    real_append = service._append
    monkeypatch.setattr(service, "_append", crash)
    assert call(api, tenant, "POST", "/api/v1/client/gasTank/topUp", body).status_code == 500
    assert stored_top_ups() == [] and drain() == []
    monkeypatch.setattr(service, "_append", real_append)
    assert call(api, tenant, "POST", "/api/v1/client/gasTank/topUp", body).status_code == 200


def test_a_lost_check_is_queued_again_by_the_schedule(api, tenant, env, monkeypatch):
    """The function dies between the commit and the send (the answer is still 200: the top-up is recorded). The
    schedule `requeue_top_up_checks` queues the check once it is overdue, the `check_top_up` consumer credits it,
    and the schedule then has nothing left; an entry whose top-up ended is removed."""
    from app import app
    from devtools.workers import WorkerRunner

    checks_at_once(monkeypatch)
    tx_hash, sender = transfer(env, 31337, 1_250_000)
    real_send = aws.send_message

    def dies(name, body, **kwargs):
        if name == service.QUEUE:
            raise RuntimeError("the function died before the send")
        return real_send(name, body, **kwargs)

    monkeypatch.setattr(aws, "send_message", dies)
    answer = call(api, tenant, "POST", "/api/v1/client/gasTank/topUp", request(env, 31337, tx_hash, sender, False))
    assert answer.status_code == 200, answer.json_body
    monkeypatch.setattr(aws, "send_message", real_send)
    runner = WorkerRunner(app, region="us-east-1", poll_wait_s=0)
    [schedule] = [s for s in runner.schedules if s.name == "requeue_top_up_checks"]
    [consumer] = [q for q in runner.queues if q.name == "check_top_up"]
    assert runner.poll_once(consumer) == 0  # the message was lost
    runner.invoke_scheduled(schedule)
    assert runner.poll_once(consumer) == 0  # not overdue yet
    try:
        clock.travel(service.QUIET_S + 1)
        runner.invoke_scheduled(schedule)
        assert runner.poll_once(consumer) == 1
        runner.invoke_scheduled(schedule)
        assert runner.poll_once(consumer) == 0 and due_top_ups() == []
        # A record that ended but is still in the index (e.g. a write that ended it without its due attributes)
        # leaves it; nothing is queued.
        [record] = [i for i in stored_top_ups() if i["pk"].startswith("TOPUPS#") and i.get("id")]
        aws.table("gas-tanks").put_item(Item={**record, **due.due_in(-1)})
        runner.invoke_scheduled(schedule)
        assert runner.poll_once(consumer) == 0 and due_top_ups() == []
    finally:
        clock.reset()
    assert client_balance(api, tenant) == 1_250_000 * 10**12


# --- final only with the network's confirmations, on the chain's blocks --------------------------------------------


def test_a_reorg_between_the_receipt_and_the_credit_credits_nothing_and_the_tank_cannot_be_spent(
    api, tenant, env, chains, aa_chains, monkeypatch
):
    """The receipt shows the transfer with the network's 2 confirmations; before the credit, a short reorg
    (evm_revert, then new blocks) drops it. The block hash read again at credit time no longer matches: nothing is
    credited, the pool holds nothing on chain, and a user operation paid by the tank is refused."""
    from chalicelib.evm import rpc as evm_rpc
    from chalicelib.evm.kms_signer import KmsSigner
    from devtools import aa

    w3 = chains["w3"][31337]
    paymaster = aa.deploy_paymaster(entry(chains, 31337)["rpcUrls"][0], KmsSigner("paymaster-signer").address)
    with_registry(chains, monkeypatch, "reorg", confirmations=2, paymaster=paymaster)
    owner_key = Account.create()
    owner = create(api, tenant, owner_key.address).json_body["data"]
    before_pool = pool_balance(env, 31337)
    snapshot = rpc(chains, "evm_snapshot")
    tx_hash, sender = transfer(env, 31337, 5_000_000)
    rpc(chains, "anvil_mine", 1)
    real_batch = evm_rpc.rpc_batch
    reorged = []

    def reorg_after_the_receipt(network, calls, *args, **kwargs):
        answers = real_batch(network, calls, *args, **kwargs)
        for (method, params), answer in zip(calls, answers, strict=True):
            if method == "eth_getTransactionReceipt" and params == [tx_hash] and answer and not reorged:
                assert rpc(chains, "evm_revert", snapshot) is True
                rpc(chains, "anvil_mine", 3)  # the chain moves on past the transfer's height, without it
                reorged.append(answer["blockHash"])
        return answers

    monkeypatch.setattr(evm_rpc, "rpc_batch", reorg_after_the_receipt)
    body = {**request(env, 31337, tx_hash, sender), "receiverOwnerId": owner["id"]}
    answer = call(api, tenant, "POST", "/api/v1/smart-account/topUp", body)
    monkeypatch.setattr(evm_rpc, "rpc_batch", real_batch)
    assert reorged, "the service never read the receipt"
    assert answer.status_code == 422 and answer.json_body["data"]["code"] == "TX_NOT_CONFIRMED", answer.json_body
    replaced = w3.eth.get_block(int(w3.eth.block_number) - 2)  # the height the transfer was mined at
    assert "0x" + replaced["hash"].hex().removeprefix("0x") != reorged[0] and not replaced["transactions"]
    assert pool_balance(env, 31337) == before_pool  # the transfer is gone from the chain
    assert owner_tank(api, tenant, owner["id"])["balance"] == "0" and stored_top_ups() == []

    account = next(a for a in owner["accounts"] if a["chainId"] == 31337)
    w3.provider.make_request("anvil_setBalance", [account["aaAddress"], hex(10**18)])
    send = {"accountId": account["id"], "to": Account.create().address, "amount": "1"}
    hashed = call(api, tenant, "POST", "/api/v1/userOp/sendCoin/hash", send)
    assert hashed.status_code == 200, hashed.json_body
    op = hashed.json_body["data"]
    spent = submit(api, tenant, owner_key, op)
    assert spent.status_code == 422 and spent.json_body["data"]["code"] == "INSUFFICIENT_GAS_TANK_BALANCE"


def test_a_reorg_that_drops_a_pending_top_up_before_its_confirmations_credits_nothing(
    api, tenant, env, chains, monkeypatch
):
    """A delayed top-up waits for 3 confirmations; a short reorg drops its transfer at 1. The checks never find it
    again and the top-up ends `failed`, nothing credited."""
    checks_at_once(monkeypatch)
    monkeypatch.setenv("DOMPET_TOPUP_CHECK_ATTEMPTS", "3")
    with_registry(chains, monkeypatch, "three-confirmations", confirmations=3)
    before_pool = pool_balance(env, 31337)
    snapshot = rpc(chains, "evm_snapshot")
    tx_hash, sender = transfer(env, 31337, 6_000_000)
    answer = call(api, tenant, "POST", "/api/v1/client/gasTank/topUp", request(env, 31337, tx_hash, sender, False))
    assert answer.status_code == 200, answer.json_body
    [body] = drain()
    sent = sent_checks(monkeypatch)
    run_check(body)  # 1 of 3 confirmations: later
    assert rpc(chains, "evm_revert", snapshot) is True
    rpc(chains, "anvil_mine", 5)
    run_check(sent[0])  # the transfer is gone: later (it may be mined again)
    run_check(sent[1])  # the last attempt
    assert [b["attempt"] for b in sent] == [2, 3]
    assert pool_balance(env, 31337) == before_pool and client_balance(api, tenant) == 0
    [record] = call(api, tenant, "GET", "/api/v1/client/gasTank/topUp/history").json_body["data"]["data"]
    assert record["status"] == "failed" and due_top_ups() == []
