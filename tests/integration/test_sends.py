"""Wallet sends end to end: the API with a wallet created by the real MPC parties, moto, and anvil.

Every send is checked on chain after mining; the receipt is compared with ethers v6.10's JSON of
the same transaction fetched from the node (npm `ethers`, devtools/ethers_tx_json.mjs).
"""

from __future__ import annotations

import json
import subprocess
import threading
import uuid
from decimal import Decimal
from pathlib import Path

import pytest
from eth_account import Account

from chalicelib.auth import users
from chalicelib.auth.models import WalletPrincipal
from chalicelib.auth.tokens import Claims, TokenKind
from chalicelib.evm import engine, erc20, pipeline, tracking
from chalicelib.platform import aws, clock, networks, settings
from chalicelib.tenancy import service as tenancy
from chalicelib.wallets import sending
from chalicelib.wallets.models import SendCoinRequest
from devtools import chain

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
RECEIPT_FIELDS = {
    "_type",
    "accessList",
    "blockNumber",
    "blockHash",
    "chainId",
    "data",
    "from",
    "gasLimit",
    "gasPrice",
    "hash",
    "maxFeePerGas",
    "maxPriorityFeePerGas",
    "nonce",
    "signature",
    "to",
    "type",
    "value",
}


@pytest.fixture(scope="module")
def local_chain(tmp_path_factory):
    with chain.start_anvil(chain.free_port(), 31337) as anvil:
        tokens = chain.deploy_test_contracts(anvil.rpc_url)
        path = tmp_path_factory.mktemp("networks") / "networks.json"
        entry = {"name": "local-a", "chainId": 31337, "rpcUrls": [anvil.rpc_url], "nativeSymbol": "ETH"}
        down = {"name": "down", "chainId": 31339, "rpcUrls": ["http://127.0.0.1:9"], "nativeSymbol": "ETH"}
        path.write_text(json.dumps({"networks": [{**entry, "tokens": tokens}, down]}))
        yield {"rpc": anvil.rpc_url, "tokens": tokens, "networks_file": path}


@pytest.fixture
def w3(local_chain):
    from web3 import Web3

    return Web3(Web3.HTTPProvider(local_chain["rpc"]))


@pytest.fixture
def wallet(local_chain, api, tenant, aux_sets, monkeypatch, w3):
    """A wallet made by the real parties, funded with 10 ETH, 1.5 USDT-6, 2 tokens of 18 decimals and an NFT."""
    monkeypatch.setenv("DOMPET_NETWORKS_FILE", str(local_chain["networks_file"]))
    settings.load_settings.cache_clear()
    networks.registry.cache_clear()
    erc20._info.clear()
    aux_sets(1)
    headers = {"Content-Type": "application/json", "x-client-secret": tenant.clientSecret}
    access = api.post("/api/v1/auth/login", body=json.dumps({"subId": "alice"}), headers=headers).json_body
    token = access["data"]["accessToken"]
    created = api.post(
        "/api/v1/account/create", body="{}", headers={**headers, "Authorization": f"Bearer {token}"}
    ).json_body["data"]
    address = created["address"]
    w3.provider.make_request("anvil_setBalance", [address, hex(10 * 10**18)])
    minter = w3.eth.accounts[0]
    nft_id = uuid.uuid4().int >> 64  # the chain lives for the module; each wallet gets its own token
    for key, args in (("usdt", (address, 1_500_000)), ("erc20", (address, 2 * 10**18)), ("erc721", (address, nft_id))):
        contract = _contract(w3, local_chain, key)
        w3.eth.wait_for_transaction_receipt(contract.functions.mint(*args).transact({"from": minter}))

    def post(path, body, key=None):
        extra = {"Idempotency-Key": key} if key else {}
        return api.post(
            path,
            body=json.dumps(body),
            headers={**headers, "Authorization": f"Bearer {created['walletToken']}", **extra},
        )

    def get(path):
        return api.get(path, headers={**headers, "Authorization": f"Bearer {created['walletToken']}"})

    yield {"address": address, "secret0": created["secret0"], "post": post, "get": get, "nft": nft_id}
    # This test's registry (with an unreachable network) must not outlive it in the cached settings.
    settings.load_settings.cache_clear()
    networks.registry.cache_clear()


def _contract(w3, local_chain, key):
    artifact = chain.load_artifact(chain.TEST_CONTRACTS[key])
    return w3.eth.contract(address=local_chain["tokens"][key], abi=artifact["abi"])


def _ethers_json(rpc_url: str, tx_hash: str) -> dict:
    out = subprocess.run(
        ["node", str(ROOT / "devtools" / "ethers_tx_json.mjs"), rpc_url, tx_hash],
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout
    return json.loads(out)


def _audit_count() -> int:
    return len(aws.table("signing-audit").scan()["Items"])


def test_send_coin_moves_exactly_the_amount_and_the_receipt_is_ethers_json(wallet, local_chain, w3):
    recipient = Account.create().address
    w3.provider.make_request("evm_setAutomine", [False])  # fetch the transaction while it is pending
    try:
        response = wallet["post"]("/api/v1/wallet/send-coin", {"network": "local-a", "to": recipient, "amount": "0.25"})
        assert response.status_code == 200, response.json_body
        assert response.json_body["message"] == "transaction is processing"
        receipt = response.json_body["data"]["txReceipt"]
        assert set(receipt) == RECEIPT_FIELDS
        assert receipt["_type"] == "TransactionReceipt" and receipt["blockNumber"] is None
        assert receipt["blockHash"] is None and receipt["chainId"] == "31337"
        assert receipt["value"] == str(25 * 10**16) and isinstance(receipt["nonce"], int)
        assert set(receipt["signature"]) == {"_type", "networkV", "r", "s", "v"}

        theirs = _ethers_json(local_chain["rpc"], receipt["hash"])
        theirs.pop("index", None)  # null for a pending transaction fetched from a node, absent when sent
        assert theirs == receipt
    finally:
        w3.provider.make_request("evm_mine", [])
        w3.provider.make_request("evm_setAutomine", [True])
    mined = w3.eth.wait_for_transaction_receipt(receipt["hash"])
    assert mined.status == 1
    assert w3.eth.get_balance(recipient) == 25 * 10**16


def test_legacy_raw_transaction_with_hex_fields_is_mined_and_matches_ethers(wallet, local_chain, w3):
    recipient = Account.create().address
    nonce = w3.eth.get_transaction_count(wallet["address"])
    raw = {
        "from": wallet["address"],
        "to": recipient,
        "data": "0x",
        "nonce": hex(nonce),
        "gasPrice": hex(3 * 10**9),
        "gasLimit": hex(21_000),
        "value": hex(12345),
    }
    w3.provider.make_request("evm_setAutomine", [False])
    try:
        response = wallet["post"]("/api/v1/wallet/send-transaction", {"chainId": "31337", "transaction": raw})
        assert response.status_code == 200, response.json_body
        receipt = response.json_body["data"]["txReceipt"]
        assert receipt["type"] == 0 and receipt["gasPrice"] == str(3 * 10**9) and receipt["maxFeePerGas"] is None
        theirs = _ethers_json(local_chain["rpc"], receipt["hash"])
        theirs.pop("index", None)
        assert theirs == receipt
    finally:
        w3.provider.make_request("evm_mine", [])
        w3.provider.make_request("evm_setAutomine", [True])
    assert w3.eth.wait_for_transaction_receipt(receipt["hash"]).status == 1
    assert w3.eth.get_balance(recipient) == 12345


def test_send_token_of_six_decimals(wallet, local_chain, w3):
    recipient = Account.create().address
    usdt = _contract(w3, local_chain, "usdt")
    body = {"network": "local-a", "to": recipient, "amount": "1.5", "tokenAddress": local_chain["tokens"]["usdt"]}
    response = wallet["post"]("/api/v1/wallet/send-token", body)
    assert response.status_code == 200, response.json_body
    receipt = response.json_body["data"]["txReceipt"]
    assert receipt["to"] == local_chain["tokens"]["usdt"] and receipt["value"] == "0"
    assert w3.eth.wait_for_transaction_receipt(receipt["hash"]).status == 1
    assert usdt.functions.balanceOf(recipient).call() == 1_500_000
    assert usdt.functions.balanceOf(wallet["address"]).call() == 0


def test_send_token_of_eighteen_decimals_with_the_users_secret(wallet, local_chain, w3):
    recipient = Account.create().address
    token = _contract(w3, local_chain, "erc20")
    body = {
        "network": "local-a",
        "to": recipient,
        "amount": "0.000000000000000001",
        "tokenAddress": local_chain["tokens"]["erc20"],
        "secret": wallet["secret0"],
    }
    response = wallet["post"]("/api/v1/wallet/send-token", body)
    assert response.status_code == 200, response.json_body
    assert w3.eth.wait_for_transaction_receipt(response.json_body["data"]["txReceipt"]["hash"]).status == 1
    assert token.functions.balanceOf(recipient).call() == 1
    parties = {tuple(i["parties"]) for i in aws.table("signing-audit").scan()["Items"]}
    assert parties == {("signer", "user")}


def test_transfer_erc721_changes_owner(wallet, local_chain, w3):
    recipient = Account.create().address
    nft = _contract(w3, local_chain, "erc721")
    nft_id = wallet["nft"]
    body = {
        "network": "local-a",
        "to": recipient,
        "tokenId": str(nft_id),
        "tokenAddress": local_chain["tokens"]["erc721"],
    }
    response = wallet["post"]("/api/v1/wallet/transfer-erc721", body)
    assert response.status_code == 200, response.json_body
    assert w3.eth.wait_for_transaction_receipt(response.json_body["data"]["txReceipt"]["hash"]).status == 1
    assert nft.functions.ownerOf(nft_id).call() == recipient
    again = wallet["post"]("/api/v1/wallet/transfer-erc721", body)
    assert again.status_code == 422 and again.json_body["data"]["code"] == "NOT_TOKEN_OWNER"


def test_concurrent_sends_get_consecutive_nonces_and_are_all_mined(wallet, local_chain, w3, tenant):
    user = users.get(tenant.clientId, "alice")
    principal = WalletPrincipal(
        tenancy.client_for_secret(tenant.clientSecret),
        Claims(user.userId, tenant.clientId, "alice", TokenKind.WALLET, 0, 2**31, "t"),
        user,
    )
    recipient = Account.create().address
    start = w3.eth.get_transaction_count(wallet["address"])
    results: list[dict] = []
    errors: list[BaseException] = []

    def send() -> None:
        try:
            request = SendCoinRequest(network="local-a", to=recipient, amount="0.001")
            results.append(sending.send_coin(principal, request).receipt)
        except BaseException as exc:  # noqa: BLE001 - collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=send) for _ in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert sorted(r["nonce"] for r in results) == list(range(start, start + 20))
    for r in results:
        assert w3.eth.wait_for_transaction_receipt(r["hash"]).status == 1
    assert w3.eth.get_balance(recipient) == 20 * 10**15


def test_one_idempotency_key_one_transaction(wallet, w3):
    recipient = Account.create().address
    key = str(uuid.uuid4())
    body = {"network": "local-a", "to": recipient, "amount": "0.5"}
    first = wallet["post"]("/api/v1/wallet/send-coin", body, key=key)
    second = wallet["post"]("/api/v1/wallet/send-coin", body, key=key)
    assert first.status_code == second.status_code == 200
    assert first.json_body == second.json_body
    assert second.headers.get("Idempotent-Replayed") == "true"
    w3.eth.wait_for_transaction_receipt(first.json_body["data"]["txReceipt"]["hash"])
    assert w3.eth.get_balance(recipient) == 5 * 10**17
    assert _audit_count() == 1

    other = wallet["post"]("/api/v1/wallet/send-coin", {**body, "amount": "0.6"}, key=key)
    assert other.status_code == 422 and other.json_body["data"]["code"] == "IDEMPOTENCY_KEY_REUSED"
    assert w3.eth.get_balance(recipient) == 5 * 10**17


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"amount": "100"}, 422, "INSUFFICIENT_FUNDS"),
        ({"amount": "abc"}, 400, "INVALID_AMOUNT"),
        ({"amount": "0"}, 400, "INVALID_AMOUNT"),
        ({"amount": "-1"}, 400, "INVALID_AMOUNT"),
        ({"amount": "1e3"}, 400, "INVALID_AMOUNT"),
        ({"amount": "0.0000000000000000001"}, 400, "INVALID_AMOUNT"),
        ({"to": "0x1234"}, 400, "INVALID_ADDRESS"),
        ({"to": "not an address"}, 400, "INVALID_ADDRESS"),
        ({"network": "down"}, 502, "UPSTREAM_UNAVAILABLE"),
        ({"secret": "wrong"}, 401, "INVALID_SECRET"),
    ],
)
def test_refused_sends_sign_and_send_nothing(wallet, w3, body, status, code):
    request = {"network": "local-a", "to": Account.create().address, "amount": "0.1", **body}
    nonce_before = w3.eth.get_transaction_count(wallet["address"], "pending")
    response = wallet["post"]("/api/v1/wallet/send-coin", request)
    assert response.status_code == status and response.json_body["data"]["code"] == code, response.json_body
    assert _audit_count() == 0
    assert w3.eth.get_transaction_count(wallet["address"], "pending") == nonce_before
    assert aws.table("wallet-transactions").scan()["Items"] == []


def test_value_that_fits_but_not_with_gas_is_refused(wallet, w3):
    balance = w3.eth.get_balance(wallet["address"])
    amount = str(Decimal(balance - 1000) / Decimal(10**18))  # every wei but 1000: no room for gas
    response = wallet["post"](
        "/api/v1/wallet/send-coin", {"network": "local-a", "to": wallet["address"], "amount": amount}
    )
    assert response.status_code == 422 and response.json_body["data"]["code"] == "INSUFFICIENT_FUNDS"
    assert _audit_count() == 0


def test_a_refused_broadcast_gives_its_nonce_back(wallet, w3):
    recipient = Account.create().address
    start = w3.eth.get_transaction_count(wallet["address"], "pending")
    # 1 wei per gas is below anvil's base fee: the node refuses the signed transaction.
    raw = {"from": wallet["address"], "to": recipient, "gasPrice": "0x1", "value": "0x1"}
    refused = wallet["post"]("/api/v1/wallet/send-transaction", {"network": "local-a", "transaction": raw})
    assert refused.status_code == 422 and refused.json_body["data"]["code"] == "BROADCAST_REJECTED"
    (record,) = aws.table("wallet-transactions").scan(
        FilterExpression="#s = :f",
        ExpressionAttributeNames={"#s": "status"},
        ExpressionAttributeValues={":f": "failed"},
    )["Items"]
    assert int(record["nonce"]) == start

    ok = wallet["post"]("/api/v1/wallet/send-coin", {"network": "local-a", "to": recipient, "amount": "0.001"})
    assert ok.status_code == 200 and ok.json_body["data"]["txReceipt"]["nonce"] == start, "no gap is left"
    assert w3.eth.wait_for_transaction_receipt(ok.json_body["data"]["txReceipt"]["hash"]).status == 1


def test_a_reverted_transaction_is_tracked_as_failed(wallet, local_chain, w3):
    usdt = local_chain["tokens"]["usdt"]
    too_much = "a9059cbb" + "00" * 12 + wallet["address"][2:].lower() + f"{10**30:064x}"  # transfer(self, 10^30)
    raw = {"from": wallet["address"], "to": usdt, "data": "0x" + too_much, "gasLimit": hex(100_000)}
    response = wallet["post"]("/api/v1/wallet/send-transaction", {"network": "local-a", "transaction": raw})
    assert response.status_code == 200, response.json_body
    tx_hash = response.json_body["data"]["txReceipt"]["hash"]
    assert w3.eth.wait_for_transaction_receipt(tx_hash).status == 0
    engine.check(tx_hash)
    view = wallet["get"](f"/api/v1/wallet/transactions/{tx_hash}").json_body["data"]
    assert view["status"] == "failed" and view["failedReason"] == "reverted on chain"


def test_a_forgotten_transaction_is_dropped_only_once_its_nonce_is_used_by_another(wallet, w3):
    """The old tracker declared a transaction dropped after 5 misses and gave its nonce back, although it could
    still be mined; now it stays tracked until the chain proves its nonce went to another transaction."""
    recipient = Account.create().address
    start = w3.eth.get_transaction_count(wallet["address"], "pending")
    w3.provider.make_request("evm_setAutomine", [False])
    try:
        sent = wallet["post"]("/api/v1/wallet/send-coin", {"network": "local-a", "to": recipient, "amount": "0.001"})
        tx_hash = sent.json_body["data"]["txReceipt"]["hash"]
        w3.provider.make_request("anvil_dropTransaction", [tx_hash])
        # Re-broadcasting cannot bring it back (as when every node lost it and it is no longer valid).
        aws.table("wallet-transactions").update_item(
            Key={"pk": f"TX#{tx_hash}", "sk": "TX"},
            UpdateExpression="SET #r = :bad",
            ExpressionAttributeNames={"#r": "raw"},
            ExpressionAttributeValues={":bad": "0x00"},
        )
        for _ in range(6):
            engine.check(tx_hash)
        view = wallet["get"](f"/api/v1/wallet/transactions/{tx_hash}").json_body["data"]
        assert view["status"] == "pending"  # no proof yet that it can never be mined
    finally:
        w3.provider.make_request("evm_setAutomine", [True])
    # Another transaction takes the nonce: now the first can never be mined.
    replacement = {
        "from": wallet["address"],
        "to": recipient,
        "value": hex(1),
        "nonce": hex(start),
        "gasLimit": hex(21_000),
    }
    other = wallet["post"]("/api/v1/wallet/send-transaction", {"network": "local-a", "transaction": replacement})
    assert other.status_code == 200, other.json_body
    assert w3.eth.wait_for_transaction_receipt(other.json_body["data"]["txReceipt"]["hash"]).status == 1
    engine.check(tx_hash)
    view = wallet["get"](f"/api/v1/wallet/transactions/{tx_hash}").json_body["data"]
    assert view["status"] == "dropped" and "another transaction" in view["failedReason"]
    again = wallet["post"]("/api/v1/wallet/send-coin", {"network": "local-a", "to": recipient, "amount": "0.001"})
    assert again.json_body["data"]["txReceipt"]["nonce"] == start + 1  # the used nonce is not handed out again
    assert w3.eth.wait_for_transaction_receipt(again.json_body["data"]["txReceipt"]["hash"]).status == 1


def test_one_tracker_chain_per_transaction(wallet, monkeypatch):
    queued: list[str] = []
    monkeypatch.setattr(tracking, "enqueue", lambda tx_hash, step, delay_s: queued.append(tx_hash))
    sent = wallet["post"](
        "/api/v1/wallet/send-coin", {"network": "local-a", "to": Account.create().address, "amount": "0.001"}
    )
    assert queued == [sent.json_body["data"]["txReceipt"]["hash"]]  # record + mark_pending used to start two


def test_a_stale_tracker_step_cannot_overwrite_a_newer_state(wallet, w3):
    sent = wallet["post"](
        "/api/v1/wallet/send-coin", {"network": "local-a", "to": Account.create().address, "amount": "0.001"}
    )
    tx_hash = sent.json_body["data"]["txReceipt"]["hash"]
    w3.eth.wait_for_transaction_receipt(tx_hash)
    stale = tracking.read(tx_hash)
    engine.check(tx_hash)  # settles it: mined
    assert tracking.move(stale, "pending") is False  # read before the settlement: refused
    assert tracking.read(tx_hash).status == "mined"


def test_refused_token_sends(wallet, local_chain):
    usdt = local_chain["tokens"]["usdt"]
    too_much = {"network": "local-a", "to": wallet["address"], "amount": "1.500001", "tokenAddress": usdt}
    response = wallet["post"]("/api/v1/wallet/send-token", too_much)
    assert response.status_code == 422 and response.json_body["data"]["code"] == "INSUFFICIENT_TOKEN_BALANCE"
    precise = {**too_much, "amount": "0.0000001"}
    response = wallet["post"]("/api/v1/wallet/send-token", precise)
    assert response.status_code == 400 and response.json_body["data"]["code"] == "INVALID_AMOUNT"
    assert _audit_count() == 0


def test_tracking_follows_a_send_to_mined(wallet, w3):
    response = wallet["post"](
        "/api/v1/wallet/send-coin", {"network": "local-a", "to": Account.create().address, "amount": "0.01"}
    )
    tx_hash = response.json_body["data"]["txReceipt"]["hash"]
    w3.eth.wait_for_transaction_receipt(tx_hash)
    pending = wallet["get"](f"/api/v1/wallet/transactions/{tx_hash}").json_body["data"]
    assert pending["status"] == "pending" and pending["txReceipt"]["hash"] == tx_hash

    answered = response.json_body["data"]["txReceipt"]
    # A typed transaction's gasPrice is the node's figure: in the send's answer at once; in the stored receipt
    # from the tracker's first check (until then it is the fee cap); once mined, what the node says it charged.
    assert answered["type"] == 2 and pending["txReceipt"]["gasPrice"] == answered["maxFeePerGas"]
    engine.check(tx_hash)  # what the SQS consumer does with the queued message
    done = wallet["get"](f"/api/v1/wallet/transactions/{tx_hash}").json_body["data"]
    assert done["status"] == "mined" and done["blockNumber"] > 0 and int(done["gasUsed"]) == 21_000
    charged = w3.eth.get_transaction(tx_hash)["gasPrice"]
    assert done["txReceipt"]["gasPrice"] == str(charged) == done["effectiveGasPrice"]
    assert {k: v for k, v in done["txReceipt"].items() if k != "gasPrice"} == {
        k: v for k, v in answered.items() if k != "gasPrice"
    }
    assert Decimal(done["value"]) == Decimal(10**16)

    listed = wallet["get"]("/api/v1/wallet/transactions").json_body["data"]
    assert listed["pagination"]["total"] == 1 and listed["data"][0]["hash"] == tx_hash
    assert wallet["get"]("/api/v1/wallet/transactions/0x" + "00" * 32).status_code == 404


def test_a_tracker_step_during_the_broadcast_does_not_give_the_nonce_back(wallet, w3, monkeypatch):
    """The duplicate nonce: a tracker step that ran while a send was between recording and broadcasting
    found the transaction unknown to the node, dropped it and gave its nonce back, so a later send got the
    same nonce. Here the tracker even believes the request died (the record is older than ORPHAN_CHECK_S): the send
    claimed its record before broadcasting, so the record is not dropped and its nonce stays taken."""
    from eth_utils import keccak

    real = pipeline.rpc_call

    def tracker_runs_first(network, method, params, *args, **kwargs):
        if method == "eth_sendRawTransaction":
            tx_hash = "0x" + keccak(bytes.fromhex(params[0][2:])).hex()
            aws.table("wallet-transactions").update_item(  # as if its request had been running for long
                Key={"pk": f"TX#{tx_hash}", "sk": "TX"},
                UpdateExpression="SET createdAt = :old",
                ExpressionAttributeValues={":old": clock.iso_in(-(tracking.ORPHAN_CHECK_S + 1))},
            )
            engine.check(tx_hash)
        return real(network, method, params, *args, **kwargs)

    monkeypatch.setattr(pipeline, "rpc_call", tracker_runs_first)
    start = w3.eth.get_transaction_count(wallet["address"], "pending")
    hashes, nonces = [], []
    for _ in range(2):
        sent = wallet["post"](
            "/api/v1/wallet/send-coin", {"network": "local-a", "to": Account.create().address, "amount": "0.001"}
        )
        assert sent.status_code == 200, sent.json_body
        hashes.append(sent.json_body["data"]["txReceipt"]["hash"])
        nonces.append(sent.json_body["data"]["txReceipt"]["nonce"])
    assert nonces == [start, start + 1]
    for tx_hash in hashes:
        assert w3.eth.wait_for_transaction_receipt(tx_hash).status == 1
        assert tracking.read(tx_hash).status == "pending"  # not dropped
        engine.check(tx_hash)
        assert tracking.read(tx_hash).status == "mined"


def test_ten_parallel_sends_over_http_get_consecutive_distinct_nonces(wallet, w3, monkeypatch):
    """Issue 9: 10 parallel send-coin calls once got nonces 1, 2, 3, 3, 4…9."""
    from concurrent.futures import ThreadPoolExecutor

    from chalicelib.platform import deadline

    # Ten Lambdas would each have their own CPU for their 2-of-3 signature; here ten requests share two cores
    # and one moto, so each takes ~25 s instead of ~3 s. The subject is nonce allocation, not throughput: give
    # each request a budget for the shared machine (the budget itself is tested in tests/unit).
    monkeypatch.setattr(deadline, "from_lambda_context", lambda context, fallback_s: 120.0)

    start = w3.eth.get_transaction_count(wallet["address"], "pending")

    def send(_):
        body = {"network": "local-a", "to": Account.create().address, "amount": "0.0001"}
        return wallet["post"]("/api/v1/wallet/send-coin", body)

    with ThreadPoolExecutor(10) as pool:
        answers = list(pool.map(send, range(10)))
    assert all(a.status_code == 200 for a in answers), [a.json_body for a in answers]
    nonces = sorted(a.json_body["data"]["txReceipt"]["nonce"] for a in answers)
    assert nonces == list(range(start, start + 10))
    for a in answers:  # on chain too: every one mined, none refused for a reused nonce
        assert w3.eth.wait_for_transaction_receipt(a.json_body["data"]["txReceipt"]["hash"]).status == 1
    assert w3.eth.get_transaction_count(wallet["address"]) == start + 10


def test_a_broadcast_no_node_confirms_answers_502_with_the_hash_and_is_tracked(wallet, w3, monkeypatch):
    """Kept wire behaviour (docs/wallets.md), now a domain result the route maps: no Reply from a service."""
    from chalicelib.platform.errors import UPSTREAM_UNAVAILABLE, upstream_unavailable

    real = pipeline.rpc_call

    def no_node_answers(network, method, params, *args, **kwargs):
        if method == "eth_sendRawTransaction":
            raise upstream_unavailable(UPSTREAM_UNAVAILABLE, "no RPC endpoint is reachable")  # as transport does
        return real(network, method, params, *args, **kwargs)

    monkeypatch.setattr(pipeline, "rpc_call", no_node_answers)
    key = str(uuid.uuid4())
    body = {"network": "local-a", "to": Account.create().address, "amount": "0.001"}
    first = wallet["post"]("/api/v1/wallet/send-coin", body, key=key)
    assert first.status_code == 502, first.json_body
    assert first.json_body["data"]["code"] == "UPSTREAM_UNAVAILABLE"
    tx_hash = first.json_body["data"]["hash"]
    assert tracking.read(tx_hash).status == "pending"
    again = wallet["post"]("/api/v1/wallet/send-coin", body, key=key)
    assert again.status_code == 502 and again.json_body == first.json_body  # stored: never signed anew
    assert _audit_count() == 1
    monkeypatch.setattr(pipeline, "rpc_call", real)
    engine.check(tx_hash)  # the tracker re-broadcasts it
    assert w3.eth.wait_for_transaction_receipt(tx_hash).status == 1


def test_a_stocked_wallet_sends_through_its_presignature_pool(wallet, w3, monkeypatch):
    """Issue 12: with presignatures in stock a send signs in the online step (no signing session starts), and the
    transaction it signed is mined with the right value from the wallet's address."""
    import dompet_mpc as mpc

    from chalicelib.mpc import presignatures, shares
    from tests.support.mpc import refill_messages, run_refill_function

    monkeypatch.setenv("DOMPET_PRESIGN_POOL_CEILING", "1")
    settings.load_settings.cache_clear()
    (message,) = refill_messages()  # queued by the wallet's creation
    assert run_refill_function(message) == {"batchItemFailures": []}
    wallet_id = message["walletId"]
    assert len(presignatures.ready_ids(shares.SIGNER, wallet_id)) == 1

    def refuse(*args, **kwargs):
        raise AssertionError("a full signing session started")

    monkeypatch.setattr(mpc, "signing_session", refuse)
    recipient = Account.create().address
    response = wallet["post"]("/api/v1/wallet/send-coin", {"network": "local-a", "to": recipient, "amount": "0.125"})
    assert response.status_code == 200, response.json_body
    mined = w3.eth.wait_for_transaction_receipt(response.json_body["data"]["txReceipt"]["hash"])
    assert mined["status"] == 1 and mined["from"] == wallet["address"]
    assert w3.eth.get_balance(recipient) == 125 * 10**15  # on chain
    assert presignatures.ready_ids(shares.SIGNER, wallet_id) == []
    (record,) = [r for r in aws.table("signing-audit").scan()["Items"] if r["walletId"] == wallet_id]
    assert record["method"] == "presignature" and record["outcome"] == "signed"
    # The pool is empty now: the next send signs in full (and asks for a refill).
    monkeypatch.undo()
    settings.load_settings.cache_clear()
    again = wallet["post"]("/api/v1/wallet/send-coin", {"network": "local-a", "to": recipient, "amount": "0.125"})
    assert again.status_code == 200, again.json_body
    w3.eth.wait_for_transaction_receipt(again.json_body["data"]["txReceipt"]["hash"])
    assert w3.eth.get_balance(recipient) == 250 * 10**15
    # A refill was asked when the pool fell below its low-water mark, and again by the send that found it empty.
    assert refill_messages() == [{"walletId": wallet_id}] * 2


@pytest.fixture
def imported(local_chain, api, tenant, aux_sets, monkeypatch, w3):
    """A wallet made from an imported private key, which the test also uses directly (as its owner might
    elsewhere), funded with 10 ETH."""
    monkeypatch.setenv("DOMPET_NETWORKS_FILE", str(local_chain["networks_file"]))
    settings.load_settings.cache_clear()
    networks.registry.cache_clear()
    aux_sets(1)
    key = Account.create()
    headers = {"Content-Type": "application/json", "x-client-secret": tenant.clientSecret}
    access = api.post("/api/v1/auth/login", body=json.dumps({"subId": "bob"}), headers=headers).json_body
    created = api.post(
        "/api/v1/account/import",
        body=json.dumps({"privateKey": key.key.hex()}),
        headers={**headers, "Authorization": f"Bearer {access['data']['accessToken']}"},
    ).json_body["data"]
    assert created["address"] == key.address
    w3.provider.make_request("anvil_setBalance", [key.address, hex(10 * 10**18)])

    def post(path, body):
        return api.post(
            path, body=json.dumps(body), headers={**headers, "Authorization": f"Bearer {created['walletToken']}"}
        )

    yield {"address": key.address, "key": key, "post": post}
    settings.load_settings.cache_clear()
    networks.registry.cache_clear()


@pytest.mark.parametrize("elsewhere", ["mined", "pending"])
def test_a_nonce_the_key_used_elsewhere_is_read_again_and_the_send_goes_out_once(imported, w3, monkeypatch, elsewhere):
    """The imported key sends a transaction of its own (directly, with web3) between the service's nonce read and
    its broadcast: the node refuses the service's transaction for its nonce ("nonce too low" once the other is
    mined, "replacement transaction underpriced" while it waits in the pool with a higher fee). The send reads
    the chain's nonce again, signs again and broadcasts once more: 200, and the amount moves once, on chain."""
    recipient, other = Account.create().address, Account.create().address
    real = pipeline.rpc_call
    broadcasts = []

    def key_used_elsewhere(network, method, params, *args, **kwargs):
        if method == "eth_sendRawTransaction":
            broadcasts.append(params[0])
            if len(broadcasts) == 1:
                nonce = w3.eth.get_transaction_count(imported["address"], "pending")
                # Ten times what the service offers (its tip is the node's suggestion): the node keeps this one.
                fee = 10 * (w3.eth.max_priority_fee + 2 * w3.eth.get_block("latest")["baseFeePerGas"])
                direct = imported["key"].sign_transaction(
                    {
                        "chainId": 31337,
                        "nonce": nonce,
                        "to": other,
                        "value": 7,
                        "gas": 21_000,
                        "maxFeePerGas": fee,
                        "maxPriorityFeePerGas": fee,
                    }
                )
                w3.eth.send_raw_transaction(direct.raw_transaction)
        return real(network, method, params, *args, **kwargs)

    monkeypatch.setattr(pipeline, "rpc_call", key_used_elsewhere)
    start = w3.eth.get_transaction_count(imported["address"], "pending")
    if elsewhere == "pending":
        w3.provider.make_request("evm_setAutomine", [False])
    try:
        answer = imported["post"]("/api/v1/wallet/send-coin", {"network": "local-a", "to": recipient, "amount": "0.5"})
    finally:
        if elsewhere == "pending":
            w3.provider.make_request("evm_mine", [])
            w3.provider.make_request("evm_setAutomine", [True])
    assert answer.status_code == 200, answer.json_body
    receipt = answer.json_body["data"]["txReceipt"]
    assert receipt["nonce"] == start + 1  # the other transaction has `start`
    assert len(broadcasts) == 2  # refused once, signed again, sent once more
    mined = w3.eth.wait_for_transaction_receipt(receipt["hash"])
    assert mined.status == 1 and mined["from"] == imported["address"]
    assert w3.eth.get_balance(recipient) == 5 * 10**17 and w3.eth.get_balance(other) == 7
    assert w3.eth.get_transaction_count(imported["address"]) == start + 2
    statuses = sorted(r["status"] for r in aws.table("wallet-transactions").scan()["Items"] if "status" in r)
    assert statuses == ["failed", "pending"]  # the refused one stays failed; the tracker settles the other


def test_every_error_answer_of_a_send_is_logged_with_its_code_and_reason(wallet, w3, monkeypatch):
    """A 4xx and a 5xx of a send each leave one line with status, code and message; no secret of the request."""
    import logging

    from chalicelib.platform.errors import UPSTREAM_UNAVAILABLE, upstream_unavailable
    from chalicelib.platform.logging import logger

    lines: list[str] = []

    class Capture(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(logger.registered_formatter.format(record))

    capture = Capture()
    logger.addHandler(capture)
    real = pipeline.rpc_call

    def no_node_answers(network, method, params, *args, **kwargs):
        if method == "eth_sendRawTransaction":
            raise upstream_unavailable(UPSTREAM_UNAVAILABLE, "no RPC endpoint is reachable")  # as transport does
        return real(network, method, params, *args, **kwargs)

    try:
        too_much = wallet["post"](
            "/api/v1/wallet/send-coin",
            {"network": "local-a", "to": wallet["address"], "amount": "1000", "secret": wallet["secret0"]},
        )
        assert too_much.status_code == 422
        monkeypatch.setattr(pipeline, "rpc_call", no_node_answers)
        unconfirmed = wallet["post"](
            "/api/v1/wallet/send-coin", {"network": "local-a", "to": Account.create().address, "amount": "0.001"}
        )
        assert unconfirmed.status_code == 502
    finally:
        logger._logger.removeHandler(capture)
    answers = [json.loads(line) for line in lines if '"error answer"' in line]
    assert [(a["status"], a["code"]) for a in answers] == [
        (too_much.status_code, too_much.json_body["data"]["code"]),
        (502, "UPSTREAM_UNAVAILABLE"),
    ]
    assert answers[0]["reason"] == too_much.json_body["message"] and answers[0]["level"] == "INFO"
    assert answers[1]["reason"] == unconfirmed.json_body["message"] and answers[1]["level"] == "WARNING"
    assert all(a["requestId"] for a in answers)
    logged = "\n".join(lines)
    assert wallet["secret0"] not in logged and "walletToken" not in logged and "Bearer" not in logged


def test_a_send_the_signer_cannot_sign_in_time_is_refused_before_it_takes_a_nonce(wallet, w3, monkeypatch):
    """Every run slot busy, no presignature and a short budget: 503 SIGNER_BUSY with a Retry-After, and nothing
    taken (no nonce, no audit record, no transaction); the same Idempotency-Key is answered 200 later."""
    import contextlib

    from chalicelib.evm import nonces
    from chalicelib.mpc import service
    from chalicelib.platform import deadline

    def nonce_item():
        return aws.table("nonces").get_item(Key=nonces.key(wallet["address"], 31337), ConsistentRead=True).get("Item")

    before = nonce_item()
    monkeypatch.setattr(service, "_full_run_s", 3.0)
    monkeypatch.setattr(deadline, "from_lambda_context", lambda context, fallback_s: 8.0)
    key = str(uuid.uuid4())
    body = {"network": "local-a", "to": Account.create().address, "amount": "0.001"}
    with contextlib.ExitStack() as held:
        for _ in range(service.RUN_SLOTS):
            held.enter_context(service._run_slot())
        busy = wallet["post"]("/api/v1/wallet/send-coin", body, key=key)
    assert busy.status_code == 503 and busy.json_body["data"]["code"] == "SIGNER_BUSY", busy.json_body
    retry_after = int(busy.headers["Retry-After"])
    assert 1 <= retry_after <= 6 and busy.json_body["data"]["retryAfter"] == retry_after
    assert nonce_item() == before and _audit_count() == 0
    assert aws.table("wallet-transactions").scan()["Items"] == []

    monkeypatch.setattr(deadline, "from_lambda_context", lambda context, fallback_s: 60.0)
    later = wallet["post"]("/api/v1/wallet/send-coin", body, key=key)
    assert later.status_code == 200, later.json_body
    assert w3.eth.wait_for_transaction_receipt(later.json_body["data"]["txReceipt"]["hash"]).status == 1
