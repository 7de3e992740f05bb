"""The EVM pipeline on its own, with no principal: a plain-key `Signer`, moto and anvil."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

import pytest
from eth_account import Account

from chalicelib.evm import engine, nonces, pipeline, tracking
from chalicelib.evm.transactions import UnsignedTx
from chalicelib.platform import aws, networks, settings
from chalicelib.platform.errors import ApiError
from devtools import chain
from tests.support.keys import KeySigner

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def anvil():
    with chain.start_anvil(chain.free_port(), 31337) as node:
        yield node


@pytest.fixture
def network(anvil, aws_env, tmp_path, monkeypatch):
    path = tmp_path / "networks.json"
    entry = {"name": "local-a", "chainId": 31337, "rpcUrls": [anvil.rpc_url], "nativeSymbol": "ETH"}
    path.write_text(json.dumps({"networks": [entry]}))
    monkeypatch.setenv("DOMPET_NETWORKS_FILE", str(path))
    settings.load_settings.cache_clear()
    networks.registry.cache_clear()
    yield networks.resolve("local-a", None)
    settings.load_settings.cache_clear()
    networks.registry.cache_clear()


@pytest.fixture
def w3(anvil):
    from web3 import Web3

    return Web3(Web3.HTTPProvider(anvil.rpc_url))


def _funded(w3) -> KeySigner:
    signer = KeySigner(Account.create().key)
    w3.provider.make_request("anvil_setBalance", [signer.address, hex(10**18)])
    return signer


def test_a_plain_key_signer_sends_records_and_is_tracked(network, w3):
    signer = _funded(w3)
    recipient = Account.create().address
    sent = pipeline.send(network, signer, pipeline.Call(recipient, 12345, b""), owner="hot-1", kind="coin")
    assert sent.confirmed and sent.receipt["from"] == signer.address
    assert w3.eth.wait_for_transaction_receipt(sent.signed.hash).status == 1
    assert w3.eth.get_balance(recipient) == 12345
    engine.check(sent.signed.hash)
    record = tracking.read(sent.signed.hash)
    assert record is not None and record.status == "mined" and record.walletId == "hot-1"
    lease = aws.table("nonces").get_item(Key=nonces.key(signer.address, 31337))["Item"]
    assert not lease.get("inflight") and int(lease["next"]) == 1


def test_a_signature_from_another_key_is_never_recorded_or_sent(network, w3):
    signer = _funded(w3)
    impostor = KeySigner(Account.create().key)

    @dataclass(frozen=True)
    class Wrong:
        address: str

        def admit(self, time_left_s: float | None) -> None:
            pass

        def sign_transaction(self, tx: UnsignedTx) -> bytes:
            return impostor.sign_transaction(tx)

    with pytest.raises(ValueError):
        pipeline.send(network, Wrong(signer.address), pipeline.Call(signer.address, 1, b""), owner="x", kind="coin")
    assert aws.table("wallet-transactions").scan()["Items"] == []
    # Its nonce was given back: the next send uses it.
    sent = pipeline.send(network, signer, pipeline.Call(signer.address, 1, b""), owner="x", kind="coin")
    assert sent.signed.tx.nonce == 0


def test_too_little_coin_is_refused_before_signing(network, w3):
    signer = _funded(w3)
    with pytest.raises(ApiError) as refused:
        pipeline.send(network, signer, pipeline.Call(signer.address, 10**18, b""), owner="x", kind="coin")
    assert (refused.value.status, refused.value.code) == (422, "INSUFFICIENT_FUNDS")


def _nonce_item(signer: KeySigner) -> dict:
    return aws.table("nonces").get_item(Key=nonces.key(signer.address, 31337), ConsistentRead=True).get("Item") or {}


def test_a_send_that_runs_out_of_time_while_signing_gives_its_nonce_back(network, w3):
    """A signing run uses all the time it is given (an MPC run keeps going until its deadline) and fails: the send
    still has time to give its nonce back, so no lease is left and the next send uses the nonce at once."""
    from chalicelib.platform import deadline

    signer = _funded(w3)

    @dataclass(frozen=True)
    class Slow(KeySigner):
        def sign_transaction(self, tx: UnsignedTx) -> bytes:
            time.sleep(max(0.0, deadline.remaining_s() or 0.0) + 0.01)
            deadline.require("signing run")
            raise AssertionError("unreachable")

    call = pipeline.Call(Account.create().address, 1, b"")
    with pytest.raises(deadline.DeadlineExceededError), deadline.budget(4.0):
        pipeline.send(network, Slow(signer.key), call, owner="x", kind="coin")
    item = _nonce_item(signer)
    assert not item.get("inflight"), "no lease left to wait out"
    assert {int(n) for n in item.get("given", set())} == {0}
    assert aws.table("wallet-transactions").scan()["Items"] == []

    sent = pipeline.send(network, signer, call, owner="x", kind="coin")
    assert sent.signed.tx.nonce == 0
    assert w3.eth.wait_for_transaction_receipt(sent.signed.hash).status == 1


def test_a_signing_run_that_overran_the_whole_budget_still_gives_its_nonce_back(network, w3):
    """A run that cannot be interrupted overruns even the time held back for the give-back (a loaded machine): the
    give-back still runs, in the time the budget keeps back for the answer, so no lease is left to wait out."""
    from chalicelib.platform import clock, deadline

    signer = _funded(w3)

    @dataclass(frozen=True)
    class Overrunning(KeySigner):
        def sign_transaction(self, tx: UnsignedTx) -> bytes:
            clock.travel((deadline.remaining_s() or 0.0) + pipeline.GIVE_BACK_S + 0.3)  # past the budget's end
            raise deadline.DeadlineExceededError("signing run")

    call = pipeline.Call(Account.create().address, 1, b"")
    try:
        with pytest.raises(deadline.DeadlineExceededError), deadline.budget(10.0):
            pipeline.send(network, Overrunning(signer.key), call, owner="x", kind="coin")
    finally:
        clock.reset()
    item = _nonce_item(signer)
    assert not item.get("inflight"), "no lease left to wait out"
    assert {int(n) for n in item.get("given", set())} == {0}


def test_a_signer_that_cannot_sign_in_time_refuses_before_a_nonce_is_taken(network, w3):
    from chalicelib.platform import deadline
    from chalicelib.platform.errors import RetryLaterError

    signer = _funded(w3)
    asked: list[float | None] = []

    @dataclass(frozen=True)
    class Busy(KeySigner):
        def admit(self, time_left_s: float | None) -> None:
            asked.append(time_left_s)
            raise RetryLaterError("SIGNER_BUSY", "busy", 5)

        def sign_transaction(self, tx: UnsignedTx) -> bytes:
            raise AssertionError("a refused send signs nothing")

    with pytest.raises(RetryLaterError), deadline.budget(30.0):
        pipeline.send(network, Busy(signer.key), pipeline.Call(signer.address, 1, b""), owner="x", kind="coin")
    assert _nonce_item(signer) == {}  # no nonce taken
    # What it was asked: the time left once giving back and broadcasting are kept aside.
    (left,) = asked
    assert left is not None and left < 30.0 - 1.0 - pipeline.GIVE_BACK_S - pipeline.BROADCAST_NEEDS_S
