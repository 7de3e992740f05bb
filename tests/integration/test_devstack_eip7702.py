"""EIP-7702 smart accounts over HTTP against the local stack (`make dev`, the session's `stack` fixture): an MPC
wallet holding no ETH becomes its own smart account (`accountType: "eip7702"`, EntryPoint v0.8, Simple7702Account),
and pays nothing itself: a batch of two ERC-20 transfers is one user operation, signed by the wallet through the
service (sign-typed-data of the operation, sign-authorization of the delegate), sponsored by the organization's gas
tank, sent through Alto. Effects are read on chain (anvil) and in the signed webhooks."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
import requests
from eth_account import Account
from eth_account.messages import encode_typed_data
from web3 import Web3

from devtools import chain
from tests.integration.test_devstack_sponsorship import NETWORK, Receiver, Tenant

pytestmark = pytest.mark.integration


class Wallet:
    """An MPC wallet of the tenant's client (login, account/create), calling the wallet routes with its token."""

    def __init__(self, tenant: Tenant) -> None:
        api, self.headers = tenant.info["apiUrl"], {"x-client-secret": tenant.info["demo"]["clientSecret"]}
        self.api = api
        login = requests.post(
            f"{api}/api/v1/auth/login", headers=self.headers, json={"subId": f"7702-{uuid.uuid4()}"}, timeout=30
        )
        assert login.status_code == 200, login.text
        bearer = {**self.headers, "Authorization": f"Bearer {login.json()['data']['accessToken']}"}
        created = requests.post(f"{api}/api/v1/account/create", headers=bearer, json={}, timeout=120)
        assert created.status_code == 200, created.text
        self.address = Web3.to_checksum_address(created.json()["data"]["address"])
        self.token = created.json()["data"]["walletToken"]

    def call(self, path: str, body: dict[str, Any]) -> Any:
        headers = {**self.headers, "Authorization": f"Bearer {self.token}"}
        answer = requests.post(self.api + path, headers=headers, json=body, timeout=120)
        assert answer.status_code == 200, answer.text
        return answer.json()["data"]


def transfer(token: str, to: str, amount: int) -> dict[str, str]:
    data = Web3.keccak(text="transfer(address,uint256)")[:4] + bytes(12) + bytes.fromhex(to[2:]) + amount.to_bytes(32)
    return {"to": token, "value": "0", "callData": "0x" + data.hex()}


def test_a_wallet_with_no_eth_runs_a_sponsored_batch_as_its_own_smart_account(stack):
    tenant = Tenant(stack, "EIP-7702 accounts")
    receiver = Receiver()
    w3 = tenant.w3
    assert tenant.call("PUT", "/api/v1/webhooks/settings", {"url": receiver.url}).status_code == 200
    tenant.top_up(20_000_000)
    [network] = [n for n in tenant.ok("GET", "/api/v1/networks")["networks"] if n["name"] == NETWORK]
    delegate = network["eip7702Account"]
    assert network["entryPointV08"] == "0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108" and delegate

    wallet = Wallet(tenant)
    assert w3.eth.get_balance(wallet.address) == 0 and w3.eth.get_code(wallet.address) == b""
    token_address = next(n for n in stack["info"]["networks"] if n["name"] == NETWORK)["tokens"]["erc20"]
    token = w3.eth.contract(address=token_address, abi=chain.load_artifact("TestToken")["abi"])
    minted = token.functions.mint(wallet.address, 1_000).transact({"from": w3.eth.accounts[8]})
    assert w3.eth.wait_for_transaction_receipt(minted)["status"] == 1

    # The smart account is the wallet itself; its owner record is the one an owner of any account type has.
    created = tenant.ok(
        "POST",
        "/api/v1/smart-account",
        {"owner": {"id": wallet.address, "provider": "wallet"}, "accountType": "eip7702"},
    )
    [account] = [a for a in created["accounts"] if a["network"] == NETWORK]
    assert (account["aaAddress"], account["status"], account["accountType"]) == (
        wallet.address,
        "not_deployed",
        "eip7702",
    )
    assert account["version"] == "simple7702-0.8"
    again = tenant.ok("POST", "/api/v1/smart-account", {"owner": {"id": wallet.address.lower(), "provider": "wallet"}})
    kinds = {(a["network"], a.get("accountType", "simple")) for a in again["accounts"]}
    assert kinds >= {(NETWORK, "eip7702"), (NETWORK, "simple")}  # a simple account keeps its shape: no accountType

    def batch(*amounts: int) -> tuple[dict[str, Any], list[str]]:
        recipients = [Account.create().address for _ in amounts]
        calls = [transfer(token_address, r, a) for r, a in zip(recipients, amounts, strict=True)]
        hashed = tenant.ok("POST", "/api/v1/userOp/batch/hash", {"accountId": account["id"], "calls": calls})
        return hashed, recipients

    def sign(hashed: dict[str, Any]) -> str:
        """The wallet signs the operation itself: typed data, whose digest is the hash the EntryPoint checks."""
        document = hashed["typedData"]
        assert document["primaryType"] == "PackedUserOperation"
        message = encode_typed_data(full_message=document)  # eth-account's own EIP-712 digest is the hash
        assert (
            "0x" + Web3.keccak(b"\x19" + message.version + message.header + message.body).hex().removeprefix("0x")
            == hashed["hash"]
        )
        signed = wallet.call("/api/v1/wallet/sign-typed-data", {"typedData": document})
        assert signed["hash"] == hashed["hash"]
        return str(signed["signature"])

    def submit(hashed: dict[str, Any], signature: str, **extra: Any) -> requests.Response:
        body = {"userOpId": hashed["userOpId"], "hash": hashed["hash"], "signature": signature, "isSponsored": True}
        return tenant.call("POST", "/api/v1/userOp/submit", {**body, **extra})

    # The first operation delegates the wallet: it needs the wallet's authorization, of the network's delegate.
    tank_before = tenant.tank()
    first, recipients = batch(5, 7)
    assert first["delegates"] is True
    signature = sign(first)
    missing = submit(first, signature)
    assert (missing.status_code, missing.json()["data"]["code"]) == (400, "AUTHORIZATION_REQUIRED"), missing.text
    elsewhere = wallet.call(
        "/api/v1/wallet/sign-authorization", {"network": NETWORK, "contractAddress": Account.create().address}
    )
    wrong = submit(first, signature, eip7702Auth=elsewhere)
    assert (wrong.status_code, wrong.json()["data"]["code"]) == (400, "INVALID_AUTHORIZATION"), wrong.text
    assert tenant.tank() == tank_before  # refused before anything was charged
    authorization = wallet.call("/api/v1/wallet/sign-authorization", {"network": NETWORK, "contractAddress": delegate})
    assert authorization["nonce"] == 0
    answer = submit(first, signature, eip7702Auth=authorization)
    assert answer.status_code == 200, answer.text
    op = tenant.settled(answer.json()["data"]["id"])
    assert (op["status"], op["payer"], op["bundlerVersion"], op["type"]) == ("success", "organization", "0.8", "batch")

    # On chain: both transfers, in the one operation's transaction; the wallet delegated, its ETH still 0.
    assert [token.functions.balanceOf(r).call() for r in recipients] == [5, 7]
    assert token.functions.balanceOf(wallet.address).call() == 1_000 - 12
    assert w3.eth.get_code(wallet.address) == bytes.fromhex("ef0100" + delegate[2:].lower())
    assert w3.eth.get_balance(wallet.address) == 0
    bundle = w3.eth.get_transaction(op["txHash"])
    assert bundle["type"] == 4 and bundle["to"] == network["entryPointV08"]
    owner = tenant.ok("GET", f"/api/v1/smart-account/{created['id']}")
    assert next(a for a in owner["accounts"] if a["id"] == account["id"])["status"] == "deployed"

    # Charged once, to the organization's tank: what the usage record of this one operation says.
    listed = tenant.ok("GET", "/api/v1/userOp?limit=5")["data"]
    [entry] = [o for o in listed if o["id"] == op["id"]]
    usage = entry["clientGasTankUsageHistory"]
    assert entry["status"] == "success" and usage["userOpId"] == op["id"]
    assert tank_before - tenant.tank() == int(usage["amountInGasTank"]) > 0

    # A second operation after the delegation carries no authorization.
    second, more = batch(1, 2)
    assert second["delegates"] is False
    answer = submit(second, sign(second))
    assert answer.status_code == 200, answer.text
    assert tenant.settled(answer.json()["data"]["id"])["status"] == "success"
    assert [token.functions.balanceOf(r).call() for r in more] == [1, 2]
    assert w3.eth.get_transaction(tenant.ok("GET", f"/api/v1/userOp/{second['userOpId']}")["txHash"])["type"] != 4
    assert w3.eth.get_balance(wallet.address) == 0

    # The signed webhooks tell both successes.
    events = receiver.wait(tenant, "userOp.success", 2)
    assert {e["data"]["id"] for e in events} == {first["userOpId"], second["userOpId"]}
    assert all(e["data"]["bundlerVersion"] == "0.8" and e["data"]["status"] == "success" for e in events)
