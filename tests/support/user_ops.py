"""User operations on the anvil chains (local-a): the `stack` fixture with a paymaster trusting the service's KMS
key, owners with funded gas tanks, and the tracker run until an operation settles."""

from __future__ import annotations

import json
import time

import pytest
import requests
from eth_account import Account
from eth_account.messages import encode_defunct
from web3 import Web3

from chalicelib.evm import erc20
from chalicelib.evm.kms_signer import KmsSigner
from chalicelib.platform import aws, networks, settings
from chalicelib.platform.invocation import running_as
from chalicelib.user_ops import settlement as tracking
from devtools import aa
from tests.support import top_ups
from tests.support.family_s import call, create


@pytest.fixture(name="stack")
def user_op_stack(aa_chains, api, tenant, tmp_path, monkeypatch):
    """`stack`: the service on local-a with a paymaster trusting this test's KMS key. A module that uses it imports
    it, in place of the local stack's `stack` of tests/integration/conftest.py."""
    network = aa_chains.by_name("local-a")
    paymaster = aa.deploy_paymaster(network["rpc"], KmsSigner("paymaster-signer").address)
    path = aa_chains.write_networks(tmp_path / "networks.json", {"local-a": {"paymaster": paymaster}})
    monkeypatch.setenv("DOMPET_NETWORKS_FILE", str(path))
    settings.load_settings.cache_clear()
    networks.registry.cache_clear()
    erc20._info.clear()
    entries = [e for e in json.loads(path.read_text())["networks"] if e.get("kind", "evm") == "evm"]
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


def sign(owner, user_op_hash):
    return "0x" + bytes(owner.sign_message(encode_defunct(primitive=bytes.fromhex(user_op_hash[2:]))).signature).hex()


def op_item(user_op_id):
    """The operation as stored (its `OP` item)."""
    return aws.table("user-ops").get_item(Key={"pk": f"USEROP#{user_op_id}", "sk": "OP"})["Item"]


def settle(user_op_id, timeout_s=30):
    """Run the tracker on its queue's messages until the operation settles."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        item = op_item(user_op_id)
        if item["status"] in ("success", "failed"):
            return item
        with running_as("track_user_op"):
            tracking.check({"userOpId": user_op_id, "attempt": 1})
        time.sleep(0.2)
    raise AssertionError("the operation did not settle")


def top_ups_bundler(stack, user_op_hash):
    answer = requests.post(
        stack["network"]["bundlerUrl"],
        json={"jsonrpc": "2.0", "id": 1, "method": "eth_getUserOperationReceipt", "params": [user_op_hash]},
        timeout=10,
    ).json()
    return answer["result"]


def submit(api, tenant, owner, result, sponsored=False):
    """The service's answer to submitting a built operation (`result`: {userOpId, hash}) signed by `owner`."""
    body = {
        "userOpId": result["userOpId"],
        "hash": result["hash"],
        "signature": sign(owner, result["hash"]),
        "isSponsored": sponsored,
    }
    return call(api, tenant, "POST", "/api/v1/userOp/submit", body)


def submitted(api, tenant, owner, result, sponsored=False):
    """Submit a built operation, accepted: the operation as the answer shows it."""
    answer = submit(api, tenant, owner, result, sponsored)
    assert answer.status_code == 200, answer.json_body
    return answer.json_body["data"]


def run_user_op(api, tenant, owner, kind, body, sponsored=False):
    """Build an operation of `kind` (`/api/v1/userOp/<kind>/hash`) and submit it: the built operation."""
    hashed = call(api, tenant, "POST", f"/api/v1/userOp/{kind}/hash", body)
    assert hashed.status_code == 200, hashed.json_body
    result = hashed.json_body["data"]
    submitted(api, tenant, owner, result, sponsored)
    return result
