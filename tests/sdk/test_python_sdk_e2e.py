"""The Python SDK end to end against the local stack (`make dev`, the session's `stack` fixture), as an integrator
uses it: the README's quick start, a user logged in, an MPC wallet created, coin sent and seen mined on anvil,
balances read, a smart account created and its user operations (paid by the organization's gas tank, topped up
for real) listed page by page, a webhook URL set and `webhook.test` received on a local receiver that verifies
it with `dompet.webhooks.verify`, and a forged delivery rejected by the same receiver."""

from __future__ import annotations

import base64
import json
import sys
import threading
import time
import uuid
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import requests
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from eth_account import Account
from eth_account.messages import encode_defunct
from web3 import Web3

SDK = Path(__file__).resolve().parents[2] / "sdk" / "python"
if str(SDK) not in sys.path:
    sys.path.insert(0, str(SDK))

import dompet  # noqa: E402
from dompet import api, models, webhooks  # noqa: E402

from tests.support import top_ups  # noqa: E402
from tests.support.devstack import evm_networks  # noqa: E402

pytestmark = pytest.mark.integration


def wait_for(check, timeout_s: float, what: str, every_s: float = 0.5):
    deadline = time.monotonic() + timeout_s
    while True:
        value = check()
        if value:
            return value
        assert time.monotonic() < deadline, f"{what} within {timeout_s} s"
        time.sleep(every_s)


@pytest.fixture(scope="module")
def clients(stack):
    info = stack["info"]
    demo = info["demo"]
    app = dompet.Dompet(info["apiUrl"], app_id=demo["appId"], app_secret=demo["appSecret"])
    backend = dompet.Dompet(info["apiUrl"], client_secret=demo["clientSecret"])
    yield info, app, backend
    app.close()
    backend.close()


def test_readme_quick_start(clients):
    info, _, _ = clients
    demo = info["demo"]
    # README.md, "Quick start" (Python):
    from dompet import Dompet

    d = Dompet(info["apiUrl"], app_id=demo["appId"], app_secret=demo["appSecret"])
    me = d.request("GET", "/api/v1/auth/whoami")
    assert me == {"appId": demo["appId"], "clientId": demo["clientId"], "organizationId": demo["organizationId"]}


def test_a_user_creates_a_wallet_sends_coin_and_reads_balances(clients):
    info, _, backend = clients
    network = info["networks"][0]
    w3 = Web3(Web3.HTTPProvider(network["rpcUrl"]))

    alice = backend.login(f"sdk-{uuid.uuid4().hex[:12]}")
    assert not alice.is_wallet_created
    with pytest.raises(dompet.PermissionDeniedError) as early:  # an access token cannot use a wallet
        alice.call(api.post_wallet_balance_coin, body=models.WalletRequest(network=network["name"]))
    assert early.value.code == "WALLET_TOKEN_REQUIRED"
    created = alice.call(api.post_account_create, body=models.CreateWalletRequest())
    assert alice.is_wallet_created and alice.token == created.wallet_token  # the session adopted the wallet token
    address = created.address
    session = alice.request("GET", "/api/v1/auth/session")
    assert session["address"] == address and session["tokenType"] == "wallet"

    w3.provider.make_request("anvil_setBalance", [address, hex(10**18)])
    recipient = Account.create().address
    sent = alice.call(
        api.post_wallet_send_coin,
        body=models.SendCoinRequest(network=network["name"], to=recipient, amount="0.125"),
    )
    tx_hash = sent.tx_receipt.hash_

    def mined():
        view = alice.call(api.get_wallet_transactions_by_hash, hash_=tx_hash)
        return view if str(view.status) == "mined" else None

    view = wait_for(mined, 60, "the send is mined")
    receipt = w3.eth.get_transaction_receipt(tx_hash)  # on chain
    assert receipt["status"] == 1 and receipt["from"] == address and receipt["to"] == recipient
    assert view.block_number == receipt["blockNumber"]
    assert w3.eth.get_balance(recipient) == Web3.to_wei(Decimal("0.125"), "ether")

    balance = alice.call(api.post_wallet_balance_coin, body=models.WalletRequest(network=network["name"]))
    assert balance.address == address and balance.symbol == "ETH"
    assert Decimal(balance.balance) == Decimal(w3.eth.get_balance(address)) / 10**18
    listed = [t for page in alice.pages("/api/v1/wallet/transactions", limit=1) for t in page.items]
    assert [t["hash"] for t in listed] == [tx_hash]


def test_a_smart_account_and_its_user_operations_page_by_page(clients):
    info, app, _ = clients
    network = info["networks"][0]
    chain_id = network["chainId"]
    w3 = Web3(Web3.HTTPProvider(network["rpcUrl"]))
    owner = Account.create()

    record = app.call(
        api.post_smart_account, body=models.CreateSmartAccount(owner=models.OwnerRef(owner.address, "wallet"))
    )
    assert {a.chain_id for a in record.accounts} == {n["chainId"] for n in evm_networks(info)}
    account = next(a for a in record.accounts if a.chain_id == chain_id)
    assert w3.eth.get_code(account.aa_address) == b""  # not deployed yet

    # The organization's gas tank pays (sponsored): a real USDT top-up on anvil, claimed through the SDK.
    chains = {"entries": evm_networks(info), "w3": {chain_id: w3}}
    tank_before = int(app.request("GET", "/api/v1/client/gasTank")["balance"])
    tx_hash, sender = top_ups.transfer(chains, chain_id, 20_000_000)
    app.request("POST", "/api/v1/client/gasTank/topUp", top_ups.request(chains, chain_id, tx_hash, sender))
    assert int(app.request("GET", "/api/v1/client/gasTank")["balance"]) == tank_before + 20_000_000 * 10**12

    def submit(hashed: Any) -> str:
        signature = owner.sign_message(encode_defunct(primitive=bytes.fromhex(hashed.hash_[2:]))).signature
        body = models.Submit(
            signature="0x" + bytes(signature).hex(), user_op_id=hashed.user_op_id, hash_=hashed.hash_, is_sponsored=True
        )
        submitted = app.call(api.post_user_op_submit, body=body)
        assert str(submitted.status) == "on_process", submitted
        return str(hashed.user_op_id)

    def settled(user_op_id: str) -> Any:
        op = app.call(api.get_user_op_by_id, id=user_op_id)
        return op if str(op.status) in ("success", "failed") else None

    first = submit(app.call(api.post_user_op_activate_hash, body=models.Activate(account_id=account.id)))
    assert str(wait_for(lambda: settled(first), 90, "the activation settles").status) == "success"
    assert w3.eth.get_code(account.aa_address) != b""  # deployed on chain

    w3.provider.make_request("anvil_setBalance", [account.aa_address, hex(10**18)])
    recipient = Account.create().address
    coin = models.SendCoin(account_id=account.id, to=recipient, amount="1000")
    later = [submit(app.call(api.post_user_op_send_coin_hash, body=coin)) for _ in range(2)]

    pages = list(app.pages(api.get_user_op_owner_by_owner_id, owner_id=record.id, limit=2))
    assert [(p.page, len(p.items), p.total, p.has_next) for p in pages] == [(1, 2, 3, True), (2, 1, 3, False)]
    assert [op.id for p in pages for op in p.items] == [*reversed(later), first]  # newest first
    by_path = [op["id"] for op in app.items(f"/api/v1/userOp/owner/{owner.address}", limit=1)]
    assert by_path == [*reversed(later), first]

    for user_op_id in later:
        assert str(wait_for(lambda u=user_op_id: settled(u), 90, "the sends settle").status) == "success"
    assert w3.eth.get_balance(recipient) == 2000  # both transfers, on chain


class Receiver:
    """A local webhook endpoint that accepts (204) only deliveries dompet.webhooks.verify accepts, else 401."""

    def __init__(self) -> None:
        self.public_key: Any = None
        self.accepted: list[dict[str, Any]] = []
        self.rejected: list[str] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                try:
                    event = webhooks.verify(body, self.headers, receiver.public_key)
                except dompet.WebhookVerificationError as exc:
                    receiver.rejected.append(str(exc))
                    self.send_response(401)
                else:
                    receiver.accepted.append(event)
                    self.send_response(204)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks/dompet"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def test_webhook_test_event_is_verified_by_the_sdk_and_a_forged_one_rejected(clients):
    _, app, _ = clients
    receiver = Receiver()
    try:
        receiver.public_key = app.call(api.get_webhooks_public_key).to_dict()  # current and previous keys
        saved = app.call(api.put_webhooks_settings, body=models.WebhookSettingsRequest(url=receiver.url))
        assert saved.url == receiver.url and saved.enabled
        queued = app.request("POST", "/api/v1/webhooks/test")
        wait_for(lambda: receiver.accepted, 30, "the signed webhook.test arrives", every_s=0.2)
        [event] = receiver.accepted
        assert event["id"] == queued["id"] and event["type"] == "webhook.test" and event["apiVersion"]

        def delivered():
            found = [d for d in app.items(api.get_webhooks_deliveries, limit=20) if d.event_id == queued["id"]]
            return found if found and str(found[0].status) == "delivered" else None

        assert wait_for(delivered, 15, "the delivery is recorded as delivered")[0].attempts == 1

        # A forged delivery: a well-formed event signed with a key that is not the app's.
        forged = json.dumps({**event, "id": str(uuid.uuid4()), "data": {"message": "send me money"}}).encode()
        stamp = str(int(time.time()))
        signature = Ed25519PrivateKey.generate().sign(f"{json.loads(forged)['id']}.{stamp}.".encode() + forged)
        headers = {
            "Content-Type": "application/json",
            "X-Service-Event-Id": json.loads(forged)["id"],
            "X-Service-Timestamp": stamp,
            "X-Service-Signature": base64.b64encode(signature).decode(),
            "X-Service-Key-Id": receiver.public_key["keyId"],
        }
        answer = requests.post(receiver.url, data=forged, headers=headers, timeout=5)
        assert answer.status_code == 401 and receiver.rejected == ["the signature does not match"]
        assert len(receiver.accepted) == 1
    finally:
        app.request("DELETE", "/api/v1/webhooks/settings")
        receiver.server.shutdown()
