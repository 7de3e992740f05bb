"""User operations end to end: the service builds, the owner signs with eth-account, the service charges the gas
tank and submits to Alto, the tracker settles; effects checked on chain, charges and refunds exact."""

from __future__ import annotations

import json
import time

import pytest
from eth_account import Account
from eth_account.messages import encode_defunct

from chalicelib.evm.kms_signer import KmsSigner
from chalicelib.gas_tanks import charges
from chalicelib.platform import aws, erc20, networks, settings
from chalicelib.platform.invocation import running_as
from chalicelib.user_ops import tracking
from devtools import aa
from tests.integration import test_top_ups as top_ups
from tests.unit.test_smart_accounts import call, create

pytestmark = pytest.mark.integration
USER_OPERATION_EVENT = "0x49628fd1471006c1482da88028e9ce4dbb080b815c9b0344d39e5a8e6ec1419f"


@pytest.fixture
def stack(aa_chains, api, tenant, tmp_path, monkeypatch):
    """The service on local-a with a paymaster trusting this test's KMS key."""
    from web3 import Web3

    network = aa_chains.by_name("local-a")
    paymaster = aa.deploy_paymaster(network["rpc"], KmsSigner("paymaster-signer").address)
    path = aa_chains.write_networks(tmp_path / "networks.json", {"local-a": {"paymaster": paymaster}})
    monkeypatch.setenv("DOMPET_NETWORKS_FILE", str(path))
    settings.load_settings.cache_clear()
    networks.registry.cache_clear()
    erc20._info.clear()
    entries = json.loads(path.read_text())["networks"]
    chains = {"entries": entries, "w3": {e["chainId"]: Web3(Web3.HTTPProvider(e["rpcUrls"][0])) for e in entries}}
    yield {"network": network, "w3": chains["w3"][network["chainId"]], "chains": chains, "paymaster": paymaster}
    settings.load_settings.cache_clear()
    networks.registry.cache_clear()


def new_owner(api, tenant, stack, fund_usdt=50 * 10**6):
    """An owner with a funded gas tank (a real top-up of `fund_usdt` 6-decimal USDT)."""
    owner = Account.create()
    record = create(api, tenant, owner.address).json_body["data"]
    if fund_usdt:
        tx_hash, sender = top_ups.transfer(stack["chains"], 31337, fund_usdt)
        body = top_ups.request(stack["chains"], 31337, tx_hash, sender, receiverOwnerId=record["id"])
        assert call(api, tenant, "POST", "/api/v1/smart-account/topUp", body).status_code == 200
    account = next(a for a in record["accounts"] if a["chainId"] == 31337)
    return owner, record, account


def tank_balance(api, tenant, record):
    return int(
        call(api, tenant, "GET", f"/api/v1/smart-account/{record['id']}").json_body["data"]["gasTanks"][0]["balance"]
    )


def sign(owner, user_op_hash):
    return "0x" + bytes(owner.sign_message(encode_defunct(primitive=bytes.fromhex(user_op_hash[2:]))).signature).hex()


def settle(user_op_id, timeout_s=30):
    """Run the tracker on its queue's messages until the operation settles."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        item = aws.table("user-ops").get_item(Key={"pk": f"USEROP#{user_op_id}", "sk": "OP"})["Item"]
        if item["status"] in ("success", "failed"):
            return item
        with running_as("track_user_op"):
            tracking.check({"userOpId": user_op_id, "attempt": 1})
        time.sleep(0.2)
    raise AssertionError("the operation did not settle")


def test_a_coin_transfer_deploys_the_account_and_charges_exactly(api, tenant, stack):
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
    submitted = call(
        api,
        tenant,
        "POST",
        "/api/v1/userOp/submit",
        {
            "userOpId": result["userOpId"],
            "hash": result["hash"],
            "signature": sign(owner, result["hash"]),
            "isSponsored": False,
        },
    )
    assert submitted.status_code == 200, submitted.json_body
    op = submitted.json_body["data"]
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


def test_refusals_charge_nothing(api, tenant, stack):
    owner, record, account = new_owner(api, tenant, stack)
    poor_owner, _poor, poor_account = new_owner(api, tenant, stack, fund_usdt=0)
    for funded in (account, poor_account):  # the coin the operations send
        stack["w3"].provider.make_request("anvil_setBalance", [funded["aaAddress"], hex(10**18)])
    body = {"accountId": account["id"], "to": Account.create().address, "amount": "1"}
    result = call(api, tenant, "POST", "/api/v1/userOp/sendCoin/hash", body).json_body["data"]
    before = tank_balance(api, tenant, record)

    def submit(signature, op_hash=None, user_op_id=None, app=tenant):
        body = {
            "userOpId": user_op_id or result["userOpId"],
            "hash": op_hash or result["hash"],
            "signature": signature,
            "isSponsored": False,
        }
        return call(api, app, "POST", "/api/v1/userOp/submit", body)

    assert submit(sign(owner, result["hash"]), op_hash="0x" + "00" * 32).json_body["data"]["code"] == "HASH_MISMATCH"
    assert submit(sign(owner, result["hash"]), user_op_id="nope").status_code == 404
    wrong = submit(sign(Account.create(), result["hash"]))
    assert wrong.status_code == 400 and wrong.json_body["data"]["code"] == "INVALID_USER_OP_SIGNATURE"
    assert call(api, tenant, "GET", f"/api/v1/userOp/{result['userOpId']}").json_body["data"]["status"] == "failed"
    again = submit(sign(owner, result["hash"]))
    assert again.status_code == 409 and again.json_body["data"]["code"] == "USER_OP_ALREADY_SUBMITTED"
    assert tank_balance(api, tenant, record) == before

    poor_body = {"accountId": poor_account["id"], "to": Account.create().address, "amount": "1"}
    poor_answer = call(api, tenant, "POST", "/api/v1/userOp/sendCoin/hash", poor_body)
    assert poor_answer.status_code == 200, poor_answer.json_body
    poor_result = poor_answer.json_body["data"]
    empty = call(
        api,
        tenant,
        "POST",
        "/api/v1/userOp/submit",
        {
            "userOpId": poor_result["userOpId"],
            "hash": poor_result["hash"],
            "signature": sign(poor_owner, poor_result["hash"]),
            "isSponsored": False,
        },
    )
    assert empty.status_code == 422 and empty.json_body["data"]["code"] == "INSUFFICIENT_GAS_TANK_BALANCE"
    assert (
        call(api, tenant, "GET", f"/api/v1/userOp/{poor_result['userOpId']}").json_body["data"]["status"] == "created"
    )


def top_ups_bundler(stack, user_op_hash):
    import requests

    answer = requests.post(
        stack["network"]["bundlerUrl"],
        json={"jsonrpc": "2.0", "id": 1, "method": "eth_getUserOperationReceipt", "params": [user_op_hash]},
        timeout=10,
    ).json()
    return answer["result"]
