"""Gas-tank top-ups over HTTP against the local stack (`make dev`, the session's `stack` fixture): a claim that the
transfer's sender did not sign is refused and leaves no trace, and the sender's own claims are credited once, at
once or by the local checker. Effects are checked on the anvil chain and in the tank."""

from __future__ import annotations

import json
import os
import time

import pytest
from eth_account import Account
from web3 import Web3

from tests.support import top_ups
from tests.support.devstack import evm_networks, signed

pytestmark = pytest.mark.integration
TOP_UP = "/api/v1/client/gasTank/topUp"


def post(info, path, body):
    return signed(info, "POST", path, json.dumps(body).encode())


def tank_balance(info):
    return int(signed(info, "GET", "/api/v1/client/gasTank").json()["data"]["balance"])


def history(info):
    return signed(info, "GET", f"{TOP_UP}/history?limit=100").json()["data"]["data"]


def test_a_junk_top_up_claim_never_blocks_the_real_one(stack):
    info = stack["info"]
    network = info["networks"][0]
    chain_id = network["chainId"]
    chains = {"entries": evm_networks(info), "w3": {chain_id: Web3(Web3.HTTPProvider(network["rpcUrl"]))}}
    before_pool, before_tank = top_ups.pool_balance(chains, chain_id), tank_balance(info)
    tx_hash, sender = top_ups.transfer(chains, chain_id, 3_000_000)

    junk = {**top_ups.request(chains, chain_id, tx_hash, sender, False), "signature": "0x" + os.urandom(65).hex()}
    not_the_sender = top_ups.request(chains, chain_id, tx_hash, Account.create(), False)
    for body in (junk, not_the_sender, {**junk, "immediate": True}, {**not_the_sender, "immediate": True}):
        refused = post(info, TOP_UP, body)
        assert refused.status_code == 422 and refused.json()["data"]["code"] == "SIGNATURE_MISMATCH", refused.text
    assert not [r for r in history(info) if r["txHash"] == tx_hash]  # no trace

    real = post(info, TOP_UP, top_ups.request(chains, chain_id, tx_hash, sender))
    assert real.status_code == 200, real.text
    again = post(info, TOP_UP, top_ups.request(chains, chain_id, tx_hash, sender, False))
    assert again.status_code == 409 and again.json()["data"]["code"] == "TOPUP_ALREADY_USED", again.text
    assert tank_balance(info) - before_tank == 3_000_000 * 10**12  # 6-decimal USDT in 18-decimal tank units
    assert top_ups.pool_balance(chains, chain_id) - before_pool == 3_000_000  # on chain
    [record] = [r for r in history(info) if r["txHash"] == tx_hash]
    assert record["status"] == "success" and record["amount"] == "3000000"

    # A delayed claim: the local `check_top_up` consumer credits it after its delay (20 s).
    delayed_hash, delayed_sender = top_ups.transfer(chains, chain_id, 1_000_000)
    junk = {**top_ups.request(chains, chain_id, delayed_hash, delayed_sender, False), "signature": junk["signature"]}
    assert post(info, TOP_UP, junk).status_code == 422
    accepted = post(info, TOP_UP, top_ups.request(chains, chain_id, delayed_hash, delayed_sender, False))
    assert accepted.status_code == 200, accepted.text
    deadline = time.monotonic() + 120
    status = None
    while time.monotonic() < deadline:
        status = next(r["status"] for r in history(info) if r["txHash"] == delayed_hash)
        if status != "pending":
            break
        time.sleep(2)
    assert status == "success"
    assert tank_balance(info) - before_tank == 4_000_000 * 10**12
