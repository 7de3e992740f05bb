"""Signing policies end to end against the local stack (`make dev`, the session's `stack` fixture), over HTTP as an
integrator uses them: the operator registers an app's policy key, the app PUTs policies signed with it (RFC 8785 JCS
+ Ed25519), and the cosigner enforces every rule on the app's MPC wallets.

Effects are read on chain (anvil, with web3). An allowed send is mined at the wallet's next nonce. A refused one is
a 403 `POLICY_DENIED` that names the rule, and leaves the wallet's nonce, balances and recipients as they were. The
next allowed send then uses the nonce the refused one would have had. The module runs on a tenant of its own, so
its policies govern only its own two wallets (`make dev`'s demo wallets keep no policy). It keeps a ledger of what
each wallet signed, which is the cosigner's 24 h usage: each test sets its windows relative to it.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import pytest
import requests
import rfc8785
from boto3.dynamodb.conditions import Key
from eth_account import Account
from eth_account.messages import encode_defunct
from nacl.signing import SigningKey
from web3 import Web3
from web3.contract import Contract

from devtools import chain
from tests.support import permit
from tests.support.authorizations import eth_account_authority, viem_verifies
from tests.support.concurrency import race
from tests.support.devstack import evm_networks, signed
from tests.support.operator import fill_aux_pool, operator, stack_table
from tests.support.scripts import ROOT

pytestmark = pytest.mark.integration

DENIED = "POLICY_DENIED"
MINT = Web3.keccak(text="mint(address,uint256)")[:4].hex().removeprefix("0x")  # a call the engine cannot decode
MAIL = json.loads((ROOT / "tests" / "support" / "typed_data_corpus.json").read_text())[0]["document"]


def now_us() -> str:
    """Family S timestamps to the microsecond: two identical bodies signed in one millisecond would be a replay."""
    return datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


def ether(wei: int) -> str:
    """Wei as the exact ether-unit decimal string of send-coin's `amount`."""
    return f"{wei // 10**18}.{wei % 10**18:018d}".rstrip("0").rstrip(".")


def units(amount: int, decimals: int) -> str:
    return f"{amount // 10**decimals}.{amount % 10**decimals:0{decimals}d}".rstrip("0").rstrip(".")


def new_address() -> str:
    return Account.create().address


# --- the stack, as the operator and the chains see it -------------------------------------------------------------


@dataclass
class Network:
    name: str
    chain_id: int
    w3: Web3
    tokens: dict[str, Contract]  # usdt (6 decimals), erc20, usdt18 (18), erc721, permit

    def address(self, token: str) -> str:
        """A token's address as policies name it (lowercase)."""
        return self.tokens[token].address.lower()

    def nonce(self, address: str) -> int:
        return self.w3.eth.get_transaction_count(Web3.to_checksum_address(address))

    def balance(self, address: str, token: str | None = None) -> int:
        address = Web3.to_checksum_address(address)
        if token is None:
            return self.w3.eth.get_balance(address)
        return self.tokens[token].functions.balanceOf(address).call()

    def transact(self, call: Any) -> None:
        """A transaction from an anvil account (minting, submitting a permit): not from a wallet under test."""
        tx = call.transact({"from": self.w3.eth.accounts[8]})
        receipt = self.w3.eth.wait_for_transaction_receipt(tx, timeout=30, poll_latency=0.05)
        assert receipt["status"] == 1, dict(receipt)


def networks_of(info: dict[str, Any]) -> dict[str, Network]:
    artifacts = {
        "usdt": "TestUSDT",
        "erc20": "TestToken",
        "usdt18": "TestUSDT18",
        "erc721": "TestNFT",
        "permit": "TestPermitToken",
    }
    found = {}
    for entry in evm_networks(info):
        w3 = Web3(Web3.HTTPProvider(entry["rpcUrl"], request_kwargs={"timeout": 30}))
        tokens = {
            key: w3.eth.contract(address=entry["tokens"][key], abi=chain.load_artifact(name)["abi"])
            for key, name in artifacts.items()
        }
        found[entry["name"]] = Network(entry["name"], entry["chainId"], w3, tokens)
    return found


# --- the app (Family S) and its policy key ------------------------------------------------------------------------


@dataclass
class App:
    info: dict[str, Any]  # the stack's info with this tenant as its `demo` (devstack.signed signs with it)
    key: SigningKey
    version: int = 0  # the last version set
    sequence: int = 1  # the registered key's (the operator's registration is 1)

    @property
    def app_id(self) -> str:
        return str(self.info["demo"]["appId"])

    def call(self, method: str, path: str, body: Any = None) -> requests.Response:
        return signed(self.info, method, path, json.dumps(body).encode() if body is not None else b"", now_us())

    def sign(self, document: Any, key: SigningKey | None = None) -> str:
        """Ed25519 over the RFC 8785 canonical JSON (docs/examples/sign_policy.py): a policy is signed as
        `{"appId", "policy"}`, a rotation as its message."""
        return b64((key or self.key).sign(rfc8785.dumps(document)).signature)

    def put(self, policy: dict[str, Any], key: SigningKey | None = None) -> requests.Response:
        signature = self.sign({"appId": self.app_id, "policy": policy}, key)
        return self.call("PUT", "/api/v1/policies", {"policy": policy, "signature": signature})

    def set(self, **rules: Any) -> dict[str, Any]:
        """Set the next version with these rules; the document as sent."""
        policy = {"version": self.version + 1, **rules}
        answer = self.put(policy)
        assert answer.status_code == 200, answer.text
        assert answer.json()["data"]["version"] == policy["version"]
        self.version = policy["version"]
        return policy

    def evaluate(self, **body: Any) -> dict[str, Any]:
        answer = self.call("POST", "/api/v1/policies/evaluate", body)
        assert answer.status_code == 200, answer.text
        decision = answer.json()["data"]
        assert set(decision) == {"allowed", "rule", "reason"} and decision["reason"], decision
        return decision


def create_tenant(stack: dict[str, Any], name: str) -> dict[str, Any]:
    issued = json.loads(operator(stack, "create-tenant", "--name", name))
    return {**stack["info"], "demo": issued}


def register_key(stack: dict[str, Any], app_id: str, key: SigningKey, client_id: str) -> None:
    public = b64(bytes(key.verify_key))
    operator(stack, "set-policy-key", "--app-id", app_id, "--client-id", client_id, "--public-key", public)


def key_id(key: SigningKey) -> str:
    return "pk_" + hashlib.sha256(bytes(key.verify_key)).hexdigest()[:16]


# --- the app's MPC wallets (Family W) ------------------------------------------------------------------------------


@dataclass
class Attempt:
    """One send: the answer, and what the chain showed before it."""

    response: requests.Response
    network: Network
    wallet: Wallet
    before: tuple[Any, ...]
    watch: Any


@dataclass
class Wallet:
    address: str
    call_: Any
    count: int = 0  # transactions signed: the cosigner's maxCountPer24h usage
    spent: Counter[str] = field(default_factory=Counter)  # asset -> base units: its maxValuePer24h usage

    def call(self, path: str, body: Any = None, method: str = "POST") -> requests.Response:
        return self.call_(path, body, method)

    def _attempt(self, net: Network, path: str, body: Any, spends: dict[str, int], watch: Any) -> Attempt:
        def snapshot() -> tuple[Any, ...]:
            return (net.nonce(self.address), net.balance(self.address), *watch())

        before = snapshot()
        attempt = Attempt(self.call(path, {"network": net.name, **body}), net, self, before, snapshot)
        if attempt.response.status_code == 200:  # signed: counted by the cosigner
            self.count += 1
            self.spent.update(spends)
        return attempt

    def coin(self, net: Network, to: str, wei: int) -> Attempt:
        return self._attempt(
            net,
            "/api/v1/wallet/send-coin",
            {"to": to, "amount": ether(wei)},
            {"native": wei},
            lambda: (net.balance(to),),
        )

    def token(self, net: Network, token: str, to: str, amount: int) -> Attempt:
        decimals = net.tokens[token].functions.decimals().call()
        body = {"to": to, "amount": units(amount, decimals), "tokenAddress": net.tokens[token].address}
        return self._attempt(
            net, "/api/v1/wallet/send-token", body, {net.address(token): amount}, lambda: (net.balance(to, token),)
        )

    def nft(self, net: Network, to: str, token_id: int) -> Attempt:
        body = {"to": to, "tokenId": str(token_id), "tokenAddress": net.tokens["erc721"].address}
        nft = net.tokens["erc721"]
        return self._attempt(
            net,
            "/api/v1/wallet/transfer-erc721",
            body,
            {net.address("erc721"): 1},
            lambda: (nft.functions.ownerOf(token_id).call(),),
        )

    def raw(
        self,
        net: Network,
        to: str,
        data: str = "0x",
        value: int = 0,
        spends: dict[str, int] | None = None,
        watch: Any = lambda: (),
    ) -> Attempt:
        transaction = {"from": self.address, "to": to, "data": data, "value": hex(value)}
        return self._attempt(net, "/api/v1/wallet/send-transaction", {"transaction": transaction}, spends or {}, watch)

    def message(self, text: str) -> requests.Response:
        return self.call("/api/v1/wallet/sign-message", {"message": text})

    def typed(self, document: dict[str, Any], spends: dict[str, int] | None = None) -> requests.Response:
        """Sign typed data; a permit signed counts what it grants (`spends`) in the wallet's 24 h."""
        answer = self.call("/api/v1/wallet/sign-typed-data", {"typedData": document})
        if answer.status_code == 200:
            self.spent.update(spends or {})
        return answer


def new_wallet(info: dict[str, Any]) -> Wallet:
    api, secret = info["apiUrl"], info["demo"]["clientSecret"]
    headers = {"x-client-secret": secret}
    login = requests.post(f"{api}/api/v1/auth/login", headers=headers, json={"subId": f"p-{uuid.uuid4()}"}, timeout=30)
    assert login.status_code == 200, login.text
    token = login.json()["data"]["accessToken"]
    created = requests.post(
        f"{api}/api/v1/account/create", headers={**headers, "Authorization": f"Bearer {token}"}, json={}, timeout=120
    )
    assert created.status_code == 200, created.text
    wallet = created.json()["data"]

    def call(path: str, body: Any = None, method: str = "POST") -> requests.Response:
        auth = {**headers, "Authorization": f"Bearer {wallet['walletToken']}"}
        return requests.request(method, api + path, headers=auth, json=body, timeout=120)

    return Wallet(wallet["address"], call)


def sent(attempt: Attempt) -> dict[str, Any]:
    """Allowed: a 200 whose transaction is mined, successful, at exactly the nonce the chain had next (so no
    refusal before it kept a nonce)."""
    assert attempt.response.status_code == 200, attempt.response.text
    tx = attempt.response.json()["data"]["txReceipt"]
    assert tx["nonce"] == attempt.before[0], (tx["nonce"], attempt.before)
    receipt = attempt.network.w3.eth.wait_for_transaction_receipt(tx["hash"], timeout=30, poll_latency=0.05)
    assert receipt["status"] == 1, dict(receipt)
    assert attempt.network.nonce(attempt.wallet.address) == attempt.before[0] + 1
    return tx


def refused(attempt: Attempt | requests.Response, rule: str) -> None:
    """Refused by the policy: 403 POLICY_DENIED naming `rule`; for a send, nothing on chain moved (the wallet's
    nonce and balance, what the recipient holds)."""
    response = attempt.response if isinstance(attempt, Attempt) else attempt
    assert response.status_code == 403, response.text
    data = response.json()["data"]
    assert (data["code"], data["rule"]) == (DENIED, rule), data
    if isinstance(attempt, Attempt):
        assert attempt.watch() == attempt.before, "a refused send changed the chain"


def permit_document(net: Network, owner: str, spender: str, value: int) -> dict[str, Any]:
    deadline = net.w3.eth.get_block("latest")["timestamp"] + 3600
    return permit.typed_data(net.tokens["permit"], owner, spender, value, deadline)


def call_data(contract: Contract, function: str, *args: Any) -> str:
    return contract.encode_abi(function, args=list(args))


def presignatures(stack: dict[str, Any], wallet: Wallet) -> tuple[set[str], set[str]]:
    """The ids of the wallet's ready presignatures on party A's table and on the cosigner's."""
    mark = stack_table(stack, "wallets").get_item(Key={"pk": f"ADDRESS#{wallet.address}", "sk": "META"})
    query = Key("pk").eq(f"WALLET#{mark['Item']['walletId']}") & Key("sk").begins_with("READY#")

    def ready(table: str) -> set[str]:
        return {i["sk"] for i in stack_table(stack, table).query(KeyConditionExpression=query)["Items"]}

    return ready("signer-presignatures"), ready("cosigner-presignatures")


def stocked_pool(stack: dict[str, Any], wallet: Wallet, size: int = 2) -> tuple[set[str], set[str]]:
    """Once the refill worker has stocked `size` presignatures on both parties (the stack's pool target is 2)."""
    deadline = time.monotonic() + 90
    while min(map(len, ready := presignatures(stack, wallet))) < size and time.monotonic() < deadline:
        time.sleep(0.3)
    assert len(ready[0]) >= size and ready[0] == ready[1], ready
    return ready


# --- fixtures ------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def nets(stack: dict[str, Any]) -> dict[str, Network]:
    return networks_of(stack["info"])


@pytest.fixture(scope="module")
def app(stack: dict[str, Any]) -> App:
    """A tenant of its own with its policy key registered by the operator, and key material for two wallets."""
    info = create_tenant(stack, f"Policies {uuid.uuid4().hex[:6]}")
    fill_aux_pool(stack, 2)
    key = SigningKey.generate()
    register_key(stack, info["demo"]["appId"], key, info["demo"]["clientId"])
    return App(info, key)


@pytest.fixture(scope="module")
def wallet(app: App, nets: dict[str, Network]) -> Wallet:
    """The module's main wallet: 10 ETH on both chains, USDT, DTK and USDT18 on local-a."""
    made = new_wallet(app.info)
    for net in nets.values():
        net.w3.provider.make_request("anvil_setBalance", [made.address, hex(10 * 10**18)])
    a = nets["local-a"]
    for token, amount in (("usdt", 1_000 * 10**6), ("erc20", 100 * 10**18), ("usdt18", 100 * 10**18)):
        a.transact(a.tokens[token].functions.mint(made.address, amount))
    return made


# --- the tests -----------------------------------------------------------------------------------------------------


def test_without_a_policy_key_get_says_so_and_put_is_refused(stack, app):
    """An app the operator registered no key for: GET says so, a PUT is 409 NO_POLICY_KEY. Once its own key is
    registered, a policy signed with another app's key is refused, and its own is taken."""
    other = App(create_tenant(stack, f"No key {uuid.uuid4().hex[:6]}"), SigningKey.generate())
    shown = other.call("GET", "/api/v1/policies")
    assert shown.status_code == 200, shown.text
    assert shown.json()["data"] == {
        "policy": None,
        "version": None,
        "keyId": None,
        "keySequence": None,
        "keyRegistered": False,
    }
    answer = other.put({"version": 1, "default": "deny"})
    assert answer.status_code == 409 and answer.json()["data"]["code"] == "NO_POLICY_KEY", answer.text

    register_key(stack, other.app_id, other.key, other.info["demo"]["clientId"])
    assert other.call("GET", "/api/v1/policies").json()["data"] == {
        "policy": None,
        "version": None,
        "keyId": key_id(other.key),
        "keySequence": 1,
        "keyRegistered": True,
    }
    theirs = other.put({"version": 1, "default": "deny"}, key=app.key)  # another app's registered key
    assert theirs.status_code == 403 and theirs.json()["data"]["code"] == "POLICY_SIGNATURE_INVALID", theirs.text
    other.set(default="allow")


def test_a_signed_policy_is_set_and_read_back_and_no_older_or_forged_one_replaces_it(app):
    older = app.set(default="allow")
    policy = app.set(
        default="allow",
        networks=["local-a", "local-b"],
        messages={"personal": True, "typedData": [{"primaryType": "Permit", "chainId": 31337}]},
    )
    shown = app.call("GET", "/api/v1/policies")
    assert shown.status_code == 200, shown.text
    data = shown.json()["data"]
    assert data["keyRegistered"] is True and data["keyId"] == key_id(app.key)
    assert data["version"] == policy["version"]
    assert rfc8785.dumps(data["policy"]) == rfc8785.dumps(policy)  # the document as signed: its signature verifies

    def code(answer: requests.Response) -> tuple[int, str]:
        return answer.status_code, answer.json()["data"].get("code")

    # The same signed body again (a replay), and an older version signed by the key: a looser policy never returns.
    assert code(app.put(policy)) == (409, "POLICY_VERSION_STALE")
    assert code(app.put(older)) == (409, "POLICY_VERSION_STALE")
    assert code(app.put({**older, "networks": ["local-a"]})) == (409, "POLICY_VERSION_STALE")
    newer = {**policy, "version": policy["version"] + 1, "messages": None}
    # Forged: signed by a key that is not the app's, or the app's signature over another document.
    assert code(app.put(newer, key=SigningKey.generate())) == (403, "POLICY_SIGNATURE_INVALID")
    forged = {"policy": newer, "signature": app.sign({"appId": app.app_id, "policy": policy})}
    assert code(app.call("PUT", "/api/v1/policies", forged)) == (403, "POLICY_SIGNATURE_INVALID")
    garbage = {"policy": newer, "signature": "not base64!"}
    assert code(app.call("PUT", "/api/v1/policies", garbage))[0] in (400, 403)
    # Signed but not a policy: 400 naming the field.
    invalid = app.put({**newer, "transactions": {"maxValue": {"native": "-1"}}})
    assert code(invalid) == (400, "INVALID_POLICY"), invalid.text
    assert invalid.json()["data"]["field"] == "transactions.maxValue.native"
    unknown = app.put({**newer, "networks": ["mainnet-of-nowhere"]})
    assert code(unknown) == (400, "INVALID_POLICY") and unknown.json()["data"]["field"].startswith("networks")
    huge = app.put({**newer, "networks": None, "messages": {"typedData": [{"primaryType": "P" * 70_000}]}})
    assert code(huge) == (400, "POLICY_TOO_LARGE"), huge.text
    assert app.call("GET", "/api/v1/policies").json()["data"]["version"] == policy["version"]


def test_max_value_per_24h_native_and_token(app, wallet, nets):
    """The rolling 24 h adds up what the wallet signed, per asset, on every network: what the limit leaves is
    allowed, a unit more is refused."""
    a, b = nets["local-a"], nets["local-b"]
    usdt18 = a.address("usdt18")
    native = wallet.spent["native"] + 2000
    tokens = wallet.spent[usdt18] + 3 * 10**18
    app.set(transactions={"maxValuePer24h": {"native": str(native), usdt18: str(tokens)}})
    to = new_address()
    sent(wallet.coin(a, to, 1000))
    refused(wallet.coin(a, to, 1001), "transactions.maxValuePer24h.native")
    sent(wallet.coin(b, to, 1000))  # the wallet's window, on every network
    refused(wallet.coin(a, to, 1), "transactions.maxValuePer24h.native")
    sent(wallet.token(a, "usdt18", to, 2 * 10**18))
    refused(wallet.token(a, "usdt18", to, 2 * 10**18), f"transactions.maxValuePer24h.{usdt18}")
    assert (a.balance(to), b.balance(to), a.balance(to, "usdt18")) == (1000, 1000, 2 * 10**18)
    assert wallet.spent["native"] == native


def test_max_count_per_24h(app, wallet, nets):
    a = nets["local-a"]
    app.set(transactions={"maxCountPer24h": wallet.count + 1})
    to = new_address()
    sent(wallet.token(a, "usdt", to, 1))
    refused(wallet.coin(a, to, 1), "transactions.maxCountPer24h")
    refused(wallet.token(a, "usdt", to, 1), "transactions.maxCountPer24h")
    assert (a.balance(to), a.balance(to, "usdt")) == (0, 1)


def test_evaluate_answers_like_the_cosigner_and_counts_nothing(app, wallet, nets):
    a = nets["local-a"]
    to = new_address()
    app.set(transactions={"maxCountPer24h": wallet.count + 1}, messages={"personal": False})
    nonce = a.nonce(wallet.address)
    would_send = {"transaction": {"network": "local-a", "to": to, "value": "1"}, "walletAddress": wallet.address}
    for _ in range(3):  # asked three times, counted never
        assert app.evaluate(**would_send)["allowed"] is True
    assert app.evaluate(transaction={"network": "local-a", "to": to, "value": "1"})["allowed"] is True
    assert a.nonce(wallet.address) == nonce and a.balance(to) == 0
    sent(wallet.coin(a, to, 1))
    decision = app.evaluate(**would_send)
    assert (decision["allowed"], decision["rule"]) == (False, "transactions.maxCountPer24h")
    refused(wallet.coin(a, to, 1), "transactions.maxCountPer24h")

    decision = app.evaluate(message="hello", encoding="utf8")
    assert (decision["allowed"], decision["rule"]) == (False, "messages.personal")
    app.set(messages={"typedData": [{"primaryType": "Permit", "verifyingContract": a.tokens["permit"].address}]})
    decision = app.evaluate(typedData=permit_document(a, wallet.address, to, 1))
    assert (decision["allowed"], decision["rule"]) == (True, "messages.typedData")
    decision = app.evaluate(typedData=MAIL)
    assert (decision["allowed"], decision["rule"]) == (False, "messages.typedData")
    usdt = a.tokens["usdt"]
    app.set(transactions={"destinations": {"deny": [to]}})
    transfer = {"network": "local-a", "to": usdt.address, "data": call_data(usdt, "transfer", to, 1)}
    decision = app.evaluate(transaction=transfer)
    assert (decision["allowed"], decision["rule"]) == (False, "transactions.destinations.deny")
    assert a.nonce(wallet.address) == nonce + 1


def test_sends_signed_before_a_24h_limit_was_set_count_against_it(app, wallet, nets):
    """The window is the wallet's last 24 h, whatever policy was in force when it signed: a limit set later counts
    what the wallet sent before it (else tightening a policy would start every wallet's day afresh)."""
    a = nets["local-a"]
    app.set(transactions={"maxValue": {"native": "1000000"}})  # no 24 h rule in force
    to = new_address()
    before = wallet.spent["native"]  # what the wallet sent earlier in the last 24 h
    sent(wallet.coin(a, to, 700))
    app.set(transactions={"maxValuePer24h": {"native": str(before + 1000)}})
    refused(wallet.coin(a, to, 301), "transactions.maxValuePer24h.native")
    sent(wallet.coin(a, to, 300))
    assert a.balance(to) == 1000


def test_max_value_native_and_token_and_a_refusal_burns_no_presignature(stack, app, wallet, nets):
    """maxValue per asset. The first refusal comes with the wallet's presignature pool stocked: it is refused in the
    online step before either party's share is used (the same presignatures stay ready on both parties), and the
    next send takes the nonce it would have had."""
    a = nets["local-a"]
    usdt = a.address("usdt")
    app.set(transactions={"maxValue": {"native": "1000", usdt: "2000000"}})
    stocked = stocked_pool(stack, wallet)

    to = new_address()
    refused(wallet.coin(a, to, 1001), "transactions.maxValue.native")
    assert presignatures(stack, wallet) == stocked
    sent(wallet.coin(a, to, 1000))
    refused(wallet.token(a, "usdt", to, 2_000_001), f"transactions.maxValue.{usdt}")
    sent(wallet.token(a, "usdt", to, 2_000_000))
    assert (a.balance(to), a.balance(to, "usdt")) == (1000, 2_000_000)
    # A call to the token the engine cannot decode may move any amount of it: refused (fail closed).
    mint = call_data(a.tokens["usdt"], "mint", to, 10**12)
    refused(
        wallet.raw(a, a.tokens["usdt"].address, mint, watch=lambda: (a.balance(to, "usdt"),)),
        f"transactions.maxValue.{usdt}",
    )


def test_networks(app, wallet, nets):
    a, b = nets["local-a"], nets["local-b"]
    app.set(networks=["local-b"])
    to = new_address()
    refused(wallet.coin(a, to, 10), "networks")
    refused(wallet.typed(permit_document(a, wallet.address, new_address(), 1)), "networks")
    sent(wallet.coin(b, to, 10))
    assert b.balance(to) == 10 and a.balance(to) == 0


def test_destinations_allow_and_deny(app, wallet, nets):
    """The value's recipient, decoded from the call: the coin's `to`, an ERC-20 transfer's and an ERC-721
    safeTransferFrom's recipient. A call the engine cannot decode has no known recipient: refused."""
    a = nets["local-a"]
    friend, stranger = new_address(), new_address()
    app.set(transactions={"destinations": {"allow": [friend.upper().replace("0X", "0x")]}})
    refused(wallet.coin(a, stranger, 1), "transactions.destinations.allow")
    refused(wallet.token(a, "usdt", stranger, 1), "transactions.destinations.allow")
    mint = call_data(a.tokens["usdt"], "mint", friend, 1)
    refused(
        wallet.raw(a, a.tokens["usdt"].address, mint, watch=lambda: (a.balance(friend, "usdt"),)),
        "transactions.destinations.allow",
    )
    sent(wallet.coin(a, friend, 1))
    sent(wallet.token(a, "usdt", friend, 1))  # sent to the token contract, paid to the friend

    nft = a.tokens["erc721"]
    token_id = int.from_bytes(os.urandom(8), "big")
    a.transact(nft.functions.mint(wallet.address, token_id))
    app.set(transactions={"destinations": {"deny": [stranger]}})
    refused(wallet.coin(a, stranger, 1), "transactions.destinations.deny")
    refused(wallet.nft(a, stranger, token_id), "transactions.destinations.deny")
    refused(wallet.token(a, "usdt", stranger, 1), "transactions.destinations.deny")
    sent(wallet.nft(a, friend, token_id))
    assert nft.functions.ownerOf(token_id).call() == friend
    assert (a.balance(friend), a.balance(friend, "usdt"), a.balance(stranger), a.balance(stranger, "usdt")) == (
        1,
        1,
        0,
        0,
    )


def test_contracts_and_selectors(app, wallet, nets):
    a = nets["local-a"]
    usdt, dtk = a.tokens["usdt"], a.tokens["erc20"]
    app.set(
        transactions={
            "contracts": [
                {"address": usdt.address, "selectors": ["0xa9059cbb"]},  # transfer only
                {"address": dtk.address.lower()},  # any function
            ]
        }
    )
    to = new_address()
    sent(wallet.token(a, "usdt", to, 3))
    approve = call_data(usdt, "approve", to, 5)

    def allowance() -> tuple[int]:
        return (usdt.functions.allowance(wallet.address, to).call(),)

    refused(wallet.raw(a, usdt.address, approve, watch=allowance), "transactions.contracts")
    refused(wallet.raw(a, usdt.address, call_data(usdt, "mint", to, 5)), "transactions.contracts")
    refused(wallet.token(a, "usdt18", to, 1), "transactions.contracts")  # a contract not listed
    sent(wallet.raw(a, dtk.address, call_data(dtk, "mint", to, 7)))
    assert (a.balance(to, "usdt"), a.balance(to, "erc20"), a.balance(to, "usdt18")) == (3, 7, 0)
    assert allowance() == (0,)


def test_raw_false_refuses_send_transaction_calls_that_match_no_rule(app, wallet, nets):
    a = nets["local-a"]
    usdt = a.tokens["usdt"]
    to = new_address()
    app.set(transactions={"raw": False})
    mint = call_data(usdt, "mint", to, 9)
    refused(wallet.raw(a, usdt.address, mint, watch=lambda: (a.balance(to, "usdt"),)), "transactions.raw")
    # A standard call it decodes is not raw, through send-transaction too.
    sent(wallet.raw(a, usdt.address, call_data(usdt, "transfer", to, 4), spends={usdt.address.lower(): 4}))
    # Nor is a call a `contracts` entry names.
    app.set(transactions={"raw": False, "contracts": [{"address": usdt.address, "selectors": [f"0x{MINT}"]}]})
    sent(wallet.raw(a, usdt.address, mint))
    assert a.balance(to, "usdt") == 4 + 9


def test_personal_messages(app, wallet, nets):
    a = nets["local-a"]
    app.set(default="deny", messages={"personal": True})
    answer = wallet.message("Sign in to Example")
    assert answer.status_code == 200, answer.text
    signature = answer.json()["data"]["signature"]
    assert Account.recover_message(encode_defunct(text="Sign in to Example"), signature=signature) == wallet.address
    refused(wallet.coin(a, new_address(), 1), "default")

    app.set(messages={"personal": False})
    refused(wallet.message("Sign in to Example"), "messages.personal")
    refused(wallet.call("/api/v1/wallet/sign-message", {"message": "0x00ff", "encoding": "hex"}), "messages.personal")


def test_typed_data_only_the_permit_of_the_listed_token(app, wallet, nets):
    """Permit on tokens.permit of local-a is allowed, and the permit works on chain; other typed data is refused."""
    a, b = nets["local-a"], nets["local-b"]
    token = a.tokens["permit"]
    app.set(
        messages={"typedData": [{"chainId": a.chain_id, "verifyingContract": token.address, "primaryType": "Permit"}]}
    )
    spender = Web3.to_checksum_address(a.w3.eth.accounts[8])
    document = permit_document(a, wallet.address, spender, 5 * 10**18)
    answer = wallet.typed(document, spends={a.address("permit"): 5 * 10**18})
    assert answer.status_code == 200, answer.text
    v, r, s = permit.split(answer.json()["data"]["signature"])
    message = document["message"]
    a.transact(token.functions.permit(wallet.address, spender, message["value"], message["deadline"], v, r, s))
    assert token.functions.allowance(wallet.address, spender).call() == 5 * 10**18

    nonce = token.functions.nonces(wallet.address).call()
    refused(wallet.typed(permit_document(b, wallet.address, spender, 1)), "messages.typedData")  # another chain
    other_contract = permit_document(a, wallet.address, spender, 1)
    other_contract["domain"]["verifyingContract"] = a.tokens["usdt"].address
    refused(wallet.typed(other_contract), "messages.typedData")
    mail = {**MAIL, "domain": {**MAIL["domain"], "chainId": a.chain_id, "verifyingContract": token.address}}
    refused(wallet.typed(mail), "messages.typedData")  # not a Permit
    assert token.functions.nonces(wallet.address).call() == nonce


def test_default_deny_needs_a_rule_for_every_signature(app, wallet, nets):
    a = nets["local-a"]
    friend, stranger = new_address(), new_address()
    app.set(default="deny")
    refused(wallet.coin(a, friend, 1), "default")
    refused(wallet.message("anything"), "default")
    refused(wallet.typed(permit_document(a, wallet.address, friend, 1)), "default")

    app.set(default="deny", transactions={"destinations": {"allow": [friend]}})
    sent(wallet.coin(a, friend, 1))
    refused(wallet.coin(a, stranger, 1), "transactions.destinations.allow")

    app.set(default="deny", transactions={"maxValue": {"native": "10000"}})
    sent(wallet.coin(a, stranger, 500))
    refused(wallet.token(a, "usdt", stranger, 1), "default")  # USDT is named by no rule
    assert (a.balance(friend), a.balance(stranger), a.balance(stranger, "usdt")) == (1, 500, 0)


def test_ten_parallel_sends_against_a_count_of_seven(stack, app, nets):
    """Ten sends of one fresh wallet at once against maxCountPer24h 7: exactly seven are signed and mined, three
    refused. A refused send's nonce is given back; when a concurrent send already holds a later one, the gap closes
    with the next send the policy allows."""
    a = nets["local-a"]
    racer = new_wallet(app.info)
    a.w3.provider.make_request("anvil_setBalance", [racer.address, hex(10**18)])
    app.set(transactions={"maxCountPer24h": 7})
    to = new_address()
    stocked_pool(stack, racer)  # two of the seven sign in the online step, five in full

    def send(_: int) -> Any:
        # A send the signer cannot take in time is refused before it takes a nonce (503 SIGNER_BUSY, Retry-After):
        # the integrator sends it again, as a client does, for as long as a busy machine needs (five full signing
        # runs share two cores with the rest of the suite).
        deadline = time.monotonic() + 90
        while True:
            answer = racer.call("/api/v1/wallet/send-coin", {"network": "local-a", "to": to, "amount": ether(1)})
            busy = answer.status_code == 503 and answer.json()["data"]["code"] == "SIGNER_BUSY"
            if not busy or time.monotonic() > deadline:
                return answer
            time.sleep(float(answer.headers.get("Retry-After", "1")))

    answers = race(send, 10)
    statuses = sorted(answer.status_code for answer in answers)
    refusals = [answer.json()["data"]["code"] for answer in answers if answer.status_code != 200]
    assert statuses == [200] * 7 + [403] * 3, refusals
    for answer in answers:
        if answer.status_code == 403:
            data = answer.json()["data"]
            assert (data["code"], data["rule"]) == (DENIED, "transactions.maxCountPer24h"), data
    hashes = [answer.json()["data"]["txReceipt"]["hash"] for answer in answers if answer.status_code == 200]
    nonces = sorted(answer.json()["data"]["txReceipt"]["nonce"] for answer in answers if answer.status_code == 200)
    assert len(set(nonces)) == 7 and nonces[-1] < 10, f"the seven signed sends hold nonces {nonces}"
    # The eighth is refused: the window holds seven.
    refused(racer.coin(a, to, 1), "transactions.maxCountPer24h")
    # Nonces given back below a signed one: the next allowed sends take them, and everything signed is mined.
    gaps = sorted(set(range(nonces[-1] + 1)) - set(nonces))
    if gaps:
        app.set(transactions={"maxCountPer24h": 7 + len(gaps)})
        for gap in gaps:
            filled = racer.call("/api/v1/wallet/send-coin", {"network": "local-a", "to": to, "amount": ether(1)})
            assert filled.status_code == 200, filled.text
            assert filled.json()["data"]["txReceipt"]["nonce"] == gap
            hashes.append(filled.json()["data"]["txReceipt"]["hash"])
    deadline = time.monotonic() + 30
    while a.nonce(racer.address) < len(hashes) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert a.nonce(racer.address) == len(hashes)
    for tx_hash in hashes:
        assert a.w3.eth.get_transaction_receipt(tx_hash)["status"] == 1
    assert a.balance(to) == len(hashes)


def test_key_rotation_signed_by_the_old_key_retires_it(app, wallet, nets):
    a = nets["local-a"]
    new = SigningKey.generate()
    public = b64(bytes(new.verify_key))

    def rotate(signer: SigningKey, sequence: int) -> requests.Response:
        message = {"action": "rotate-policy-key", "appId": app.app_id, "publicKey": public, "sequence": sequence}
        return app.call("PUT", "/api/v1/policies/key", {"publicKey": public, "signature": app.sign(message, signer)})

    for answer in (rotate(app.key, app.sequence + 2), rotate(new, app.sequence + 1)):  # wrong sequence; new key
        assert answer.status_code == 403, answer.text
        assert answer.json()["data"]["code"] == "POLICY_SIGNATURE_INVALID"
    rotated = rotate(app.key, app.sequence + 1)
    assert rotated.status_code == 200, rotated.text
    assert rotated.json()["data"] == {"keyId": key_id(new), "sequence": app.sequence + 1}
    replayed = rotate(app.key, app.sequence + 1)
    assert replayed.status_code == 403 and replayed.json()["data"]["code"] == "POLICY_SIGNATURE_INVALID"
    old, app.key, app.sequence = app.key, new, app.sequence + 1

    stale_key = app.put({"version": app.version + 1, "default": "allow"}, key=old)
    assert stale_key.status_code == 403, stale_key.text
    assert stale_key.json()["data"]["code"] == "POLICY_SIGNATURE_INVALID"
    app.set(default="deny")
    assert app.call("GET", "/api/v1/policies").json()["data"]["keyId"] == key_id(new)
    refused(wallet.coin(a, new_address(), 1), "default")


# --- an allowance is spending --------------------------------------------------------------------------------------


def test_an_approval_counts_against_the_daily_cap_and_the_allow_list(app, wallet, nets):
    """approve moves its amount to its spender: over the day's cap (or unlimited) it is refused and the allowance
    stays 0 on chain; to a spender off the allow list it is refused, even of 0; within the cap it is mined and
    uses the cap up, so that a transfer of one more unit is refused. approve(friend, 0) then passes the spent cap."""
    a = nets["local-a"]
    usdt, token = a.tokens["usdt"], a.address("usdt")
    friend, stranger = new_address(), new_address()
    cap = 5_000_000
    app.set(
        transactions={"maxValuePer24h": {token: str(wallet.spent[token] + cap)}, "destinations": {"allow": [friend]}}
    )
    rule = f"transactions.maxValuePer24h.{token}"

    def allowances() -> tuple[int, ...]:
        return tuple(usdt.functions.allowance(wallet.address, s).call() for s in (friend, stranger))

    def approve(spender: str, amount: int) -> Attempt:
        data = call_data(usdt, "approve", spender, amount)
        return wallet.raw(a, usdt.address, data, spends={token: amount}, watch=allowances)

    over = {"network": "local-a", "to": usdt.address, "data": call_data(usdt, "approve", friend, cap + 1)}
    decision = app.evaluate(transaction=over, walletAddress=wallet.address)
    assert (decision["allowed"], decision["rule"]) == (False, rule)
    refused(approve(friend, cap + 1), rule)
    refused(approve(friend, 2**256 - 1), rule)
    refused(approve(stranger, 1), "transactions.destinations.allow")
    refused(approve(stranger, 0), "transactions.destinations.allow")  # token #0 of an ERC-721: a grant
    sent(approve(friend, cap))
    assert allowances() == (cap, 0)
    refused(wallet.token(a, "usdt", friend, 1), rule)  # the approval used the day's cap up
    sent(approve(friend, 0))  # revoking passes the spent cap
    assert allowances() == (0, 0)
    # decreaseAllowance (which this token lacks) is decided like a revoke: allowed, off the list and over the cap.
    revoke = {
        "network": "local-a",
        "to": usdt.address,
        "data": "0xa457c2d7" + call_data(usdt, "approve", stranger, 1)[10:],
    }
    decision = app.evaluate(transaction=revoke, walletAddress=wallet.address)
    assert (decision["allowed"], decision["rule"]) == (True, "default")


def test_a_collection_approval_is_unlimited(app, wallet, nets):
    """setApprovalForAll(operator, true) hands over the whole collection: refused by any limit on it, whatever its
    value, and off the allow list; on the list it is mined. Its withdrawal moves nothing and passes both."""
    a = nets["local-a"]
    nft, collection = a.tokens["erc721"], a.address("erc721")
    operator_, friend = new_address(), new_address()

    def approved() -> tuple[bool]:
        return (nft.functions.isApprovedForAll(wallet.address, operator_).call(),)

    def approve_all(flag: bool, spends: dict[str, int] | None = None) -> Attempt:
        data = call_data(nft, "setApprovalForAll", operator_, flag)
        return wallet.raw(a, nft.address, data, spends=spends, watch=approved)

    app.set(transactions={"maxValue": {collection: "9" * 78}})
    refused(approve_all(True), f"transactions.maxValue.{collection}")
    app.set(transactions={"destinations": {"allow": [friend]}})
    refused(approve_all(True), "transactions.destinations.allow")
    app.set(transactions={"destinations": {"allow": [operator_]}})
    sent(approve_all(True, {collection: 2**256 - 1}))
    assert approved() == (True,)
    app.set(transactions={"destinations": {"allow": [friend]}, "maxValuePer24h": {collection: "1"}})
    sent(approve_all(False))
    assert approved() == (False,)


def test_a_permit_counts_against_the_daily_cap_even_when_typed_data_lists_it(app, wallet, nets):
    """An EIP-2612 permit listed in messages.typedData is still refused over the token's daily cap (nothing is
    signed: the token's nonce is unchanged); one within it is signed, works on chain, and counts in the wallet's
    24 h: the next permit and an approve of the same token are refused."""
    a = nets["local-a"]
    token, permit_token = a.address("permit"), a.tokens["permit"]
    spender = Web3.to_checksum_address(a.w3.eth.accounts[8])
    cap = 3 * 10**18
    app.set(
        transactions={"maxValuePer24h": {token: str(wallet.spent[token] + cap)}},
        messages={"typedData": [{"primaryType": "Permit", "verifyingContract": permit_token.address}]},
    )
    rule = f"transactions.maxValuePer24h.{token}"
    nonce = permit_token.functions.nonces(wallet.address).call()
    decision = app.evaluate(
        typedData=permit_document(a, wallet.address, spender, cap + 1), walletAddress=wallet.address
    )
    assert (decision["allowed"], decision["rule"]) == (False, rule)
    refused(wallet.typed(permit_document(a, wallet.address, spender, cap + 1)), rule)
    refused(wallet.typed(permit_document(a, wallet.address, spender, 2**256 - 1)), rule)
    assert permit_token.functions.nonces(wallet.address).call() == nonce

    document = permit_document(a, wallet.address, spender, cap)
    answer = wallet.typed(document, spends={token: cap})
    assert answer.status_code == 200, answer.text
    v, r, s = permit.split(answer.json()["data"]["signature"])
    message = document["message"]
    a.transact(permit_token.functions.permit(wallet.address, spender, message["value"], message["deadline"], v, r, s))
    assert permit_token.functions.allowance(wallet.address, spender).call() == cap
    refused(wallet.typed(permit_document(a, wallet.address, spender, 1)), rule)
    approve = call_data(permit_token, "approve", spender, 1)
    refused(wallet.raw(a, permit_token.address, approve), rule)
    decision = app.evaluate(typedData=permit_document(a, wallet.address, spender, 1), walletAddress=wallet.address)
    assert (decision["allowed"], decision["rule"]) == (False, rule)


def test_a_32_byte_message_needs_raw_hashes_under_a_daily_cap(app, wallet, nets):
    """A 32-byte message may be a user operation's hash: under a daily cap it is refused, even with personal
    messages allowed, until messages.rawHashes allows it. Other messages are unchanged."""
    digest = "0x" + os.urandom(32).hex()
    cap = {"maxValuePer24h": {"native": str(wallet.spent["native"] + 10**18)}}
    app.set(transactions=cap, messages={"personal": True})
    raw = {"message": digest, "encoding": "hex"}
    refused(wallet.call("/api/v1/wallet/sign-message", raw), "messages.rawHashes")
    decision = app.evaluate(**raw)
    assert (decision["allowed"], decision["rule"]) == (False, "messages.rawHashes")
    shorter = wallet.call("/api/v1/wallet/sign-message", {"message": digest[:-2], "encoding": "hex"})
    assert shorter.status_code == 200, shorter.text
    assert app.evaluate(message="hello")["rule"] == "messages.personal"

    app.set(transactions=cap, messages={"personal": False, "rawHashes": True})
    answer = wallet.call("/api/v1/wallet/sign-message", raw)
    assert answer.status_code == 200, answer.text
    signed_by = Account.recover_message(
        encode_defunct(primitive=bytes.fromhex(digest[2:])), signature=answer.json()["data"]["signature"]
    )
    assert signed_by == wallet.address
    refused(wallet.message("hello"), "messages.personal")


def test_authorizations_are_signed_at_the_chains_nonce_and_decided_by_the_policy(app, wallet, nets):
    """EIP-7702 over HTTP: the wallet's nonce read from the chain, the signature checked by eth-account and viem,
    a delegate the policy does not list and an authorization for any chain refused."""
    a = nets["local-a"]
    delegate, other = new_address(), new_address()
    app.set(default="allow")

    def sign(**body: Any) -> requests.Response:
        return wallet.call("/api/v1/wallet/sign-authorization", {"contractAddress": delegate, **body})

    answer = sign(network=a.name)
    assert answer.status_code == 200, answer.text
    signed_tuple = answer.json()["data"]
    assert (signed_tuple["chainId"], signed_tuple["nonce"]) == (a.w3.eth.chain_id, a.nonce(wallet.address))
    assert eth_account_authority(signed_tuple) == wallet.address
    assert viem_verifies(wallet.address, signed_tuple)
    refused(sign(chainId="0", nonce=0), "default")  # valid on every chain: not without a rule that allows it

    app.set(authorizations={"delegates": [delegate], "anyChain": False})
    refused(sign(network=a.name, contractAddress=other), "authorizations.delegates")
    refused(sign(chainId="0", nonce=0), "authorizations.anyChain")
    assert (
        app.evaluate(authorization={"chainId": "0", "contractAddress": delegate})["rule"] == "authorizations.anyChain"
    )
    listed = sign(chainId=str(a.w3.eth.chain_id), nonce=5)
    assert listed.status_code == 200, listed.text
    assert eth_account_authority(listed.json()["data"]) == wallet.address
    revoke = wallet.call(
        "/api/v1/wallet/sign-authorization", {"chainId": "0", "contractAddress": "0x" + "00" * 20, "nonce": 5}
    )
    assert revoke.status_code == 200 and viem_verifies(wallet.address, revoke.json()["data"])
    entries = wallet.call("/api/v1/wallet/signatures", method="GET").json()["data"]["data"]
    assert [(e["kind"], e["contractAddress"]) for e in entries[:3]] == [
        ("authorization", "0x" + "00" * 20),
        ("authorization", Web3.to_checksum_address(delegate)),
        ("authorization", Web3.to_checksum_address(delegate)),
    ]


def test_delegate_sets_the_wallets_code_and_a_revoke_clears_it(app, wallet, nets):
    """EIP-7702 set-code transactions over HTTP: `delegate` sends the wallet's own authorization at its nonce + 1
    (type 4, recorded and tracked), and the chain then holds `0xef0100 ‖ delegate` as the wallet's code;
    `send-transaction` carries signed tuples from `sign-authorization`; a revoke clears the code. A delegate the
    policy does not list is refused before anything is sent."""
    a = nets["local-a"]
    delegate, other, zero = new_address(), new_address(), "0x" + "00" * 20
    address = Web3.to_checksum_address(wallet.address)
    app.set(default="allow", authorizations={"delegates": [delegate], "anyChain": False})

    def delegate_to(contract: str) -> Attempt:
        return wallet._attempt(a, "/api/v1/wallet/delegate", {"contractAddress": contract}, {}, lambda: ())

    def code() -> bytes:
        return bytes(a.w3.eth.get_code(address))

    def set_code(attempt: Attempt) -> dict[str, Any]:
        """`sent`, but the wallet's own authorization raised its nonce once more."""
        assert attempt.response.status_code == 200, attempt.response.text
        tx = attempt.response.json()["data"]["txReceipt"]
        assert tx["nonce"] == attempt.before[0], (tx["nonce"], attempt.before)
        receipt = a.w3.eth.wait_for_transaction_receipt(tx["hash"], timeout=30, poll_latency=0.05)
        assert receipt["status"] == 1 and receipt["type"] == 4, dict(receipt)
        assert a.nonce(address) == attempt.before[0] + 2
        return tx

    refused(delegate_to(other), "authorizations.delegates")
    tx = set_code(delegate_to(delegate))
    assert tx["type"] == 4 and tx["to"] == address and tx["value"] == "0"
    [own] = tx["authorizationList"]
    assert (own["chainId"], own["address"], own["nonce"]) == (
        a.chain_id,
        Web3.to_checksum_address(delegate),
        tx["nonce"] + 1,
    )
    assert eth_account_authority(own) == address and viem_verifies(address, own)
    assert code() == bytes.fromhex("ef0100") + bytes.fromhex(delegate[2:])
    on_chain = a.w3.eth.get_transaction(tx["hash"])
    assert on_chain["type"] == 4 and len(on_chain["authorizationList"]) == 1
    signatures = wallet.call("/api/v1/wallet/signatures", method="GET").json()["data"]["data"]
    assert (signatures[0]["kind"], signatures[0]["contractAddress"]) == ("authorization", own["address"])
    record = wallet.call(f"/api/v1/wallet/transactions/{tx['hash']}", method="GET").json()["data"]
    assert record["kind"] == "delegation" and record["txReceipt"]["authorizationList"] == [own]

    # send-transaction with a tuple from sign-authorization: the wallet's own must name its nonce + 1.
    nonce = a.nonce(address)
    stale = wallet.call(
        "/api/v1/wallet/sign-authorization", {"network": a.name, "contractAddress": zero, "nonce": nonce}
    ).json()["data"]
    revoke = wallet.call(
        "/api/v1/wallet/sign-authorization", {"network": a.name, "contractAddress": zero, "nonce": nonce + 1}
    ).json()["data"]
    body = {"from": address, "to": address, "value": "0x0"}
    mismatch = wallet._attempt(
        a, "/api/v1/wallet/send-transaction", {"transaction": {**body, "authorizationList": [stale]}}, {}, lambda: ()
    )
    assert mismatch.response.status_code == 422, mismatch.response.text
    assert mismatch.response.json()["data"]["code"] == "AUTHORIZATION_NONCE_MISMATCH"
    assert mismatch.watch() == mismatch.before and code() != b""
    forged = {**revoke, "hash": "0x" + "00" * 32}
    bad = wallet.call(
        "/api/v1/wallet/send-transaction", {"network": a.name, "transaction": {**body, "authorizationList": [forged]}}
    )
    assert (bad.status_code, bad.json()["data"]["code"]) == (400, "INVALID_AUTHORIZATION"), bad.text
    wallet.count += 1  # the refused nonce mismatch signed nothing; the forged hash neither: this send is counted
    tx = set_code(
        wallet._attempt(
            a,
            "/api/v1/wallet/send-transaction",
            {"transaction": {**body, "authorizationList": [revoke]}},
            {},
            lambda: (),
        )
    )
    wallet.count -= 1  # `_attempt` counted it already
    assert tx["type"] == 4 and tx["authorizationList"] == [{k: v for k, v in revoke.items() if k != "hash"}]
    assert code() == b""

    # And `delegate` to the zero address revokes as well.
    set_code(delegate_to(delegate))
    assert code() != b""
    set_code(delegate_to(zero))
    assert code() == b""
