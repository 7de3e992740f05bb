"""Gas sponsorship policies and gas-tank alerts over HTTP against the local stack (`make dev`, the session's `stack`
fixture), with real user operations through Alto on anvil: each cap refuses the operation it should (403
SPONSORSHIP_DENIED naming the rule; nothing charged, nothing sent), concurrent submits of one owner never pass a
cap, the check endpoint consumes nothing, and every alert arrives signed, once per crossing."""

from __future__ import annotations

import base64
import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
import requests
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from eth_account import Account
from eth_account.messages import encode_defunct
from web3 import Web3

from tests.support import top_ups
from tests.support.devstack import evm_networks, signed
from tests.support.operator import operator

pytestmark = pytest.mark.integration
NETWORK = "local-a"


class Tenant:
    """A tenant of its own (the operator's create-tenant), calling the stack as its backend would."""

    def __init__(self, stack: dict[str, Any], name: str) -> None:
        issued = json.loads(operator(stack, "create-tenant", "--name", name))
        self.info = {**stack["info"], "demo": issued}
        network = next(n for n in stack["info"]["networks"] if n["name"] == NETWORK)
        self.chain_id = network["chainId"]
        self.w3 = Web3(Web3.HTTPProvider(network["rpcUrl"]))
        self.chains = {"entries": evm_networks(stack["info"]), "w3": {self.chain_id: self.w3}}

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> requests.Response:
        return signed(self.info, method, path, json.dumps(body).encode() if body is not None else b"")

    def ok(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        answer = self.call(method, path, body)
        assert answer.status_code == 200, answer.text
        return answer.json().get("data")

    def top_up(self, usdt: int, owner_id: str | None = None) -> None:
        tx_hash, sender = top_ups.transfer(self.chains, self.chain_id, usdt)
        body = top_ups.request(self.chains, self.chain_id, tx_hash, sender)
        if owner_id is None:
            self.ok("POST", "/api/v1/client/gasTank/topUp", body)
        else:
            self.ok("POST", "/api/v1/smart-account/topUp", {**body, "receiverOwnerId": owner_id})

    def tank(self) -> int:
        return int(self.ok("GET", "/api/v1/client/gasTank")["balance"])

    def owner(self) -> Owner:
        key = Account.create()
        created = self.ok("POST", "/api/v1/smart-account", {"owner": {"id": key.address, "provider": "wallet"}})
        account = next(a for a in created["accounts"] if a["network"] == NETWORK)
        self.w3.provider.make_request("anvil_setBalance", [account["aaAddress"], hex(10**18)])
        return Owner(key, created["id"], account["id"], account["aaAddress"])

    def hashed(self, owner: Owner, to: str, amount: int = 1000) -> dict[str, Any]:
        body = {"accountId": owner.account_id, "to": to, "amount": str(amount)}
        return dict(self.ok("POST", "/api/v1/userOp/sendCoin/hash", body))

    def submit(self, owner: Owner, hashed: dict[str, Any], sponsored: bool = True) -> requests.Response:
        signature = owner.key.sign_message(encode_defunct(hexstr=hashed["hash"])).signature.hex()
        body = {
            "userOpId": hashed["userOpId"],
            "hash": hashed["hash"],
            "signature": "0x" + signature.removeprefix("0x"),
            "isSponsored": sponsored,
        }
        return self.call("POST", "/api/v1/userOp/submit", body)

    def settled(self, user_op_id: str, timeout_s: float = 90) -> dict[str, Any]:
        deadline = time.monotonic() + timeout_s
        while True:
            op = self.ok("GET", f"/api/v1/userOp/{user_op_id}")
            if op["status"] in ("success", "failed"):
                return dict(op)
            assert time.monotonic() < deadline, f"user operation {user_op_id} still {op['status']}"
            time.sleep(0.5)

    def sponsored_op(self, owner: Owner, to: str, hashed: dict[str, Any] | None = None) -> dict[str, Any]:
        """One sponsored operation (or the one `hashed`), submitted, settled `success` and mined on anvil."""
        answer = self.submit(owner, hashed or self.hashed(owner, to))
        assert answer.status_code == 200, answer.text
        op = self.settled(answer.json()["data"]["id"])
        assert op["status"] == "success" and op["payer"] == "organization", op
        receipt = self.w3.eth.get_transaction_receipt(op["txHash"])
        assert receipt["status"] == 1
        return op

    def denied(self, owner: Owner, rule: str, to: str | None = None) -> dict[str, Any]:
        """A sponsored submit refused by `rule`: nothing charged, the operation still `created`."""
        before = self.tank()
        hashed = self.hashed(owner, to or Account.create().address)
        answer = self.submit(owner, hashed)
        assert answer.status_code == 403, answer.text
        assert answer.json()["data"] == {"code": "SPONSORSHIP_DENIED", "rule": rule}, answer.text
        assert self.tank() == before
        assert self.ok("GET", f"/api/v1/userOp/{hashed['userOpId']}")["status"] == "created"
        return hashed

    def check(self, owner: Owner, to: str) -> dict[str, Any]:
        body = {"accountId": owner.account_id, "to": to, "value": "1000", "callData": "0x"}
        return dict(self.ok("POST", "/api/v1/userOp/sponsorship/check", body))

    def check_op(self, hashed: dict[str, Any]) -> dict[str, Any]:
        return dict(self.ok("POST", "/api/v1/userOp/sponsorship/check", {"userOpId": hashed["userOpId"]}))

    def policy(self, document: dict[str, Any]) -> None:
        stored = self.ok("PUT", "/api/v1/client/gasTank/policy", document)
        assert stored["policy"] is not None and stored["updatedAt"]


class Owner:
    def __init__(self, key: Any, owner_id: str, account_id: str, address: str) -> None:
        self.key, self.id, self.account_id, self.address = key, owner_id, account_id, address


class Receiver:
    """A webhook receiver on loopback that keeps what arrives."""

    def __init__(self) -> None:
        received = self.received = []

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                received.append((dict(self.headers), self.rfile.read(int(self.headers["Content-Length"]))))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def events(self, tenant: Tenant, kind: str) -> list[dict[str, Any]]:
        """Every event of `kind` received so far, each verified with the webhook public key (once per event id)."""
        key = tenant.ok("GET", "/api/v1/webhooks/public-key")["publicKey"]
        seen: dict[str, dict[str, Any]] = {}
        for headers, raw in list(self.received):
            event = json.loads(raw)
            content = f"{event['id']}.{headers['X-Service-Timestamp']}.".encode() + raw
            Ed25519PublicKey.from_public_bytes(base64.b64decode(key)).verify(
                base64.b64decode(headers["X-Service-Signature"]), content
            )
            assert headers["X-Service-Event-Id"] == event["id"]
            if event["type"] == kind:
                seen[event["id"]] = event
        return list(seen.values())

    def wait(self, tenant: Tenant, kind: str, count: int, timeout_s: float = 60) -> list[dict[str, Any]]:
        deadline = time.monotonic() + timeout_s
        while len(found := self.events(tenant, kind)) < count:
            assert time.monotonic() < deadline, f"{len(found)} {kind} events, expected {count}"
            time.sleep(0.5)
        return found


def test_sponsorship_policies_bound_what_the_organization_pays(stack):
    tenant = Tenant(stack, "Sponsorship caps")
    tenant.top_up(50_000_000)  # 50 USDT
    alice, bob = tenant.owner(), tenant.owner()
    recipient = Account.create().address

    # The check endpoint: what it would cost, and nothing counted.
    first = tenant.check(alice, recipient)
    assert first["sponsored"] is True and first["rule"] is None
    cost = int(first["requiredGasTankBalance"])
    assert cost > 0 and int(first["gasTankBalance"]) == tenant.tank()
    assert tenant.ok("GET", "/api/v1/client/gasTank/policy") == {"policy": None, "updatedAt": None}
    for body, code in (
        ({"accountId": alice.account_id, "to": recipient, "value": "9" * 78}, "INVALID_AMOUNT"),
        ({"userOpId": "x", "accountId": alice.account_id, "to": recipient}, "VALIDATION_ERROR"),
        ({"userOpId": "00000000-0000-4000-8000-000000000000"}, "USER_OP_NOT_FOUND"),
    ):
        bad = tenant.call("POST", "/api/v1/userOp/sponsorship/check", body)
        assert bad.status_code in (400, 404) and bad.json()["data"]["code"] == code, bad.text

    # Count per owner per day: two sponsored, the third refused; another owner is unaffected.
    tenant.policy({"perOwner": {"maxCountPerDay": 2}})
    assert tenant.check(alice, recipient)["remaining"]["perOwner"]["countPerDay"] == 2
    for _ in range(2):
        tenant.sponsored_op(alice, recipient)
    assert tenant.w3.eth.get_balance(recipient) == 2000  # on chain
    tenant.denied(alice, "perOwner.maxCountPerDay")
    refused = tenant.check(alice, recipient)
    assert (refused["sponsored"], refused["rule"]) == (False, "perOwner.maxCountPerDay")
    assert refused["remaining"]["perOwner"]["countPerDay"] == 0
    again = tenant.check(alice, recipient)  # a check counts nothing
    assert (again["rule"], again["remaining"]) == (refused["rule"], refused["remaining"])
    tenant.sponsored_op(bob, recipient)
    # Not sponsored: the owner's own tank pays, whatever the organization's policy says.
    tenant.top_up(5_000_000, owner_id=alice.id)
    unsponsored = tenant.submit(alice, tenant.hashed(alice, recipient), sponsored=False)
    assert unsponsored.status_code == 200, unsponsored.text
    assert tenant.settled(unsponsored.json()["data"]["id"])["payer"] == "owner"

    # Amount per owner per day, counted from the usage history's settled charges (the refunds taken back).
    carol = tenant.owner()
    tenant.policy({})
    first_op = tenant.sponsored_op(carol, recipient)  # deploys the account

    def charged(op: dict[str, Any]) -> int:
        usage = tenant.ok("GET", "/api/v1/gasTank/organization/usage/history?limit=100")["data"]
        [amount] = [int(u["amountInGasTank"]) for u in usage if u["userOpId"] == op["id"]]
        return amount

    hashed = tenant.hashed(carol, recipient)
    cost = int(tenant.check_op(hashed)["requiredGasTankBalance"])  # what its submit reserves
    cap = charged(first_op) + cost
    tenant.policy({"perOwner": {"maxPerDay": str(cap)}})
    second_op = tenant.sponsored_op(carol, recipient, hashed)  # its maximum fits exactly
    assert 0 < charged(second_op) < cost  # settled below its reservation
    left = tenant.check_op(tenant.hashed(carol, recipient))
    assert left["remaining"]["perOwner"]["perDay"] == str(cap - charged(first_op) - charged(second_op))
    assert (left["sponsored"], left["rule"]) == (False, "perOwner.maxPerDay")
    tenant.denied(carol, "perOwner.maxPerDay")

    # Per operation, per day in total, networks, contracts, the activation window.
    dave = tenant.owner()
    cost = int(tenant.check(dave, recipient)["requiredGasTankBalance"])
    tenant.policy({"perOperation": {"max": str(cost // 2)}})
    tenant.denied(dave, "perOperation.max")
    usage = tenant.ok("GET", "/api/v1/gasTank/organization/usage/history?limit=100")["data"]
    spent = sum(int(u["amountInGasTank"]) for u in usage)
    tenant.policy({"total": {"maxPerDay": str(spent + cost // 2)}})
    tenant.denied(dave, "total.maxPerDay")
    tenant.policy({"networks": ["local-b"]})
    tenant.denied(dave, "networks")
    tenant.policy({"contracts": [{"address": Account.create().address}]})
    tenant.denied(dave, "contracts")
    tenant.policy({"contracts": [{"address": recipient, "selectors": ["0xa9059cbb"]}]})
    tenant.denied(dave, "contracts", to=recipient)  # a plain transfer calls no function
    tenant.policy({"contracts": [{"address": recipient}], "networks": [NETWORK]})
    tenant.sponsored_op(dave, recipient)
    later = (datetime.now(UTC) + timedelta(days=1)).isoformat().replace("+00:00", "Z")
    tenant.policy({"activeFrom": later})
    tenant.denied(dave, "activeFrom")
    earlier = (datetime.now(UTC) - timedelta(days=1)).isoformat().replace("+00:00", "Z")
    tenant.policy({"activeUntil": earlier})
    tenant.denied(dave, "activeUntil")
    bad = tenant.call("PUT", "/api/v1/client/gasTank/policy", {"networks": ["nowhere"]})
    assert bad.status_code == 400 and bad.json()["data"]["code"] == "UNKNOWN_NETWORK"
    stored = tenant.ok("GET", "/api/v1/client/gasTank/policy")["policy"]
    assert {name for name, value in stored.items() if value is not None} == {"activeUntil"}
    assert datetime.fromisoformat(stored["activeUntil"]) == datetime.fromisoformat(earlier)

    # Ten concurrent submits of one owner with three left of its count: exactly three pass.
    erin = tenant.owner()
    tenant.policy({})
    tenant.sponsored_op(erin, recipient)  # deploys the account: each of the ten can then be included
    tenant.policy({"perOwner": {"maxCountPerDay": 4}})
    hashed = [tenant.hashed(erin, recipient) for _ in range(10)]
    before = tenant.w3.eth.get_balance(recipient)
    with ThreadPoolExecutor(10) as pool:
        answers = list(pool.map(lambda h: tenant.submit(erin, h), hashed))
    codes = sorted(a.status_code for a in answers)
    assert codes == [200] * 3 + [403] * 7, [a.text for a in answers]
    for answer in answers:
        if answer.status_code == 200:
            assert tenant.settled(answer.json()["data"]["id"])["status"] == "success"
        else:
            assert answer.json()["data"]["rule"] == "perOwner.maxCountPerDay"
    assert tenant.w3.eth.get_balance(recipient) - before == 3000  # on chain: three transfers


def test_gas_tank_alerts_arrive_signed_once_per_crossing(stack):
    tenant = Tenant(stack, "Gas tank alerts")
    receiver = Receiver()
    try:
        assert tenant.call("PUT", "/api/v1/webhooks/settings", {"url": receiver.url}).status_code == 200
        tenant.top_up(20_000_000)
        [topped] = receiver.wait(tenant, "gasTank.topped_up", 1)
        assert topped["data"]["creditedInGasTank"] == str(20_000_000 * 10**12) and topped["apiVersion"]
        owner = tenant.owner()
        recipient = Account.create().address
        threshold = tenant.tank() - 1
        settings = tenant.ok("PUT", "/api/v1/client/gasTank/settings", {"lowBalanceThreshold": str(threshold)})
        assert settings["lowBalanceThreshold"] == str(threshold) and settings["lowAlerted"] is False

        # The first spend crosses: one alert; the next, still below, none.
        op = tenant.sponsored_op(owner, recipient)
        [alert] = receiver.wait(tenant, "gasTank.low_balance", 1)
        balance = tenant.tank()
        assert alert["data"]["balance"] == str(balance) and alert["data"]["threshold"] == str(threshold)
        assert alert["data"]["kind"] == "organization" and int(alert["data"]["spentLast24h"]) > 0
        tenant.sponsored_op(owner, recipient)
        time.sleep(3)
        assert len(receiver.events(tenant, "gasTank.low_balance")) == 1
        assert tenant.ok("GET", "/api/v1/client/gasTank/settings")["lowAlerted"] is True

        # A top-up lifts the balance to the threshold: armed again, and the next spend crosses again.
        below = threshold - tenant.tank()
        tenant.top_up(-(-below // 10**12))  # just enough 6-decimal USDT
        receiver.wait(tenant, "gasTank.topped_up", 2)
        assert tenant.tank() >= threshold
        assert tenant.ok("GET", "/api/v1/client/gasTank/settings")["lowAlerted"] is False
        tenant.sponsored_op(owner, recipient)
        alerts = receiver.wait(tenant, "gasTank.low_balance", 2)
        assert len({a["id"] for a in alerts}) == 2 and op

        # An owner's tank has the same setting.
        tenant.top_up(1_000_000, owner_id=owner.id)
        receiver.wait(tenant, "gasTank.topped_up", 3)
        own = tenant.ok("GET", f"/api/v1/smart-account/{owner.id}")
        owner_tank = int(own["gasTanks"][0]["balance"])
        path = f"/api/v1/smart-account/{owner.id}/gasTank/settings"
        assert tenant.ok("PUT", path, {"lowBalanceThreshold": str(owner_tank - 1)})["lowAlerted"] is False
        paid = tenant.submit(owner, tenant.hashed(owner, recipient), sponsored=False)
        assert paid.status_code == 200, paid.text
        tenant.settled(paid.json()["data"]["id"])
        owners = [a for a in receiver.wait(tenant, "gasTank.low_balance", 3) if a["data"]["kind"] == "owner"]
        assert len(owners) == 1 and owners[0]["data"]["threshold"] == str(owner_tank - 1)
        missing = tenant.call(
            "PUT", "/api/v1/smart-account/0x" + "00" * 20 + "/gasTank/settings", {"lowBalanceThreshold": None}
        )
        assert missing.status_code == 404 and missing.json()["data"]["code"] == "OWNER_NOT_FOUND"

        # Refusals: one event per owner and rule in an hour.
        tenant.policy({"perOperation": {"max": "1"}})
        for _ in range(2):
            tenant.denied(owner, "perOperation.max")
        tenant.policy({"networks": ["local-b"]})
        tenant.denied(owner, "networks")
        refusals = receiver.wait(tenant, "gasTank.sponsorship_denied", 2)
        time.sleep(2)
        refusals = receiver.events(tenant, "gasTank.sponsorship_denied")
        assert sorted(r["data"]["rule"] for r in refusals) == ["networks", "perOperation.max"]
        assert {r["data"]["ownerId"] for r in refusals} == {owner.id}
    finally:
        receiver.server.shutdown()
