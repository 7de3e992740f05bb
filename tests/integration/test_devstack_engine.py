"""The transaction engine against the local stack (`make dev`), over HTTP with the MPC signer and the stack's own
tracker worker: a lost nonce filled with no further send, a priced-out transaction re-priced and mined once,
speed-up and cancel. Effects are checked on anvil.

The test stack re-prices after DOMPET_TX_BUMP_AFTER_S=3 and fills gaps after DOMPET_NONCE_GAP_FILL_S=3
(tests/conftest.py). A stuck transaction is made as on a real chain: automine off, the transaction sent, the next
base fee raised above its fee cap and a block mined (anvil then drops it), automine on again.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pytest
import requests
from eth_account import Account
from web3 import Web3

from tests.support.operator import stack_table

pytestmark = pytest.mark.integration

SETTLED_WITHIN_S = 90


@dataclass(frozen=True)
class Wallet:
    address: str
    token: str


class Api:
    def __init__(self, stack: dict[str, Any]) -> None:
        self.info = stack["info"]
        self.url = self.info["apiUrl"]
        self.secret = self.info["demo"]["clientSecret"]
        self.network = self.info["networks"][0]
        self.w3 = Web3(Web3.HTTPProvider(self.network["rpcUrl"]))

    def call(self, method: str, path: str, token: str | None = None, body: Any = None, **headers: str) -> Any:
        sent = {"x-client-secret": self.secret, **({"Authorization": f"Bearer {token}"} if token else {}), **headers}
        return requests.request(method, self.url + path, headers=sent, json=body, timeout=120)

    def wallet(self) -> Wallet:
        access = self.call("POST", "/api/v1/auth/login", body={"subId": f"engine-{Account.create().address[2:12]}"})
        created = self.call("POST", "/api/v1/account/create", access.json()["data"]["accessToken"], {})
        assert created.status_code == 200, created.text
        data = created.json()["data"]
        self.rpc("anvil_setBalance", data["address"], hex(10**19))
        return Wallet(data["address"], data["walletToken"])

    def send(self, wallet: Wallet, to: str, amount: str) -> dict[str, Any]:
        body = {"network": self.network["name"], "to": to, "amount": amount}
        answer = self.call("POST", "/api/v1/wallet/send-coin", wallet.token, body)
        assert answer.status_code == 200, answer.text
        return dict(answer.json()["data"]["txReceipt"])

    def record(self, wallet: Wallet, tx_hash: str) -> dict[str, Any]:
        answer = self.call("GET", f"/api/v1/wallet/transactions/{tx_hash}", wallet.token)
        assert answer.status_code == 200, answer.text
        return dict(answer.json()["data"])

    def settled(self, wallet: Wallet, tx_hash: str) -> dict[str, Any]:
        ends = time.monotonic() + SETTLED_WITHIN_S
        while time.monotonic() < ends:
            record = self.record(wallet, tx_hash)
            if record["status"] not in ("signing", "pending"):
                return record
            time.sleep(0.5)
        raise AssertionError(f"{tx_hash} still {record['status']}: {record}")

    def rpc(self, method: str, *params: object) -> Any:
        answer = self.w3.provider.make_request(method, list(params))  # type: ignore[arg-type]
        assert "error" not in answer, answer
        return answer.get("result")

    def base_fee(self) -> int:
        return int(self.w3.eth.get_block("latest")["baseFeePerGas"])

    @contextmanager
    def stuck(self) -> Iterator[None]:
        """Transactions sent inside are priced out when it ends: the next block's base fee is raised above the
        highest fee cap the node saw, and that block mined (the `api` fixture puts the base fee back after the
        test: the stack's chain is shared with the other suites)."""
        self.rpc("evm_setAutomine", False)
        try:
            yield
            pending = self.rpc("txpool_content")["pending"]
            caps = [int(tx["maxFeePerGas"], 16) for by_nonce in pending.values() for tx in by_nonce.values()]
            self.rpc("anvil_setNextBlockBaseFeePerGas", hex(3 * max(caps)))
            self.rpc("evm_mine")
        finally:
            self.rpc("evm_setAutomine", True)

    @contextmanager
    def held(self) -> Iterator[None]:
        """Nothing is mined inside (the tracker's own re-pricing waits in the pool too, however slow the machine);
        at the end one block takes what the pool has."""
        self.rpc("evm_setAutomine", False)
        try:
            yield
        finally:
            self.rpc("evm_setAutomine", True)
            self.rpc("evm_mine")


@pytest.fixture
def api(stack: dict[str, Any]) -> Iterator[Api]:
    api = Api(stack)
    before = api.base_fee()
    yield api
    api.rpc("anvil_setNextBlockBaseFeePerGas", hex(before))
    api.rpc("evm_mine")


def test_a_nonce_lost_by_a_dead_request_is_filled_with_no_further_send(stack, api):
    """A send that died holding nonce 0 (its lease still running) while a later send took nonce 1: nothing more is
    sent from the wallet; once the lease is past its time the tracker of nonce 1 fills nonce 0 with a gap fill,
    and both are mined."""
    wallet = api.wallet()
    chain_id = api.network["chainId"]
    dead_until = int(time.time()) + 4
    dead_lease = f"0:{dead_until}:dead"
    stack_table(stack, "nonces").put_item(
        Item={"pk": f"NONCE#{wallet.address}#{chain_id}", "sk": "NONCE", "next": 1, "inflight": {dead_lease}}
    )
    recipient = Account.create().address
    sent = api.send(wallet, recipient, "0.25")
    assert sent["nonce"] == 1
    assert api.settled(wallet, sent["hash"])["status"] == "mined"
    assert api.w3.eth.get_balance(recipient) == 25 * 10**16
    assert api.w3.eth.get_transaction_count(wallet.address) == 2
    listed = api.call("GET", "/api/v1/wallet/transactions?limit=10", wallet.token).json()["data"]["data"]
    [fill] = [t for t in listed if t["kind"] == "gap_fill"]
    assert fill["nonce"] == 0 and fill["to"] == wallet.address and fill["value"] == "0"
    assert api.settled(wallet, fill["hash"])["status"] == "mined"
    assert api.w3.eth.get_transaction(fill["hash"])["value"] == 0


def test_a_priced_out_send_is_re_priced_and_mined_once(api):
    wallet = api.wallet()
    recipient = Account.create().address
    with api.stuck():
        sent = api.send(wallet, recipient, "0.5")
    record = api.settled(wallet, sent["hash"])
    assert record["status"] == "mined" and record["minedHash"] != sent["hash"]
    assert [r["reason"] for r in record["replacements"]][-1] == "bump"
    assert record["minedHash"] == record["replacements"][-1]["hash"]
    assert record["txReceipt"] == {**sent, "gasPrice": record["txReceipt"]["gasPrice"]}  # the send's answer stands
    mined = api.w3.eth.get_transaction(record["minedHash"])
    assert mined["nonce"] == sent["nonce"] and mined["maxFeePerGas"] > int(sent["maxFeePerGas"])
    assert api.w3.eth.get_balance(recipient) == 5 * 10**17  # paid once
    assert api.record(wallet, record["minedHash"])["hash"] == sent["hash"]  # any hash answers the one record


def test_speed_up_and_cancel_over_http(api):
    wallet = api.wallet()
    paid, cancelled_to = Account.create().address, Account.create().address
    with api.stuck():
        first = api.send(wallet, paid, "0.1")
        second = api.send(wallet, cancelled_to, "0.2")
    # The tracker re-prices them after 3 s (within its ceiling, below what the integrator offers); held, nothing is
    # mined before the integrator's speed-up and cancel are in the pool, however slow the machine is.
    cap, tip = int(first["maxFeePerGas"]), int(first["maxPriorityFeePerGas"])
    with api.held():
        low = api.call(
            "POST",
            f"/api/v1/wallet/transactions/{first['hash']}/speed-up",
            wallet.token,
            {"maxFeePerGas": str(cap + 1), "maxPriorityFeePerGas": str(tip + 1)},
        )
        assert low.status_code == 409 and low.json()["data"]["code"] == "REPLACEMENT_UNDERPRICED", low.text
        faster = api.call(
            "POST",
            f"/api/v1/wallet/transactions/{first['hash']}/speed-up",
            wallet.token,
            {"maxFeePerGas": str(cap * 12), "maxPriorityFeePerGas": str(tip * 2)},
            **{"Idempotency-Key": f"speed-{first['hash'][:12]}"},
        )
        assert faster.status_code == 200, faster.text
        receipt = faster.json()["data"]["txReceipt"]
        assert receipt["nonce"] == first["nonce"] and receipt["maxFeePerGas"] == str(cap * 12)
        cancel = api.call("POST", f"/api/v1/wallet/transactions/{second['hash']}/cancel", wallet.token, {})
        assert cancel.status_code == 200, cancel.text
        no_op = cancel.json()["data"]["txReceipt"]
        assert no_op["to"] == wallet.address and no_op["value"] == "0" and no_op["nonce"] == second["nonce"]

    assert api.settled(wallet, first["hash"])["status"] == "mined"
    done = api.settled(wallet, second["hash"])
    assert done["status"] == "cancelled" and done["minedHash"] in {r["hash"] for r in done["replacements"]}
    assert api.w3.eth.get_balance(paid) == 10**17
    assert api.w3.eth.get_balance(cancelled_to) == 0  # the cancelled payment never happened
    again = api.call("POST", f"/api/v1/wallet/transactions/{first['hash']}/speed-up", wallet.token, {})
    assert again.status_code == 409 and again.json()["data"]["code"] == "TRANSACTION_FINAL"
