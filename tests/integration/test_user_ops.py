"""User operations end to end: the service builds, the owner signs with eth-account, the service charges the gas
tank and submits to Alto, the tracker settles; effects checked on chain, charges and refunds exact."""

from __future__ import annotations

import json
import time

import pytest
from eth_account import Account

from chalicelib.gas_tanks import charges
from chalicelib.platform import aws, networks, settings
from chalicelib.platform.invocation import running_as
from chalicelib.user_ops import build
from chalicelib.user_ops import settlement as tracking
from tests.support import top_ups
from tests.support.family_s import call
from tests.support.scripts import ROOT
from tests.support.user_ops import (
    new_owner,
    op_item,
    run_user_op,
    settle,
    sign,
    submit,
    submitted,
    top_ups_bundler,
    user_op_stack,  # noqa: F401 (the `stack` fixture)
)

pytestmark = pytest.mark.integration
USER_OPERATION_EVENT = "0x49628fd1471006c1482da88028e9ce4dbb080b815c9b0344d39e5a8e6ec1419f"


def tank_balance(api, tenant, record):
    return int(
        call(api, tenant, "GET", f"/api/v1/smart-account/{record['id']}").json_body["data"]["gasTanks"][0]["balance"]
    )


def test_a_coin_transfer_deploys_the_account_and_charges_exactly(api, tenant, stack, monkeypatch):
    owner, record, account = new_owner(api, tenant, stack)
    w3, recipient = stack["w3"], Account.create().address
    w3.provider.make_request("anvil_setBalance", [account["aaAddress"], hex(10**18)])
    body = {"accountId": account["id"], "to": recipient, "amount": str(10**17)}
    estimate = call(api, tenant, "POST", "/api/v1/userOp/sendCoin/estimate", body)
    assert estimate.status_code == 200, estimate.json_body
    assert estimate.json_body["data"]["decimal"] == 18 and int(estimate.json_body["data"]["requiredNative"]) > 0
    hashed = call(api, tenant, "POST", "/api/v1/userOp/sendCoin/hash", body)
    assert hashed.status_code == 200, hashed.json_body
    result = hashed.json_body["data"]
    before = tank_balance(api, tenant, record)
    op = submitted(api, tenant, owner, result)
    assert op["status"] == "on_process" and op["sentAt"] and op["payer"] == "owner" and op["bundlerVersion"] == "0.7"
    deducted = before - tank_balance(api, tenant, record)
    assert deducted > 0

    settled = settle(result["userOpId"])
    assert settled["status"] == "success" and settled["txHash"]
    assert w3.eth.get_balance(recipient) == 10**17  # on chain
    assert w3.eth.get_code(account["aaAddress"])  # the first operation deployed the account
    receipt = w3.eth.get_transaction_receipt(settled["txHash"])
    events = [log for log in receipt["logs"] if log["topics"][0].hex().removeprefix("0x") == USER_OPERATION_EVENT[2:]]
    assert ["0x" + events[0]["topics"][1].hex().removeprefix("0x")] == [result["hash"]]
    # Exact charge: the actual gas cost at the rate (plus fees), the rest refunded.
    bundler_receipt = top_ups_bundler(stack, result["hash"])
    actual = charges.charge(networks.registry().by_chain_id(31337), int(bundler_receipt["actualGasCost"], 16))
    assert before - tank_balance(api, tenant, record) == actual.total
    usage = call(api, tenant, "GET", f"/api/v1/smart-account/{record['id']}/usage/history").json_body["data"]["data"][0]
    assert int(usage["refundedAmountInGasTank"]) == deducted - actual.total
    assert usage["amountInGasTank"] == str(actual.total) and usage["userOpId"] == result["userOpId"]
    view = call(api, tenant, "GET", f"/api/v1/smart-account/{record['id']}").json_body["data"]
    assert next(a for a in view["accounts"] if a["id"] == account["id"])["status"] == "deployed"
    listed = call(api, tenant, "GET", "/api/v1/userOp").json_body["data"]
    assert listed["data"][0]["id"] == result["userOpId"] and listed["data"][0]["clientGasTankUsageHistory"]["userOpId"]
    assert _event(result["userOpId"], "success")["status"] == "success"  # the outbox event, same transaction

    # Once the account is known to be deployed, building asks the node nothing (no eth_getCode) and adds no factory.
    def no_node(network, method, params):
        raise AssertionError(f"asked the node {method}")

    monkeypatch.setattr(build, "_node", no_node)
    again = call(api, tenant, "POST", "/api/v1/userOp/sendCoin/hash", body)
    assert again.status_code == 200, again.json_body
    stored = op_item(again.json_body["data"]["userOpId"])
    assert "factory" not in json.loads(stored["op"]) and stored["deploys"] is False


def test_refusals_charge_nothing(api, tenant, stack):
    owner, record, account = new_owner(api, tenant, stack)
    poor_owner, _poor, poor_account = new_owner(api, tenant, stack, fund_usdt=0)
    for funded in (account, poor_account):  # the coin the operations send
        stack["w3"].provider.make_request("anvil_setBalance", [funded["aaAddress"], hex(10**18)])
    body = {"accountId": account["id"], "to": Account.create().address, "amount": "1"}
    result = call(api, tenant, "POST", "/api/v1/userOp/sendCoin/hash", body).json_body["data"]
    before = tank_balance(api, tenant, record)

    def attempt(signature, op_hash=None, user_op_id=None, app=tenant):
        body = {
            "userOpId": user_op_id or result["userOpId"],
            "hash": op_hash or result["hash"],
            "signature": signature,
            "isSponsored": False,
        }
        return call(api, app, "POST", "/api/v1/userOp/submit", body)

    assert attempt(sign(owner, result["hash"]), op_hash="0x" + "00" * 32).json_body["data"]["code"] == "HASH_MISMATCH"
    assert attempt(sign(owner, result["hash"]), user_op_id="nope").status_code == 404
    from chalicelib.platform import clock
    from chalicelib.tenancy import service as tenancy

    other_app = attempt(sign(owner, result["hash"]), app=tenancy.create_tenant("Other"))
    assert other_app.status_code == 404 and other_app.json_body["data"]["code"] == "USER_OP_NOT_FOUND"
    later = clock.epoch() + 3600  # the service's view of time only: the request signature stays current
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("chalicelib.user_ops.service.epoch", lambda: later)
        expired = attempt(sign(owner, result["hash"]))
    assert expired.status_code == 422 and expired.json_body["data"]["code"] == "USER_OP_EXPIRED"
    wrong = attempt(sign(Account.create(), result["hash"]))
    assert wrong.status_code == 400 and wrong.json_body["data"]["code"] == "INVALID_USER_OP_SIGNATURE"
    assert call(api, tenant, "GET", f"/api/v1/userOp/{result['userOpId']}").json_body["data"]["status"] == "failed"
    again = attempt(sign(owner, result["hash"]))
    assert again.status_code == 409 and again.json_body["data"]["code"] == "USER_OP_ALREADY_SUBMITTED"
    assert tank_balance(api, tenant, record) == before

    poor_body = {"accountId": poor_account["id"], "to": Account.create().address, "amount": "1"}
    poor_answer = call(api, tenant, "POST", "/api/v1/userOp/sendCoin/hash", poor_body)
    assert poor_answer.status_code == 200, poor_answer.json_body
    poor_result = poor_answer.json_body["data"]
    empty = submit(api, tenant, poor_owner, poor_result)
    assert empty.status_code == 422 and empty.json_body["data"]["code"] == "INSUFFICIENT_GAS_TANK_BALANCE"
    assert (
        call(api, tenant, "GET", f"/api/v1/userOp/{poor_result['userOpId']}").json_body["data"]["status"] == "created"
    )


def _mint(stack, key, *args):
    from devtools import chain

    network, w3 = stack["network"], stack["w3"]
    name = {"erc20": "TestToken", "erc721": "TestNFT", "erc1155": "TestMultiToken"}[key]
    contract = w3.eth.contract(address=network["tokens"][key], abi=chain.load_artifact(name)["abi"])
    w3.eth.wait_for_transaction_receipt(contract.functions.mint(*args).transact({"from": w3.eth.accounts[0]}))
    return contract


def test_every_kind_moves_what_it_says_on_chain(api, tenant, stack):
    import secrets

    owner, _record, account = new_owner(api, tenant, stack)
    sender, recipient = account["aaAddress"], Account.create().address
    stack["w3"].provider.make_request("anvil_setBalance", [sender, hex(10**18)])
    token = _mint(stack, "erc20", sender, 5 * 10**18)
    nft_id, multi_id = secrets.randbits(64), secrets.randbits(64)
    nft = _mint(stack, "erc721", sender, nft_id)
    multi = _mint(stack, "erc1155", sender, multi_id, 10)
    tokens = stack["network"]["tokens"]
    mint_call = token.functions.mint(recipient, 3).build_transaction({"from": sender, "gas": 100_000})["data"]
    cases = [
        ("activate", {"accountId": account["id"]}),
        (
            "sendToken",
            {"accountId": account["id"], "tokenAddress": tokens["erc20"], "to": recipient, "amount": str(2 * 10**18)},
        ),
        (
            "sendERC721",
            {"accountId": account["id"], "tokenAddress": tokens["erc721"], "to": recipient, "tokenId": str(nft_id)},
        ),
        (
            "sendERC1155",
            {
                "accountId": account["id"],
                "tokenAddress": tokens["erc1155"],
                "to": recipient,
                "tokenId": str(multi_id),
                "amount": "4",
                "data": "0x",
            },
        ),
        ("signTransaction", {"accountId": account["id"], "to": tokens["erc20"], "value": "0", "callData": mint_call}),
    ]
    for kind, body in cases:
        result = run_user_op(api, tenant, owner, kind, body)
        assert settle(result["userOpId"])["status"] == "success", kind
    assert stack["w3"].eth.get_code(sender)
    assert token.functions.balanceOf(recipient).call() == 2 * 10**18 + 3
    assert nft.functions.ownerOf(nft_id).call() == recipient
    assert multi.functions.balanceOf(recipient, multi_id).call() == 4


def test_sponsored_operations_charge_the_organization(api, tenant, stack):
    owner, record, account = new_owner(api, tenant, stack, fund_usdt=0)
    stack["w3"].provider.make_request("anvil_setBalance", [account["aaAddress"], hex(10**18)])
    tx_hash, sender = top_ups.transfer(stack["chains"], 31337, 20 * 10**6)
    body = top_ups.request(stack["chains"], 31337, tx_hash, sender)
    assert call(api, tenant, "POST", "/api/v1/client/gasTank/topUp", body).status_code == 200
    before = int(call(api, tenant, "GET", "/api/v1/client/gasTank").json_body["data"]["balance"])
    result = run_user_op(
        api,
        tenant,
        owner,
        "sendCoin",
        {"accountId": account["id"], "to": Account.create().address, "amount": "5"},
        sponsored=True,
    )
    op = settle(result["userOpId"])
    assert op["status"] == "success" and op["payer"] == "organization"
    after = int(call(api, tenant, "GET", "/api/v1/client/gasTank").json_body["data"]["balance"])
    actual = charges.charge(
        networks.registry().by_chain_id(31337), int(top_ups_bundler(stack, result["hash"])["actualGasCost"], 16)
    )
    assert before - after == actual.total and tank_balance(api, tenant, record) == 0
    [usage] = call(api, tenant, "GET", "/api/v1/gasTank/organization/usage/history").json_body["data"]["data"]
    assert usage["userOpId"] == result["userOpId"] and "appId" not in usage and usage["serviceFeeInGasTank"] is not None


def test_a_reverted_call_settles_failed_with_a_refund(api, tenant, stack):
    owner, record, account = new_owner(api, tenant, stack)
    sender = account["aaAddress"]
    stack["w3"].provider.make_request("anvil_setBalance", [sender, hex(10**18)])
    token = _mint(stack, "erc20", sender, 10)
    body = {
        "accountId": account["id"],
        "tokenAddress": stack["network"]["tokens"]["erc20"],
        "to": Account.create().address,
        "amount": "10",
    }

    activation = call(api, tenant, "POST", "/api/v1/userOp/activate/hash", {"accountId": account["id"]}).json_body[
        "data"
    ]
    submitted(api, tenant, owner, activation)
    assert settle(activation["userOpId"])["status"] == "success"  # deployed: the next two carry no factory
    # Both are built (and simulated) while the balance is there; once the first moved it, the second reverts.
    hashes = [call(api, tenant, "POST", "/api/v1/userOp/sendToken/hash", body).json_body["data"] for _ in range(2)]

    submitted(api, tenant, owner, hashes[0])
    assert settle(hashes[0]["userOpId"])["status"] == "success"
    before = tank_balance(api, tenant, record)
    submitted(api, tenant, owner, hashes[1])
    deducted = before - tank_balance(api, tenant, record)
    failed = settle(hashes[1]["userOpId"])
    assert failed["status"] == "failed" and failed["failedReason"].startswith("execution reverted"), failed
    actual = charges.charge(
        networks.registry().by_chain_id(31337), int(top_ups_bundler(stack, hashes[1]["hash"])["actualGasCost"], 16)
    )
    assert (
        0 < actual.total < deducted and before - tank_balance(api, tenant, record) == actual.total
    )  # the rest refunded
    assert token.functions.balanceOf(sender).call() == 0


def test_ten_operations_built_at_once_for_one_account_all_succeed(api, tenant, stack):
    from concurrent.futures import ThreadPoolExecutor

    owner, _record, account = new_owner(api, tenant, stack)
    stack["w3"].provider.make_request("anvil_setBalance", [account["aaAddress"], hex(10**18)])
    recipient = Account.create().address
    first = run_user_op(api, tenant, owner, "sendCoin", {"accountId": account["id"], "to": recipient, "amount": "1"})
    assert settle(first["userOpId"])["status"] == "success"  # deployed: the ten need no factory
    body = {"accountId": account["id"], "to": recipient, "amount": "1"}
    with ThreadPoolExecutor(5) as pool:
        hashes = list(
            pool.map(
                lambda _: call(api, tenant, "POST", "/api/v1/userOp/sendCoin/hash", body).json_body["data"], range(10)
            )
        )
    for result in hashes:
        submitted(api, tenant, owner, result)
    assert [settle(r["userOpId"])["status"] for r in hashes] == ["success"] * 10
    assert stack["w3"].eth.get_balance(recipient) == 11


def test_a_submit_that_dies_after_the_debit_is_refunded_in_full_once(api, tenant, stack, monkeypatch):
    """Never sent: the tracker waits until the chain is past validUntil (no event, the nonce unused), then refunds
    everything, once, although its message is delivered twice."""
    from chalicelib.platform import transport

    owner, record, account = new_owner(api, tenant, stack)
    stack["w3"].provider.make_request("anvil_setBalance", [account["aaAddress"], hex(10**18)])
    short_lived(monkeypatch, stack["w3"])
    result = coin_hash(api, tenant, account)
    before = tank_balance(api, tenant, record)
    real = transport.rpc_call

    def dies_at_send(network, method, *args, **kwargs):
        if method == "eth_sendUserOperation":
            raise RuntimeError("the function was killed here")
        return real(network, method, *args, **kwargs)

    monkeypatch.setattr("chalicelib.user_ops.service.rpc_call", dies_at_send)
    assert submit(api, tenant, owner, result).status_code == 500
    monkeypatch.undo()
    assert tank_balance(api, tenant, record) < before  # debited, never sent
    assert check_after_expiry(result["userOpId"])["status"] == "on_process"  # the chain has not passed validUntil
    assert tank_balance(api, tenant, record) < before
    pass_valid_until(stack["w3"], result["validUntil"])
    for _ in range(2):  # a message delivered twice
        check_after_expiry(result["userOpId"])
    op = call(api, tenant, "GET", f"/api/v1/userOp/{result['userOpId']}").json_body["data"]
    assert op["status"] == "failed" and op["failedReason"].startswith("expired")
    assert tank_balance(api, tenant, record) == before  # refunded in full, once


def test_a_viem_permissionless_client_signs_what_the_service_built(api, tenant, stack):
    """viem + permissionless (Node) derive the same account address and userOpHash, and the signature their
    SimpleAccount signer makes is what submit accepts; the operation then succeeds on chain."""
    import subprocess

    owner, _record, account = new_owner(api, tenant, stack)
    stack["w3"].provider.make_request("anvil_setBalance", [account["aaAddress"], hex(10**18)])
    recipient = Account.create().address
    result = call(
        api,
        tenant,
        "POST",
        "/api/v1/userOp/sendCoin/hash",
        {"accountId": account["id"], "to": recipient, "amount": "7"},
    ).json_body["data"]
    stored = op_item(result["userOpId"])
    network = stack["network"]
    request = {
        "rpc": network["rpc"],
        "chainId": network["chainId"],
        "entryPoint": network["entryPoint"],
        "factory": network["accountFactory"],
        "ownerKey": "0x" + bytes(owner.key).hex(),
        "userOp": json.loads(stored["op"]),
    }
    done = subprocess.run(
        ["node", str(ROOT / "tests" / "support" / "viem_user_op.mjs")],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    client = json.loads(done.stdout)
    assert client["address"].lower() == account["aaAddress"].lower()
    assert client["userOpHash"] == result["hash"]
    body = {
        "userOpId": result["userOpId"],
        "hash": result["hash"],
        "signature": client["signature"],
        "isSponsored": False,
    }
    assert call(api, tenant, "POST", "/api/v1/userOp/submit", body).status_code == 200
    assert settle(result["userOpId"])["status"] == "success"
    assert stack["w3"].eth.get_balance(recipient) == 7


# --- The chain judges an operation the bundler has no receipt for; the tracker is never lost. ---

VALID_S = 30  # short-lived operations: validUntil this far ahead, so a test can put the chain past it


def coin_hash(api, tenant, account, to=None, amount="1"):
    """A sendCoin operation built (state `created`): {hash, userOpId, validUntil}."""
    body = {"accountId": account["id"], "to": to or Account.create().address, "amount": amount}
    answer = call(api, tenant, "POST", "/api/v1/userOp/sendCoin/hash", body)
    assert answer.status_code == 200, answer.json_body
    return answer.json_body["data"]


def short_lived(monkeypatch, w3, seconds=VALID_S):
    """Operations built from now on are valid for `seconds` (validUntil) instead of the setting's minutes, counted
    from the chain's time where it runs ahead of the wall clock (earlier tests move anvil's time forward, never
    back), so the chain is not already past validUntil."""
    from chalicelib.platform import clock

    lead = max(0, w3.eth.get_block("latest")["timestamp"] - clock.epoch())
    offset = settings.load_settings().user_op_valid_s - seconds - lead
    monkeypatch.setattr(build, "epoch", lambda: clock.epoch() - offset)


def pass_valid_until(w3, valid_until):
    """Mine a block past validUntil (a few seconds ahead of the wall clock at most)."""
    if w3.eth.get_block("latest")["timestamp"] <= valid_until:
        w3.provider.make_request("evm_setNextBlockTimestamp", [valid_until + 1])
        w3.provider.make_request("evm_mine", [])


def check_after_expiry(user_op_id):
    """One tracker check with the service's clock past validUntil and the grace: the bundler's silence no longer
    means "later"."""
    from chalicelib.platform import clock

    item = op_item(user_op_id)
    ahead = max(0, int(item["validUntilEpoch"]) + tracking.GRACE_S + 1 - clock.epoch())
    clock.travel(ahead)
    try:
        with running_as("track_user_op"):
            tracking.check({"userOpId": user_op_id, "attempt": 1})
    finally:
        clock.travel(-ahead)
    return op_item(user_op_id)


def included(stack, user_op_hash, timeout_s=30):
    """Alto's own receipt (asked directly, not through a test's proxy) once the operation is mined."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        receipt = top_ups_bundler(stack, user_op_hash)
        if receipt:
            return receipt
        time.sleep(0.2)
    raise AssertionError("the operation was not included")


def entry_point_nonce(stack, op_item):
    """The EntryPoint's next nonce for the operation's sender and nonce key."""
    from chalicelib.evm.abi import encode_call

    op = json.loads(op_item["op"])
    key = int(op["nonce"], 16) >> 64
    data = encode_call("getNonce(address,uint192)", op["sender"], key)
    return int.from_bytes(stack["w3"].eth.call({"to": stack["network"]["entryPoint"], "data": data}), "big")


STALL = object()


class BundlerProxy:
    """A bundler URL in front of Alto whose answers a test decides per method: `rules[method](request)` returns
    the JSON-RPC answer, None to forward the call to Alto, or STALL (after optionally forwarding it) to keep the
    connection open past the service's timeout and then drop it. Only the bundler's answers are faked; the
    service talks to it as to any bundler."""

    STALL_S = 7  # beyond platform/transport.py's 5 s

    def __init__(self, upstream):
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        self.upstream = upstream
        self.rules = {}
        self.released = threading.Event()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                rule = proxy.rules.get(request.get("method")) if isinstance(request, dict) else None
                answer = rule(request) if rule else None
                if answer is STALL:
                    proxy.released.wait(proxy.STALL_S)
                    self.close_connection = True
                    return
                if answer is None:
                    answer = proxy.forward(request)
                raw = json.dumps(answer).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def forward(self, request):
        import requests

        return requests.post(self.upstream, json=request, timeout=10).json()

    def stop(self):
        self.released.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def bundlers(aa_chains, stack, tmp_path, monkeypatch):
    """`bundlers(n)`: n proxies in front of Alto, the network's bundler URLs in that order."""
    made = []

    def make(count):
        proxies = [BundlerProxy(stack["network"]["bundlerUrl"]) for _ in range(count)]
        made.extend(proxies)
        overrides = {"local-a": {"paymaster": stack["paymaster"], "bundlerUrls": [p.url for p in proxies]}}
        path = aa_chains.write_networks(tmp_path / "bundlers.json", overrides)
        monkeypatch.setenv("DOMPET_NETWORKS_FILE", str(path))
        settings.load_settings.cache_clear()
        networks.registry.cache_clear()
        return proxies

    yield make
    for proxy in made:
        proxy.stop()


def _event(user_op_id, kind):
    item = aws.table("webhooks").get_item(Key={"pk": f"EVENT#userOp.{kind}:{user_op_id}", "sk": "EVENT"}).get("Item")
    return json.loads(item["body"])["data"] if item else None


def test_an_included_operation_the_bundler_forgot_settles_success_from_the_chain(api, tenant, stack, bundlers):
    """The bundler answers null for the receipt of an operation it included: past validUntil the tracker finds
    the EntryPoint's UserOperationEvent and charges its actualGasCost, as a receipt would have."""
    [proxy] = bundlers(1)
    owner, record, account = new_owner(api, tenant, stack)
    w3, recipient = stack["w3"], Account.create().address
    w3.provider.make_request("anvil_setBalance", [account["aaAddress"], hex(10**18)])
    result = coin_hash(api, tenant, account, recipient, "9")
    proxy.rules["eth_getUserOperationReceipt"] = lambda request: {"jsonrpc": "2.0", "id": request["id"], "result": None}
    before = tank_balance(api, tenant, record)
    submitted(api, tenant, owner, result)
    deducted = before - tank_balance(api, tenant, record)
    receipt = included(stack, result["hash"])
    assert w3.eth.get_balance(recipient) == 9  # it happened on chain

    with running_as("track_user_op"):
        tracking.check({"userOpId": result["userOpId"], "attempt": 1})
    # Before validUntil the bundler's silence means "later".
    assert op_item(result["userOpId"])["status"] == "on_process"
    settled = check_after_expiry(result["userOpId"])
    assert settled["status"] == "success", settled.get("failedReason")
    assert settled["txHash"] == receipt["receipt"]["transactionHash"]
    actual = charges.charge(networks.registry().by_chain_id(31337), int(receipt["actualGasCost"], 16))
    assert before - tank_balance(api, tenant, record) == actual.total < deducted  # charged exactly, the rest back
    usage = call(api, tenant, "GET", f"/api/v1/smart-account/{record['id']}/usage/history").json_body["data"]["data"]
    assert usage[0]["amountInGasTank"] == str(actual.total)
    assert usage[0]["refundedAmountInGasTank"] == str(deducted - actual.total)
    event = _event(result["userOpId"], "success")
    assert event["status"] == "success" and event["txHash"] == receipt["receipt"]["transactionHash"]
    assert _event(result["userOpId"], "failed") is None
    view = call(api, tenant, "GET", f"/api/v1/smart-account/{record['id']}").json_body["data"]
    assert next(a for a in view["accounts"] if a["id"] == account["id"])["status"] == "deployed"


def test_an_error_from_the_failover_bundler_after_a_timeout_refunds_nothing_until_the_chain_decides(
    api, tenant, stack, bundlers, monkeypatch
):
    """The first bundler takes the operation but its answer never comes; the second answers an error. The
    first may still include it, so the submit leaves it in flight: included → charged; never included → refunded
    only once the chain is past validUntil."""
    first, second = bundlers(2)
    owner, record, account = new_owner(api, tenant, stack)
    w3 = stack["w3"]
    w3.provider.make_request("anvil_setBalance", [account["aaAddress"], hex(10**18)])
    refusal = {"code": -32602, "message": "AA25 invalid account nonce"}
    second.rules["eth_sendUserOperation"] = lambda request: {"jsonrpc": "2.0", "id": request["id"], "error": refusal}

    def takes_then_stalls(request):
        first.forward(request)
        return STALL

    # Included by the first bundler: settled success and charged, never refunded in full.
    first.rules["eth_sendUserOperation"] = takes_then_stalls
    recipient = Account.create().address
    result = coin_hash(api, tenant, account, recipient, "4")
    before = tank_balance(api, tenant, record)
    assert submitted(api, tenant, owner, result)["status"] == "on_process"
    deducted = before - tank_balance(api, tenant, record)
    assert deducted > 0
    settled = settle(result["userOpId"])
    assert settled["status"] == "success" and w3.eth.get_balance(recipient) == 4
    actual = charges.charge(
        networks.registry().by_chain_id(31337), int(included(stack, result["hash"])["actualGasCost"], 16)
    )
    assert before - tank_balance(api, tenant, record) == actual.total
    assert _event(result["userOpId"], "failed") is None

    # Never included (the first bundler lost it): debited until the chain is past validUntil, then refunded.
    first.rules["eth_sendUserOperation"] = lambda request: STALL
    short_lived(monkeypatch, w3)
    result = coin_hash(api, tenant, account, recipient, "4")
    before = tank_balance(api, tenant, record)
    assert submitted(api, tenant, owner, result)["status"] == "on_process"
    deducted = before - tank_balance(api, tenant, record)
    assert deducted > 0
    with running_as("track_user_op"):
        tracking.check({"userOpId": result["userOpId"], "attempt": 1})
    assert w3.eth.get_block("latest")["timestamp"] <= result["validUntil"]  # the chain can still include it
    assert check_after_expiry(result["userOpId"])["status"] == "on_process"
    assert before - tank_balance(api, tenant, record) == deducted  # nothing refunded yet
    assert _event(result["userOpId"], "failed") is None

    pass_valid_until(w3, result["validUntil"])
    ended = check_after_expiry(result["userOpId"])
    assert ended["status"] == "failed" and ended["failedReason"].startswith("expired"), ended
    assert tank_balance(api, tenant, record) == before  # refunded in full
    assert _event(result["userOpId"], "failed")["failedReason"].startswith("expired")
    assert entry_point_nonce(stack, ended) & (2**64 - 1) == 0  # and on chain, nothing used its nonce
    assert w3.eth.get_balance(recipient) == 4


def deliver_tracker_messages(wait_s):
    """Run the tracker (its Lambda handler) on every message that becomes visible within `wait_s`."""
    from app import app
    from devtools.workers import WorkerRunner

    runner = WorkerRunner(app, region="us-east-1", poll_wait_s=1)
    [source] = [q for q in runner.queues if q.name == "track_user_op"]
    delivered = 0
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        delivered += runner.poll_once(source)
    return delivered


def test_a_commit_slower_than_the_first_check_still_settles(api, tenant, stack, monkeypatch):
    """The tracker runs while the submit's transaction is still on its way: it must not find a message for an
    operation that is not yet `on_process` (it would stop, and the debit would never be settled)."""
    from chalicelib.platform import unit_of_work
    from chalicelib.user_ops import service

    owner, record, account = new_owner(api, tenant, stack)
    stack["w3"].provider.make_request("anvil_setBalance", [account["aaAddress"], hex(10**18)])
    real = unit_of_work.commit
    early = []

    def slow_commit(*args, **kwargs):
        early.append(deliver_tracker_messages(3))  # what the tracker gets before the commit lands
        return real(*args, **kwargs)

    monkeypatch.setattr(service.unit_of_work, "commit", slow_commit)
    result = coin_hash(api, tenant, account)
    before = tank_balance(api, tenant, record)
    submitted(api, tenant, owner, result)
    monkeypatch.undo()
    assert early == [0]
    deadline = time.monotonic() + 30
    item = None
    while time.monotonic() < deadline:
        deliver_tracker_messages(1)
        item = op_item(result["userOpId"])
        if item["status"] != "on_process":
            break
    assert item is not None and item["status"] == "success"
    actual = charges.charge(
        networks.registry().by_chain_id(31337), int(included(stack, result["hash"])["actualGasCost"], 16)
    )
    assert before - tank_balance(api, tenant, record) == actual.total
    assert _event(result["userOpId"], "success")["status"] == "success"


def test_the_schedule_requeues_an_operation_whose_tracker_went_quiet(api, tenant, stack, monkeypatch):
    """The tracker message is lost after the commit: the submit still answers, and once the operation is past its
    due time the `requeue_user_ops` schedule queues a check (once per lease), which settles it."""
    from app import app
    from chalicelib.platform import clock
    from devtools.workers import WorkerRunner

    owner, record, account = new_owner(api, tenant, stack)
    stack["w3"].provider.make_request("anvil_setBalance", [account["aaAddress"], hex(10**18)])
    result = coin_hash(api, tenant, account)
    real_send = aws.send_message

    def lost(name, body, *args, **kwargs):
        if name == "userop-tracker":
            raise RuntimeError("SQS did not answer")
        return real_send(name, body, *args, **kwargs)

    monkeypatch.setattr(aws, "send_message", lost)
    before = tank_balance(api, tenant, record)
    assert submitted(api, tenant, owner, result)["status"] == "on_process"
    monkeypatch.undo()
    included(stack, result["hash"])
    runner = WorkerRunner(app, region="us-east-1", poll_wait_s=0)
    [requeue] = [s for s in runner.schedules if s.name == "requeue_user_ops"]

    def messages():
        attributes = aws.client("sqs").get_queue_attributes(
            QueueUrl=aws._queue_url(aws.queue("userop-tracker")),
            AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesDelayed"],
        )["Attributes"]
        return int(attributes["ApproximateNumberOfMessages"]) + int(attributes["ApproximateNumberOfMessagesDelayed"])

    runner.invoke_scheduled(requeue)
    assert messages() == 0  # not due yet: its tracker may still come
    clock.travel(tracking.QUIET_S + tracking.FIRST_CHECK_S + 1)
    try:
        runner.invoke_scheduled(requeue)
        runner.invoke_scheduled(requeue)  # leased: queued once
        assert messages() == 1
        # A check of an older chain (a message that was only late) leaves the operation to the schedule's chain.
        with running_as("track_user_op"):
            tracking.check({"userOpId": result["userOpId"], "attempt": 3, "due": "2000-01-01T00:00:00.000Z"})
        assert messages() == 1
        assert deliver_tracker_messages(2) == 1
    finally:
        clock.reset()
    item = op_item(result["userOpId"])
    assert item["status"] == "success" and "duePk" not in item  # settled, and out of the `due` index
    actual = charges.charge(
        networks.registry().by_chain_id(31337), int(included(stack, result["hash"])["actualGasCost"], 16)
    )
    assert before - tank_balance(api, tenant, record) == actual.total
    assert _event(result["userOpId"], "success")["status"] == "success"


def test_a_refusal_by_the_first_bundler_refunds_at_once(api, tenant, stack, bundlers):
    """The bundler that answered is the first one asked (none timed out before it): the operation never reached
    a mempool, the chain holds no event for it, and it fails at once with everything refunded."""
    [proxy] = bundlers(1)
    owner, record, account = new_owner(api, tenant, stack)
    stack["w3"].provider.make_request("anvil_setBalance", [account["aaAddress"], hex(10**18)])
    refusal = {"code": -32500, "message": "AA23 reverted"}
    proxy.rules["eth_sendUserOperation"] = lambda request: {"jsonrpc": "2.0", "id": request["id"], "error": refusal}
    result = coin_hash(api, tenant, account)
    before = tank_balance(api, tenant, record)
    op = submitted(api, tenant, owner, result)
    assert op["status"] == "failed" and "AA23" in op["failedReason"]
    assert tank_balance(api, tenant, record) == before
    assert _event(result["userOpId"], "failed")["status"] == "failed"


def test_a_node_whose_logs_lag_cannot_make_an_included_operation_look_expired(
    api, tenant, stack, bundlers, monkeypatch
):
    """The bundler forgot the operation and the node answers `eth_getLogs` with [] (a load-balanced node behind
    the head): although the chain is past validUntil, the EntryPoint's nonce for the operation's key has moved,
    so nothing is refunded; once the logs are there, it settles `success`."""
    from chalicelib.evm import logs

    [proxy] = bundlers(1)
    owner, record, account = new_owner(api, tenant, stack)
    stack["w3"].provider.make_request("anvil_setBalance", [account["aaAddress"], hex(10**18)])
    short_lived(monkeypatch, stack["w3"])
    result = coin_hash(api, tenant, account)
    proxy.rules["eth_getUserOperationReceipt"] = lambda request: {"jsonrpc": "2.0", "id": request["id"], "result": None}
    before = tank_balance(api, tenant, record)
    submitted(api, tenant, owner, result)
    deducted = before - tank_balance(api, tenant, record)
    receipt = included(stack, result["hash"])
    pass_valid_until(stack["w3"], result["validUntil"])
    real = logs.rpc_call
    monkeypatch.setattr(logs, "rpc_call", lambda network, method, params: [] if method == "eth_getLogs" else None)
    assert check_after_expiry(result["userOpId"])["status"] == "on_process"
    assert before - tank_balance(api, tenant, record) == deducted
    monkeypatch.setattr(logs, "rpc_call", real)
    settled = check_after_expiry(result["userOpId"])
    assert settled["status"] == "success" and settled["txHash"] == receipt["receipt"]["transactionHash"]
    actual = charges.charge(networks.registry().by_chain_id(31337), int(receipt["actualGasCost"], 16))
    assert before - tank_balance(api, tenant, record) == actual.total
