"""The transaction engine on anvil: stuck transactions re-priced, speed-up, cancel, nonce gaps filled.

A plain-key signer stands in for a wallet's (the cosigner's side is tests/unit/test_policy_replacements.py; over
HTTP with the MPC signer: tests/integration/test_devstack_engine.py). A stuck transaction is made as on a real
chain: automine off, the transaction sent, the next base fee raised above its fee cap and a block mined (anvil
then drops it from its pool), automine on again.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest
from eth_account import Account

from chalicelib.evm import engine, fees, nonces, pipeline, tracking
from chalicelib.platform import clock, networks, settings
from chalicelib.platform.errors import ApiError
from chalicelib.platform.hooks import Hooks
from chalicelib.platform.invocation import running_as
from devtools import chain
from tests.support.keys import KeySigner

pytestmark = pytest.mark.integration

KIND = "plain"


@pytest.fixture(scope="module")
def anvil():
    with chain.start_anvil(chain.free_port(), 31337) as node:
        yield node


@pytest.fixture
def w3(anvil):
    from web3 import Web3

    return Web3(Web3.HTTPProvider(anvil.rpc_url))


def _use_network(monkeypatch, tmp_path, anvil, **extra: object) -> networks.Network:
    path = tmp_path / "networks.json"
    entry = {"name": "local-a", "chainId": 31337, "rpcUrls": [anvil.rpc_url], "nativeSymbol": "ETH", **extra}
    path.write_text(json.dumps({"networks": [entry]}))
    monkeypatch.setenv("DOMPET_NETWORKS_FILE", str(path))
    settings.load_settings.cache_clear()
    networks.registry.cache_clear()
    return networks.resolve("local-a", None)


@pytest.fixture
def network(anvil, aws_env, tmp_path, monkeypatch):
    monkeypatch.setenv("DOMPET_TX_BUMP_AFTER_S", "1")
    monkeypatch.setenv("DOMPET_NONCE_GAP_FILL_S", "1")
    yield _use_network(monkeypatch, tmp_path, anvil)
    settings.load_settings.cache_clear()
    networks.registry.cache_clear()


@pytest.fixture
def signer(w3, monkeypatch) -> Iterator[KeySigner]:
    key = KeySigner(Account.create().key)
    w3.provider.make_request("anvil_setBalance", [key.address, hex(10**20)])
    monkeypatch.setattr(engine, "OWNERS", Hooks("transaction owner"))
    engine.register(engine.Owner(kinds=frozenset({KIND, engine.GAP_FILL}), signer=lambda tx: key))
    yield key
    # The chain is the module's: the base fee a test raised goes back to anvil's first one.
    w3.provider.make_request("anvil_setNextBlockBaseFeePerGas", [hex(10**9)])
    w3.provider.make_request("evm_mine", [])


def _rpc(w3, method: str, *params: object) -> object:
    answer = w3.provider.make_request(method, list(params))
    assert "error" not in answer, answer
    return answer.get("result")


def _stuck_send(w3, network, signer: KeySigner, value: int, to: str) -> pipeline.Sent:
    """A transaction the node priced out: sent with automine off, then a block whose base fee is above its cap."""
    _rpc(w3, "evm_setAutomine", False)
    try:
        sent = pipeline.send(network, signer, pipeline.Call(to, value, b""), owner="hot-1", kind=KIND)
        cap = sent.signed.tx.max_fee or sent.signed.tx.gas_price or 0
        _rpc(w3, "anvil_setNextBlockBaseFeePerGas", hex(3 * cap))
        _rpc(w3, "evm_mine")
    finally:
        _rpc(w3, "evm_setAutomine", True)
    assert w3.eth.get_transaction_count(signer.address, "latest") == sent.signed.tx.nonce  # not mined
    return sent


def _check(tx_hash: str) -> None:
    """One tracker step as the tracker's function takes it (its AWS calls are checked against its grants)."""
    with running_as("track_transaction"):
        engine.check(tx_hash)


def _settle(tx_hash: str, rounds: int = 5) -> tracking.EvmTransaction:
    for _ in range(rounds):
        _check(tx_hash)
        record = tracking.read(tx_hash)
        assert record is not None
        if record.status not in tracking.UNSETTLED:
            return record
        time.sleep(0.5)
    raise AssertionError(f"still {record.status}")


def test_a_priced_out_transaction_is_signed_again_at_its_nonce_and_mined_once(network, w3, signer):
    recipient = Account.create().address
    sent = _stuck_send(w3, network, signer, 12345, recipient)
    first_cap = sent.signed.tx.max_fee
    assert first_cap is not None
    time.sleep(1.1)  # past DOMPET_TX_BUMP_AFTER_S
    _check(sent.signed.hash)
    record = tracking.read(sent.signed.hash)
    assert record is not None and record.status == "pending" and len(record.attempts) == 1
    replacement = record.attempts[0]
    assert replacement.reason == "bump" and int(replacement.maxFeePerGas or 0) >= fees.raised(first_cap)
    assert int(replacement.maxFeePerGas or 0) <= fees.CEILING_TIMES * first_cap  # no network ceiling: 10x
    settled = _settle(sent.signed.hash)
    assert settled.status == "mined" and settled.minedHash == replacement.hash
    assert w3.eth.get_balance(recipient) == 12345  # paid exactly once
    mined = w3.eth.get_transaction(replacement.hash)
    assert mined["nonce"] == sent.signed.tx.nonce and mined["maxFeePerGas"] > first_cap
    # Any hash of the chain answers the one record, which shows the replacement.
    assert tracking.read(replacement.hash).hash == sent.signed.hash
    shown = tracking.public(settled)
    assert shown["minedHash"] == replacement.hash and shown["replacements"][0]["reason"] == "bump"
    assert shown["txReceipt"]["hash"] == sent.signed.hash  # the send's answer is unchanged


def test_a_crash_between_signing_a_replacement_and_recording_it_leaves_one_effect(network, w3, signer, monkeypatch):
    recipient = Account.create().address
    sent = _stuck_send(w3, network, signer, 777, recipient)
    time.sleep(1.1)

    def crash(*args: object, **kwargs: object) -> None:
        raise RuntimeError("the function died here")

    with monkeypatch.context() as patched:
        patched.setattr(tracking, "replace", crash)
        _check(sent.signed.hash)  # signed, never recorded, never broadcast
    record = tracking.read(sent.signed.hash)
    assert record is not None and record.attempts == [] and record.status == "pending"
    assert w3.eth.get_transaction_count(signer.address, "latest") == sent.signed.tx.nonce
    time.sleep(1.1)
    settled = _settle(sent.signed.hash)
    assert settled.status == "mined" and len(settled.attempts) == 1
    assert w3.eth.get_balance(recipient) == 777


def test_speed_up_with_explicit_fees_and_its_refusals(network, w3, signer):
    recipient = Account.create().address
    sent = _stuck_send(w3, network, signer, 5, recipient)
    record = tracking.read(sent.signed.hash)
    cap, tip = sent.signed.tx.max_fee or 0, sent.signed.tx.max_priority_fee or 0
    with pytest.raises(ApiError) as low:  # 5 % more: below the 10 % a node needs
        engine.speed_up(record, signer, fees.Fees(max_fee=cap * 105 // 100, max_priority_fee=tip * 2), None)
    assert (low.value.status, low.value.code) == (409, engine.REPLACEMENT_UNDERPRICED)
    with pytest.raises(ApiError) as legacy:
        engine.speed_up(record, signer, fees.Fees(gas_price=cap * 5), None)
    assert legacy.value.code == engine.REPLACEMENT_UNDERPRICED  # another kind of fee does not replace
    with pytest.raises(ApiError) as high:
        engine.speed_up(record, signer, fees.Fees(max_fee=cap * 11, max_priority_fee=tip * 2), None)
    assert (high.value.status, high.value.code) == (422, engine.FEE_ABOVE_CEILING)
    assert tracking.read(sent.signed.hash).attempts == []  # refusals sign nothing
    faster = engine.speed_up(record, signer, fees.Fees(max_fee=cap * 4, max_priority_fee=tip * 2), None)
    assert faster.signed.tx.nonce == sent.signed.tx.nonce and faster.receipt["maxFeePerGas"] == str(cap * 4)
    settled = _settle(sent.signed.hash)
    assert settled.status == "mined" and settled.minedHash == faster.signed.hash
    assert settled.attempts[0].reason == "speed_up"
    assert w3.eth.get_balance(recipient) == 5
    with pytest.raises(ApiError) as final:
        engine.speed_up(settled, signer, None, None)
    assert (final.value.status, final.value.code) == (409, engine.TRANSACTION_FINAL)


def test_a_speed_up_read_before_a_tracker_step_is_recorded_on_the_record_as_it_now_is(network, w3, signer):
    """The tracker counts every check on the record (a new version): a speed-up that read it before is recorded
    all the same; one that a tracker's bump outbid meanwhile is refused."""
    sent = _stuck_send(w3, network, signer, 8, Account.create().address)
    stale = tracking.read(sent.signed.hash)
    _check(sent.signed.hash)  # a check (not yet due for a bump): the record's version moves on
    assert tracking.read(sent.signed.hash).version != stale.version
    cap, tip = sent.signed.tx.max_fee or 0, sent.signed.tx.max_priority_fee or 0
    faster = engine.speed_up(stale, signer, fees.Fees(max_fee=cap * 4, max_priority_fee=tip * 2), None)
    assert tracking.read(sent.signed.hash).latest_hash == faster.signed.hash
    outbid = tracking.read(sent.signed.hash)
    time.sleep(1.1)
    _check(sent.signed.hash)  # the speed-up is mined (automine): settled
    with pytest.raises(ApiError) as final:
        engine.speed_up(outbid, signer, fees.Fees(max_fee=cap * 5, max_priority_fee=tip * 3), None)
    assert final.value.code == engine.TRANSACTION_FINAL


def test_a_tracker_step_that_a_speed_up_overtook_keeps_its_chain(network, w3, signer, monkeypatch):
    """A step read the record, then a speed-up recorded a replacement (a new version, the same step count): the
    step's own move is made on the record as it now is, and it queues its one successor."""
    sent = _stuck_send(w3, network, signer, 4, Account.create().address)
    step_read = tracking.read(sent.signed.hash)
    cap, tip = sent.signed.tx.max_fee or 0, sent.signed.tx.max_priority_fee or 0
    engine.speed_up(step_read, signer, fees.Fees(max_fee=cap * 4, max_priority_fee=tip * 2), None)
    queued: list[tuple[str, int]] = []
    monkeypatch.setattr(tracking, "enqueue", lambda tx_hash, step, delay_s: queued.append((tx_hash, step)))
    engine._again(step_read, step_read.checks + 1)
    assert queued == [(sent.signed.hash, step_read.checks + 1)]
    after = tracking.read(sent.signed.hash)
    assert after.checks == step_read.checks + 1 and len(after.attempts) == 1  # the speed-up stands


def test_a_replacement_beyond_the_senders_funds_is_refused_before_signing(network, w3, signer, caplog):
    sent = _stuck_send(w3, network, signer, 10**15, Account.create().address)
    record = tracking.read(sent.signed.hash)
    w3.provider.make_request("anvil_setBalance", [signer.address, hex(10**15 + 21_000)])  # the value and little gas
    with pytest.raises(ApiError) as poor:
        engine.speed_up(record, signer, None, None)
    assert (poor.value.status, poor.value.code) == (422, "INSUFFICIENT_FUNDS")
    time.sleep(1.1)
    _check(sent.signed.hash)  # the tracker does not sign what the sender cannot pay either
    after = tracking.read(sent.signed.hash)
    assert after.attempts == [] and after.pricedAt is not None  # and waits before it looks again
    assert any("not enough funds" in r.getMessage() for r in caplog.records)


def test_a_transaction_behind_an_unmined_nonce_is_not_re_priced_before_it(network, w3, signer):
    """Both priced out: the first is re-priced; the second waits for it (its own price may then be enough)."""
    _rpc(w3, "evm_setAutomine", False)
    try:
        first = pipeline.send(network, signer, pipeline.Call(signer.address, 1, b""), owner="hot-1", kind=KIND)
        second = pipeline.send(network, signer, pipeline.Call(signer.address, 2, b""), owner="hot-1", kind=KIND)
        _rpc(w3, "anvil_setNextBlockBaseFeePerGas", hex(3 * (second.signed.tx.max_fee or 0)))
        _rpc(w3, "evm_mine")
    finally:
        _rpc(w3, "evm_setAutomine", True)
    time.sleep(1.1)
    _check(second.signed.hash)
    assert tracking.read(second.signed.hash).attempts == []  # held up by the first: not re-priced
    _check(first.signed.hash)
    assert len(tracking.read(first.signed.hash).attempts) == 1
    assert _settle(first.signed.hash).status == "mined"


def test_cancel_replaces_the_payment_with_a_no_op(network, w3, signer):
    recipient = Account.create().address
    sent = _stuck_send(w3, network, signer, 10**15, recipient)
    record = tracking.read(sent.signed.hash)
    cancelled = engine.cancel(record, signer, None)
    assert cancelled.signed.tx.to == signer.address and cancelled.signed.tx.value == 0
    assert cancelled.signed.tx.data == b"" and cancelled.signed.tx.nonce == sent.signed.tx.nonce
    settled = _settle(sent.signed.hash)
    assert settled.status == "cancelled" and settled.minedHash == cancelled.signed.hash
    assert w3.eth.get_balance(recipient) == 0  # the payment never happened
    with pytest.raises(ApiError) as final:
        engine.cancel(settled, signer, None)
    assert final.value.code == engine.TRANSACTION_FINAL


def test_a_nonce_given_back_under_a_pending_transaction_is_filled(network, w3, signer):
    """A send that died gave its nonce back after a later send took the next one: nothing else is sent from the
    wallet, and the tracker of the later transaction fills the gap with a 0-value send to the sender."""
    chain_id = network.chainId
    lost = nonces.allocate(signer.address, chain_id, 0)  # the send that will die
    recipient = Account.create().address
    later = pipeline.send(network, signer, pipeline.Call(recipient, 9, b""), owner="hot-1", kind=KIND)
    assert later.signed.tx.nonce == lost.nonce + 1
    assert nonces.release(lost)  # it gave its nonce back on the way out
    time.sleep(1.1)  # past DOMPET_NONCE_GAP_FILL_S
    settled = _settle(later.signed.hash)
    assert settled.status == "mined" and w3.eth.get_balance(recipient) == 9
    assert w3.eth.get_transaction_count(signer.address, "latest") == 2
    fills = [t for t in tracking.page("hot-1", _query())[0] if t["kind"] == engine.GAP_FILL]
    assert len(fills) == 1 and fills[0]["nonce"] == lost.nonce and fills[0]["to"] == signer.address
    assert fills[0]["value"] == "0"


def test_an_expired_lease_under_a_pending_transaction_is_filled(network, w3, signer, monkeypatch):
    """A send that died holding its lease (it never gave it back): once the lease is past its time, the tracker
    of the later transaction recovers the nonce and fills it."""
    chain_id = network.chainId
    dead = nonces.allocate(signer.address, chain_id, 0)
    recipient = Account.create().address
    later = pipeline.send(network, signer, pipeline.Call(recipient, 3, b""), owner="hot-1", kind=KIND)
    assert later.signed.tx.nonce == dead.nonce + 1
    time.sleep(1.1)
    _check(later.signed.hash)  # the lease still runs: nobody takes the nonce from its send
    assert w3.eth.get_transaction_count(signer.address, "latest") == 0
    real_epoch = clock.epoch
    with monkeypatch.context() as patched:
        patched.setattr(clock, "epoch", lambda: real_epoch() + nonces.LEASE_S + 5)
        settled = _settle(later.signed.hash)
    assert settled.status == "mined" and w3.eth.get_transaction_count(signer.address, "latest") == 2
    assert w3.eth.get_balance(recipient) == 3


def test_at_the_network_ceiling_it_stays_pending_and_stops_bumping(
    anvil, aws_env, tmp_path, monkeypatch, w3, signer, caplog
):
    """It stays `pending`; past DOMPET_TX_STUCK_ALERT_S it is logged once at warning with its nonce and fees."""
    monkeypatch.setenv("DOMPET_TX_BUMP_AFTER_S", "1")
    monkeypatch.setenv("DOMPET_TX_STUCK_ALERT_S", "2")
    block = w3.eth.get_block("latest")
    network = _use_network(monkeypatch, tmp_path, anvil, maxFeePerGasCeiling=3 * block["baseFeePerGas"] + 10**9)
    try:
        sent = _stuck_send(w3, network, signer, 1, Account.create().address)
        for _ in range(3):  # a bump up to the ceiling (still priced out), then no more
            time.sleep(1.1)
            _check(sent.signed.hash)
        record = tracking.read(sent.signed.hash)
        assert record is not None and record.status == "pending" and record.atCeiling
        assert len(record.attempts) == 1 and int(record.attempts[0].maxFeePerGas or 0) == network.maxFeePerGasCeiling
        stuck = [r for r in caplog.records if r.getMessage() == "transaction stuck"]
        assert len(stuck) == 1 and record.stuckAlerted
        assert stuck[0].levelname == "WARNING" and stuck[0].nonce == sent.signed.tx.nonce
        assert stuck[0].maxFeePerGas == network.maxFeePerGasCeiling and stuck[0].walletId == "hot-1"
    finally:
        settings.load_settings.cache_clear()
        networks.registry.cache_clear()


def _query():
    from chalicelib.platform.pagination import PageQuery

    return PageQuery(page=1, limit=50)


def test_a_pending_transaction_whose_follow_ups_went_quiet_is_handed_a_step_again(network, w3, signer, monkeypatch):
    """Its message lost (never sent after the commit, or dead-lettered): the schedule's sweep queues a tracker step,
    which settles it; a settled record leaves the sweep's index."""
    queued: list[tuple[str, int]] = []
    monkeypatch.setattr(tracking, "enqueue", lambda tx_hash, step, delay_s: queued.append((tx_hash, step)))
    sent = pipeline.send(network, signer, pipeline.Call(signer.address, 1, b""), owner="hot-1", kind=KIND)
    assert queued == [(sent.signed.hash, 0)]  # the chain's first step, which is then lost
    queued.clear()
    assert tracking.requeue_quiet() == 0  # not quiet yet
    clock.travel(tracking.QUIET_S + 5)
    try:
        with running_as("requeue_transactions"):
            assert tracking.requeue_quiet() == 1
        assert queued == [(sent.signed.hash, 0)]
        with running_as("requeue_transactions"):
            assert tracking.requeue_quiet() == 0  # leased: the step just queued is its follow-up
    finally:
        clock.reset()
    engine.on_message({"hash": queued[0][0], "step": queued[0][1]})
    assert tracking.read(sent.signed.hash).status == "mined"
    clock.travel(3 * tracking.QUIET_S)
    try:
        assert tracking.requeue_quiet() == 0  # settled: out of the index
    finally:
        clock.reset()
