"""Sends from one wallet under load against the local stack (`make dev`), over HTTP as integrators send them: a
send either answers 200 and reaches the chain, or refuses (503 with a Retry-After) without leaving a nonce behind
that later transactions would wait on."""

from __future__ import annotations

import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import requests
from eth_account import Account
from web3 import Web3

pytestmark = pytest.mark.integration

CONCURRENT = 16
MINED_WITHIN_S = 90


def test_sixteen_concurrent_sends_from_a_fresh_wallet_are_each_mined_or_refused_before_a_nonce(stack):
    info = stack["info"]
    api, secret = info["apiUrl"], info["demo"]["clientSecret"]

    def post(path: str, token: str | None = None, body: dict[str, Any] | None = None) -> requests.Response:
        headers = {"x-client-secret": secret, **({"Authorization": f"Bearer {token}"} if token else {})}
        return requests.post(api + path, headers=headers, json=body or {}, timeout=120)

    access = post("/api/v1/auth/login", body={"subId": f"burst-{Account.create().address[2:10]}"})
    created = post("/api/v1/account/create", access.json()["data"]["accessToken"])
    assert created.status_code == 200, created.text
    wallet = created.json()["data"]
    network = info["networks"][0]
    w3 = Web3(Web3.HTTPProvider(network["rpcUrl"]))
    w3.provider.make_request("anvil_setBalance", [wallet["address"], hex(10**19)])

    def send(_: int) -> requests.Response:
        body = {"network": network["name"], "to": Account.create().address, "amount": "0.0001"}
        return post("/api/v1/wallet/send-coin", wallet["walletToken"], body)

    with ThreadPoolExecutor(CONCURRENT) as pool:
        answers = list(pool.map(send, range(CONCURRENT)))

    outcomes = Counter((a.status_code, a.json()["data"].get("code") if a.status_code != 200 else None) for a in answers)
    assert {status for status, _ in outcomes} <= {200, 503}, outcomes
    for refused in (a for a in answers if a.status_code == 503):
        assert int(refused.headers["Retry-After"]) >= 1, refused.text
    sent = [a.json()["data"]["txReceipt"] for a in answers if a.status_code == 200]
    assert sent, outcomes
    assert sorted(r["nonce"] for r in sent) == list(range(len(sent))), "200s take the nonces from 0, with no gap"

    ends = time.monotonic() + MINED_WITHIN_S
    for receipt in sent:
        mined = w3.eth.wait_for_transaction_receipt(receipt["hash"], timeout=max(1.0, ends - time.monotonic()))
        assert mined["status"] == 1
    assert w3.eth.get_transaction_count(wallet["address"]) == len(sent)
    pool_content = w3.provider.make_request("txpool_content", [])["result"]
    waiting = [
        sender
        for kind in ("pending", "queued")
        for sender in pool_content[kind]
        if sender.lower() == wallet["address"].lower()
    ]
    assert waiting == [], "nothing of the wallet waits in the node"
