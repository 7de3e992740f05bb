"""The local stack end to end: what `make dev` starts, checked from outside over HTTP.

The session-scoped `stack` fixture (tests/integration/conftest.py) starts `python -m devtools.devstack` on free
ports with its own state directory and waits for `.local/stack.json`; these tests call the running service the way
an integrator would, and the last one sends SIGINT and checks that every process it started is gone.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta

import pytest
import requests

from tests.support import stack_tokens
from tests.support.devstack import WebhookReceiver, evm_networks, signed
from tests.support.operator import operator_env
from tests.support.scripts import ROOT, dompet_sign

pytestmark = pytest.mark.integration


def test_stack_file_describes_the_stack(stack):
    info = stack["info"]
    assert info["apiUrl"] == f"http://127.0.0.1:{stack['ports']['api']}"
    listed = [(n["name"], n["kind"], n["chainId"]) for n in info["networks"]]
    assert listed == [("local-a", "evm", 31337), ("local-b", "evm", 31338), ("bitcoin-regtest", "bitcoin", 18443)]
    for network in evm_networks(info):
        assert set(network["tokens"]) == {"usdt", "erc20", "erc721", "erc1155", "usdt18", "permit"}
    assert set(info["demo"]) >= {"organizationId", "clientId", "clientSecret", "appId", "appSecret"}
    a, b = evm_networks(info)
    assert a["tokens"]["usdt"] != b["tokens"]["usdt"]


def test_tokens_are_deployed_on_both_chains(stack):
    for network in evm_networks(stack["info"]):
        usdt = network["tokens"]["usdt"]
        answer = requests.post(
            network["rpcUrl"],
            json={
                "jsonrpc": "2.0",
                "id": 1,
                "method": "eth_call",
                "params": [{"to": usdt, "data": "0x313ce567"}, "latest"],
            },
            timeout=5,
        ).json()
        assert int(answer["result"], 16) == 6  # decimals()
        chain_id = requests.post(
            network["rpcUrl"], json={"jsonrpc": "2.0", "id": 1, "method": "eth_chainId", "params": []}, timeout=5
        ).json()["result"]
        assert int(chain_id, 16) == network["chainId"]


def test_health_openapi_and_docs(stack):
    api = stack["info"]["apiUrl"]
    assert requests.get(f"{api}/health", timeout=10).status_code == 200
    details = f"{api}/api/v1/health/details"
    headers = dompet_sign.signed_headers(
        stack["info"]["demo"]["appId"], stack["info"]["demo"]["appSecret"], "GET", details, b""
    )
    health = requests.get(details, headers=headers, timeout=10)
    assert health.status_code == 200, health.text
    names = {c["name"] for c in health.json()["data"]["components"]}
    assert {"network:local-a", "network:local-b", "table:tenancy"} <= names
    doc = requests.get(f"{api}/openapi.json", timeout=10).json()
    assert doc["openapi"] == "3.1.0" and "/api/v1/auth/login" in doc["paths"] and "/api/v1/auth/whoami" in doc["paths"]
    page = requests.get(f"{api}/docs", timeout=10)
    assert page.status_code == 200 and "docs/assets/scalar." in page.text  # the reference (tests/browser)


def test_wallet_create_download_and_recover(stack):
    info = stack["info"]
    api, secret = info["apiUrl"], info["demo"]["clientSecret"]

    def call(path, token=None, **kwargs):
        headers = {"x-client-secret": secret, **({"Authorization": f"Bearer {token}"} if token else {})}
        return requests.post(api + path, headers=headers, timeout=30, **kwargs)

    alice = call("/api/v1/auth/login", json={"subId": "alice"}).json()["data"]["accessToken"]
    created = call("/api/v1/account/create", alice, json={})
    assert created.status_code == 200, created.text
    assert created.json()["message"] == "create wallet successfully"
    wallet = created.json()["data"]
    assert wallet["secret0Link"].startswith(info["awsEndpointUrl"] + "/")  # moto, path-style
    download = requests.get(wallet["secret0Link"], timeout=10)
    assert download.status_code == 200 and download.content == wallet["secret0"].encode()
    assert f"{wallet['address']}.service" in download.headers["Content-Disposition"]
    assert call("/api/v1/account/create", alice, json={}).status_code == 409

    bob = call("/api/v1/auth/login", json={"subId": "bob"}).json()["data"]["accessToken"]
    recovered = call(
        "/api/v1/account/recover",
        bob,
        files={"file": (f"{wallet['address']}.service", download.content, "application/octet-stream")},
    )
    assert recovered.status_code == 200, recovered.text
    bob_wallet = recovered.json()["data"]
    assert bob_wallet["address"] == wallet["address"]
    balance = call("/api/v1/wallet/balance-coin", bob_wallet["walletToken"], json={"network": "local-a"})
    assert balance.status_code == 200 and balance.json()["data"]["address"] == wallet["address"]

    # A send, then the tracker (SQS with delays, run by the local worker runner) settles it.
    rpc = info["networks"][0]["rpcUrl"]
    fund = {"jsonrpc": "2.0", "id": 1, "method": "anvil_setBalance", "params": [wallet["address"], hex(10**18)]}
    requests.post(rpc, json=fund, timeout=5).raise_for_status()
    to = "0x000000000000000000000000000000000000dEaD"
    sent = call(
        "/api/v1/wallet/send-coin", bob_wallet["walletToken"], json={"network": "local-a", "to": to, "amount": "0.1"}
    )
    assert sent.status_code == 200, sent.text
    tx_hash = sent.json()["data"]["txReceipt"]["hash"]
    deadline = time.monotonic() + 60
    while True:
        view = requests.get(
            f"{api}/api/v1/wallet/transactions/{tx_hash}",
            headers={"x-client-secret": secret, "Authorization": f"Bearer {bob_wallet['walletToken']}"},
            timeout=10,
        ).json()["data"]
        if view["status"] != "pending" or time.monotonic() > deadline:
            break
        time.sleep(1)
    assert view["status"] == "mined" and view["blockNumber"] >= 1

    # Presignatures (issue 12): the refill worker stocked the new wallet's pool (2 here) on both parties' tables,
    # and a send then signs in the online step, audited as such.
    import boto3
    from boto3.dynamodb.conditions import Attr

    dynamodb = boto3.resource(
        "dynamodb",
        endpoint_url=info["awsEndpointUrl"],
        region_name="us-east-1",
        aws_access_key_id="local",
        aws_secret_access_key="local",
    )

    # (Other suites' wallets share the stack: only this wallet's pool is looked at.)
    key = {"pk": f"ADDRESS#{wallet['address']}", "sk": "META"}
    wallet_id = dynamodb.Table("dompet-local-wallets").get_item(Key=key)["Item"]["walletId"]

    def ready(party_table):
        table = dynamodb.Table(f"dompet-local-{party_table}")
        pool = Attr("pk").eq(f"WALLET#{wallet_id}") & Attr("sk").begins_with("READY#")
        return table.scan(FilterExpression=pool)["Items"]

    deadline = time.monotonic() + 120
    while (len(ready("signer-presignatures")) < 2 or len(ready("cosigner-presignatures")) < 2) and (
        time.monotonic() < deadline
    ):
        time.sleep(1)
    stocked = ready("signer-presignatures")
    assert len(stocked) == 2 and {i["sk"] for i in stocked} == {i["sk"] for i in ready("cosigner-presignatures")}
    again = call(
        "/api/v1/wallet/send-coin", bob_wallet["walletToken"], json={"network": "local-a", "to": to, "amount": "0.1"}
    )
    assert again.status_code == 200, again.text
    audit = dynamodb.Table("dompet-local-signing-audit").scan(FilterExpression=Attr("walletId").eq(wallet_id))
    assert sorted(r["method"] for r in audit["Items"]) == ["full", "presignature"]
    receipt = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "eth_getTransactionReceipt",
        "params": [again.json()["data"]["txReceipt"]["hash"]],
    }
    deadline = time.monotonic() + 30
    while not (mined := requests.post(rpc, json=receipt, timeout=5).json().get("result")):
        assert time.monotonic() < deadline, "the presigned send was not mined"
        time.sleep(0.5)
    assert mined["status"] == "0x1" and mined["from"].lower() == wallet["address"].lower()


def test_webhook_test_event_arrives_signed_within_30_s(stack):
    with WebhookReceiver() as receiver:
        info = stack["info"]
        put = signed(info, "PUT", "/api/v1/webhooks/settings", json.dumps({"url": receiver.url}).encode())
        assert put.status_code == 200, put.text
        started = time.monotonic()
        queued = signed(info, "POST", "/api/v1/webhooks/test")
        assert queued.status_code == 200, queued.text
        event_id = queued.json()["data"]["id"]
        while not receiver.received and time.monotonic() - started < 30:
            time.sleep(0.2)
        assert receiver.received, "the test event did not arrive within 30 s"
        headers, raw = receiver.received[0]
        assert headers["X-Service-Event-Id"] == event_id == json.loads(raw)["id"]
        assert [e["id"] for e in receiver.verified(info)] == [event_id]  # signed with the app's key


def test_custody_deposit_is_seen_and_credited_by_the_local_watcher(stack):
    """The local stack runs the deposit watcher every few seconds: a USDT transfer to a custody account's deposit
    address on anvil is credited to its activeBalance."""
    from web3 import Web3

    info = stack["info"]
    created = signed(info, "POST", "/api/v1/custody/accounts", json.dumps({"subId": "dev-custody"}).encode())
    assert created.status_code == 200, created.text
    account = created.json()["data"]
    wallet = next(w for w in account["wallets"] if w["network"] == "local-a")
    network = info["networks"][0]
    w3 = Web3(Web3.HTTPProvider(network["rpcUrl"]))
    stack_tokens.pay(w3, network["tokens"]["usdt"], wallet["address"], 4_250_000, sender_index=5)
    w3.provider.make_request("anvil_mine", ["0x2"])
    deadline = time.monotonic() + 60
    balance = None
    while time.monotonic() < deadline:
        balances = signed(info, "GET", f"/api/v1/custody/accounts/{account['id']}/balances").json()["data"]["balances"]
        balance = next(b for b in balances if b["network"] == "local-a" and b["tokenCode"] == "usdt")
        if balance["activeBalance"] == "4.25":
            break
        time.sleep(1)
    assert balance is not None and balance["activeBalance"] == "4.25", balance
    watcher = signed(info, "GET", "/api/v1/custody/networks/local-a/watcher").json()["data"]
    assert watcher["cursor"] is not None and watcher["lag"] is not None and watcher["lag"] < 10

    # A withdrawal over HTTP: the local workers send it (the custody key with the cosigner's policy) and settle it.
    [gas_wallet] = signed(info, "GET", "/api/v1/custody/gas-wallets").json()["data"]["data"]
    assert gas_wallet["mpcSubId"] == account["mpcSubId"]
    w3.provider.make_request("anvil_setBalance", [gas_wallet["address"], hex(10**19)])
    recipient = Web3.to_checksum_address("0x" + "5a" * 20)
    body = {"accountId": account["id"], "network": "local-a", "tokenCode": "usdt", "to": recipient, "amount": "1.5"}
    created = signed(info, "POST", "/api/v1/custody/withdrawals", json.dumps(body).encode())
    assert created.status_code == 200, created.text
    withdrawal_id = created.json()["data"]["id"]
    deadline = time.monotonic() + 120
    shown = None
    while time.monotonic() < deadline:
        shown = signed(info, "GET", f"/api/v1/custody/withdrawals/{withdrawal_id}").json()["data"]
        if shown["status"] in ("success", "failed"):
            break
        w3.provider.make_request("anvil_mine", ["0x1"])
        time.sleep(2)
    assert shown is not None and shown["status"] == "success", shown
    balance_of = "0x70a08231" + recipient[2:].lower().rjust(64, "0")
    paid = w3.eth.call({"to": network["tokens"]["usdt"], "data": balance_of})
    assert int.from_bytes(paid, "big") == 1_500_000  # on chain
    balances = signed(info, "GET", f"/api/v1/custody/accounts/{account['id']}/balances").json()["data"]["balances"]
    usdt = next(b for b in balances if b["network"] == "local-a" and b["tokenCode"] == "usdt")
    assert usdt["activeBalance"] == "2.75" and usdt["heldBalance"] == "0"


def _eth_call(rpc_url, to, data):
    answer = requests.post(
        rpc_url,
        json={"jsonrpc": "2.0", "id": 1, "method": "eth_call", "params": [{"to": to, "data": data}, "latest"]},
        timeout=5,
    ).json()
    return answer["result"]


def test_smart_accounts_run_on_both_chains_with_the_kms_paymaster_signer(stack):
    """EntryPoint, factory, the paymaster trusting the service's KMS key, a bundler and a pool per network; the
    service lists them and creates owners whose addresses the factory on chain agrees with."""
    import boto3
    from eth_abi import decode, encode
    from eth_utils import keccak

    info = stack["info"]
    kms = boto3.client("kms", endpoint_url=info["awsEndpointUrl"], region_name="us-east-1")
    der = kms.get_public_key(KeyId=f"alias/dompet-{info['stage']}-paymaster-signer")["PublicKey"]
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat, load_der_public_key

    point = load_der_public_key(der).public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    kms_signer = "0x" + keccak(point[1:])[12:].hex()
    listed = signed(info, "GET", "/api/v1/networks").json()["data"]["networks"]
    assert [n["chainId"] for n in listed] == [31337, 31338]
    owner = "0x" + os.urandom(20).hex()
    created = signed(
        info, "POST", "/api/v1/smart-account", json.dumps({"owner": {"id": owner, "provider": "wallet"}}).encode()
    )
    assert created.status_code == 200, created.text
    accounts = {a["chainId"]: a["aaAddress"] for a in created.json()["data"]["accounts"]}
    for network, entry in zip(evm_networks(info), listed, strict=True):
        for field in ("entryPoint", "accountFactory", "paymaster", "poolAddress", "entryPointV08", "paymasterV08"):
            assert network[field].lower() == entry[field].lower()
        assert network["entryPoint"] == "0x0000000071727De22E5E9d8BAf0edAc6f37da032"
        signer = _eth_call(network["rpcUrl"], network["paymaster"], "0x" + keccak(text="verifyingSigner()")[:4].hex())
        assert decode(["address"], bytes.fromhex(signer[2:]))[0].lower() == kms_signer.lower()
        # The v0.8 paymaster (EIP-7702 accounts) trusts the same key.
        approver = _eth_call(network["rpcUrl"], network["paymasterV08"], "0x" + keccak(text="approver()")[:4].hex())
        assert decode(["address"], bytes.fromhex(approver[2:]))[0].lower() == kms_signer.lower()
        data = keccak(text="getAddress(address,uint256)")[:4] + encode(["address", "uint256"], [owner, 0])
        on_chain = decode(
            ["address"], bytes.fromhex(_eth_call(network["rpcUrl"], network["accountFactory"], "0x" + data.hex())[2:])
        )[0]
        assert on_chain.lower() == accounts[network["chainId"]].lower()
        supported = requests.post(
            network["bundlerUrl"],
            json={"jsonrpc": "2.0", "id": 1, "method": "eth_supportedEntryPoints", "params": []},
            timeout=5,
        ).json()["result"]
        assert [a.lower() for a in supported] == [network["entryPoint"].lower(), network["entryPointV08"].lower()]


def test_family_s_whoami(stack):
    info = stack["info"]
    ok = signed(info, "GET", "/api/v1/auth/whoami")
    assert ok.status_code == 200 and ok.json()["data"]["appId"] == info["demo"]["appId"]

    old = (datetime.now(UTC) - timedelta(minutes=15)).isoformat(timespec="seconds").replace("+00:00", "Z")
    cases = {
        "INVALID_SIGNATURE": signed(info, "GET", "/api/v1/auth/whoami", secret="das_wrong"),
        "STALE_TIMESTAMP": signed(info, "GET", "/api/v1/auth/whoami", timestamp=old),
        "UNKNOWN_APP": signed(info, "GET", "/api/v1/auth/whoami", app_id="00000000-0000-4000-8000-000000000000"),
        "MISSING_SIGNATURE_HEADERS": requests.get(f"{info['apiUrl']}/api/v1/auth/whoami", timeout=10),
    }
    for code, response in cases.items():
        assert response.status_code == 401, code
        assert response.json()["status"] == 401 and response.json()["data"]["code"] == code


def test_family_w_login_and_session(stack):
    info = stack["info"]
    api, secret = info["apiUrl"], info["demo"]["clientSecret"]
    login = requests.post(
        f"{api}/api/v1/auth/login", json={"subId": "e2e-user"}, headers={"x-client-secret": secret}, timeout=10
    )
    assert login.status_code == 200
    data = login.json()["data"]
    assert data["isWalletCreated"] is False and data["accessToken"] and data["refreshToken"]

    def session(token, client_secret):
        return requests.get(
            f"{api}/api/v1/auth/session",
            headers={"Authorization": f"Bearer {token}", "x-client-secret": client_secret},
            timeout=10,
        )

    assert session(data["accessToken"], secret).status_code == 200
    wrong_secret = session(data["accessToken"], "dcs_wrong")
    assert wrong_secret.status_code == 401 and wrong_secret.json()["data"]["code"] == "INVALID_CLIENT_SECRET"
    tampered = data["accessToken"][:-3] + ("aaa" if not data["accessToken"].endswith("aaa") else "bbb")
    bad = session(tampered, secret)
    assert bad.status_code == 401 and bad.json()["data"]["code"] == "INVALID_TOKEN"

    wallet_route = requests.post(
        f"{api}/api/v1/wallet/balance-coin",
        json={"network": "local-a"},
        headers={"Authorization": f"Bearer {data['accessToken']}", "x-client-secret": secret},
        timeout=10,
    )
    assert wallet_route.status_code == 403 and wallet_route.json()["data"]["code"] == "WALLET_TOKEN_REQUIRED"

    refreshed = requests.post(
        f"{api}/api/v1/auth/refresh",
        json={"refreshToken": data["refreshToken"]},
        headers={"x-client-secret": secret},
        timeout=10,
    )
    assert refreshed.status_code == 200 and refreshed.json()["data"]["accessToken"]


def test_bad_input_is_400_naming_the_field(stack):
    info = stack["info"]
    url, headers = f"{info['apiUrl']}/api/v1/auth/login", {"x-client-secret": info["demo"]["clientSecret"]}
    malformed = requests.post(url, data=b"{oops", headers={**headers, "Content-Type": "application/json"}, timeout=10)
    assert malformed.status_code == 400 and malformed.json()["data"]["code"] == "MALFORMED_JSON"
    wrong_type = requests.post(url, json={"subId": 7}, headers=headers, timeout=10)
    assert wrong_type.status_code == 400
    assert wrong_type.json()["data"]["errors"][0]["field"] == "subId"


def test_scheduled_function_runs_against_the_stack(stack):
    env = operator_env(stack)
    result = subprocess.run(
        [sys.executable, "-m", "devtools.workers", "invoke", "rotate_signing_keys"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"invoked": "rotate_signing_keys"}


def _port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


def test_ctrl_c_stops_everything(stack):
    process = stack["process"]
    ports = [stack["ports"]["api"], stack["ports"]["moto"], *stack["ports"]["chains"]]
    assert all(_port_open(p) for p in ports)
    process.send_signal(signal.SIGINT)
    assert process.wait(timeout=30) == 0
    deadline = time.monotonic() + 10
    while any(_port_open(p) for p in ports) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not any(_port_open(p) for p in ports)
