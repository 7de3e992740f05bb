"""Concurrency against the local stack (`make dev`), over HTTP as integrators would send it: parallel
withdrawals from one balance, parallel refreshes of one token, a burst of webhook test events. The stack's moto
server must serve every DynamoDB request atomically, as DynamoDB does (devtools/moto_patches.py), and the service's
conditional writes must turn every lost race into a retry or a stable 4xx, never a 500."""

from __future__ import annotations

import base64
import json
import os
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TypeVar

import pytest
import requests
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from web3 import Web3

from tests.support import stack_tokens
from tests.support.concurrency import race
from tests.support.devstack import signed

pytestmark = pytest.mark.integration
T = TypeVar("T")


def now_us() -> str:
    """A signing timestamp to the microsecond: identical requests signed by parallel threads in one millisecond
    would otherwise be one request and its replays."""
    return datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def post(info: dict[str, Any], path: str, body: dict[str, Any] | None = None) -> requests.Response:
    return signed(info, "POST", path, json.dumps(body).encode() if body is not None else b"", timestamp=now_us())


def wait_for(read: Callable[[], T], done: Callable[[T], bool], timeout_s: float, step: Callable[[], None]) -> T:
    deadline = time.monotonic() + timeout_s
    value = read()
    while not done(value) and time.monotonic() < deadline:
        step()
        value = read()
    return value


def test_eleven_parallel_withdrawals_from_a_balance_for_eight(stack):
    """17.5 USDT deposited on chain; eleven withdrawals of 2 at once: exactly eight accepted, the others 422
    INSUFFICIENT_BALANCE, one `hold` in the journal per accepted withdrawal and none for the others, the list
    answers, and the chain pays the recipient exactly 16."""
    info = stack["info"]
    created = post(info, "/api/v1/custody/accounts", {"subId": f"race-{uuid.uuid4().hex[:8]}"})
    assert created.status_code == 200, created.text
    account = created.json()["data"]
    wallet = next(w for w in account["wallets"] if w["network"] == "local-a")
    network = info["networks"][0]
    w3 = Web3(Web3.HTTPProvider(network["rpcUrl"]))
    token = w3.eth.contract(address=network["tokens"]["usdt"], abi=stack_tokens.MINT_AND_TRANSFER_ABI)
    sender = w3.eth.accounts[6]
    w3.eth.wait_for_transaction_receipt(token.functions.mint(sender, 17_500_000).transact({"from": sender}))
    w3.eth.wait_for_transaction_receipt(
        token.functions.transfer(wallet["address"], 17_500_000).transact({"from": sender})
    )
    w3.provider.make_request("anvil_mine", ["0x2"])

    def usdt() -> dict[str, Any]:
        path = f"/api/v1/custody/accounts/{account['id']}/balances"
        balances = signed(info, "GET", path).json()["data"]["balances"]
        return next(b for b in balances if b["network"] == "local-a" and b["tokenCode"] == "usdt")

    funded = wait_for(usdt, lambda b: b["activeBalance"] == "17.5", 60, lambda: time.sleep(1))
    assert funded["activeBalance"] == "17.5", funded
    [gas_wallet] = signed(info, "GET", "/api/v1/custody/gas-wallets").json()["data"]["data"]
    w3.provider.make_request("anvil_setBalance", [gas_wallet["address"], hex(10**19)])

    recipient = Web3.to_checksum_address("0x" + os.urandom(20).hex())
    answers = race(
        lambda i: post(
            info,
            "/api/v1/custody/withdrawals",
            {
                "accountId": account["id"],
                "network": "local-a",
                "tokenCode": "usdt",
                "to": recipient,
                "amount": "2",
                "reference": f"race-{account['id']}-{i}",
            },
        ),
        11,
    )
    statuses = sorted(a.status_code for a in answers)
    assert statuses == [200] * 8 + [422] * 3, [(a.status_code, a.text) for a in answers]
    assert {a.json()["data"]["code"] for a in answers if a.status_code == 422} == {"INSUFFICIENT_BALANCE"}
    accepted = {a.json()["data"]["id"] for a in answers if a.status_code == 200}
    assert len(accepted) == 8

    journal = signed(info, "GET", f"/api/v1/custody/accounts/{account['id']}/entries?limit=100")
    assert journal.status_code == 200, journal.text
    holds = Counter(e["referenceId"] for e in journal.json()["data"]["data"] if e["kind"] == "hold")
    assert holds == Counter(dict.fromkeys(accepted, 1))  # one hold per accepted withdrawal, none for the refused

    listed = signed(info, "GET", f"/api/v1/custody/withdrawals?accountId={account['id']}&limit=100")
    assert listed.status_code == 200, listed.text
    page = listed.json()["data"]
    assert page["pagination"]["total"] == 8 and {w["id"] for w in page["data"]} == accepted

    def settled() -> list[str]:
        shown = signed(info, "GET", f"/api/v1/custody/withdrawals?accountId={account['id']}&limit=100")
        return [w["status"] for w in shown.json()["data"]["data"]]

    statuses_now = wait_for(
        settled,
        lambda s: all(x in ("success", "failed") for x in s),
        300,
        lambda: (w3.provider.make_request("anvil_mine", ["0x1"]), time.sleep(2)),
    )
    assert statuses_now == ["success"] * 8, statuses_now
    balance_of = "0x70a08231" + recipient[2:].lower().rjust(64, "0")
    paid = w3.eth.call({"to": network["tokens"]["usdt"], "data": balance_of})
    assert int.from_bytes(paid, "big") == 16_000_000  # exactly eight payments, on chain
    final = usdt()
    assert final["activeBalance"] == "1.5" and final["heldBalance"] == "0", final


def test_ten_rounds_of_ten_parallel_refreshes_each_end_in_one_outcome(stack):
    """Every round: the same refresh token presented ten times at once. One new pair comes out of it (answered to
    every caller that got a 200), any other answer is a 4xx with a stable code, the pair works, and its refresh
    token carries the family into the next round."""
    info = stack["info"]
    api, secret = info["apiUrl"], info["demo"]["clientSecret"]
    login = requests.post(
        f"{api}/api/v1/auth/login",
        json={"subId": f"refresher-{uuid.uuid4().hex[:8]}"},
        headers={"x-client-secret": secret},
        timeout=10,
    )
    assert login.status_code == 200, login.text
    pair = login.json()["data"]

    def refresh(token: str) -> requests.Response:
        return requests.post(
            f"{api}/api/v1/auth/refresh",
            json={"refreshToken": token},
            headers={"x-client-secret": secret},
            timeout=30,
        )

    for round_ in range(10):
        answers = race(lambda _, token=pair["refreshToken"]: refresh(token), 10)
        assert all(a.status_code < 500 for a in answers), [(a.status_code, a.text) for a in answers]
        refused = {a.json()["data"]["code"] for a in answers if a.status_code != 200}
        assert all(400 <= a.status_code < 500 for a in answers if a.status_code != 200)
        assert None not in refused, refused
        pairs = {json.dumps(a.json()["data"], sort_keys=True) for a in answers if a.status_code == 200}
        assert len(pairs) == 1, f"round {round_}: {len(pairs)} different pairs"
        pair = json.loads(pairs.pop())
        session = requests.get(
            f"{api}/api/v1/auth/session",
            headers={"Authorization": f"Bearer {pair['accessToken']}", "x-client-secret": secret},
            timeout=10,
        )
        assert session.status_code == 200, session.text


@pytest.fixture
def receiver() -> Iterator[tuple[str, list[tuple[dict[str, str], bytes]]]]:
    received: list[tuple[dict[str, str], bytes]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            received.append((dict(self.headers), self.rfile.read(int(self.headers["Content-Length"]))))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/hook", received
    finally:
        server.shutdown()


def test_six_parallel_webhook_tests_are_each_queued_once_and_delivered_signed(stack, receiver):
    info = stack["info"]
    url, received = receiver
    put = signed(info, "PUT", "/api/v1/webhooks/settings", json.dumps({"url": url}).encode(), timestamp=now_us())
    assert put.status_code == 200, put.text
    answers = race(lambda _: post(info, "/api/v1/webhooks/test"), 6)
    assert [a.status_code for a in answers] == [200] * 6, [a.text for a in answers]
    queued = {a.json()["data"]["id"]: a.json()["data"]["deliveryId"] for a in answers}
    assert len(queued) == 6 and len(set(queued.values())) == 6

    def arrived() -> set[str]:
        return {h["X-Service-Event-Id"] for h, _ in list(received)} & set(queued)

    assert wait_for(arrived, lambda ids: ids == set(queued), 60, lambda: time.sleep(0.5)) == set(queued)
    key = signed(info, "GET", "/api/v1/webhooks/public-key").json()["data"]["publicKey"]
    public = Ed25519PublicKey.from_public_bytes(base64.b64decode(key))
    ours = [(h, raw) for h, raw in list(received) if h["X-Service-Event-Id"] in queued]
    assert sorted(h["X-Service-Event-Id"] for h, _ in ours) == sorted(queued)  # each once
    for headers, raw in ours:
        content = f"{headers['X-Service-Event-Id']}.{headers['X-Service-Timestamp']}.".encode() + raw
        public.verify(base64.b64decode(headers["X-Service-Signature"]), content)

    listed = signed(info, "GET", "/api/v1/webhooks/deliveries?limit=100")
    assert listed.status_code == 200, listed.text
    deliveries = [d["id"] for d in listed.json()["data"]["data"]]
    assert len(deliveries) == len(set(deliveries))  # no record listed twice
    assert set(queued.values()) <= set(deliveries)
