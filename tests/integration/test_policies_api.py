"""Signing policies over HTTP: the four Family S routes, the operator's commands, and a send or signature the policy
refuses (403 POLICY_DENIED naming the rule, nothing broadcast, the nonce given back).

The API in process (chalice's test client), AWS on moto, the real MPC parties with the in-process cosigner, and, for
sends, anvil. Policies are signed as an integrator signs them: Ed25519 over the RFC 8785 canonical JSON.
"""

from __future__ import annotations

import base64
import json
import uuid
from typing import Any

import pytest
from eth_account import Account
from nacl.signing import SigningKey

from chalicelib import operator as admin
from chalicelib.mpc import cosigner_checks as signing_policies
from chalicelib.platform import aws, networks, settings
from chalicelib.policies import signed
from chalicelib.tenancy import service as tenancy
from chalicelib.tenancy import store as tenancy_store
from devtools import chain
from tests.support.family_s import call

pytestmark = pytest.mark.integration

TOKEN = "0x5fbdb2315678afecb367f032d93f642f64180aa3"
RECIPIENT = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
OTHER = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC"
ETH = 10**18
PERMIT: dict[str, Any] = {
    "types": {
        "Permit": [
            {"name": "owner", "type": "address"},
            {"name": "spender", "type": "address"},
            {"name": "value", "type": "uint256"},
            {"name": "nonce", "type": "uint256"},
            {"name": "deadline", "type": "uint256"},
        ]
    },
    "primaryType": "Permit",
    "domain": {"name": "Permit Token", "version": "1", "chainId": 31337, "verifyingContract": TOKEN},
    "message": {"owner": RECIPIENT, "spender": OTHER, "value": "1", "nonce": 0, "deadline": 1893456000},
}


def _key(seed: int) -> SigningKey:
    return SigningKey(bytes([seed]) * 32)


def _public(key: SigningKey) -> str:
    return base64.b64encode(bytes(key.verify_key)).decode()


def _sign(key: SigningKey, policy: Any, app_id: str) -> str:
    """The policy key's signature of `policy` for the app `app_id` (docs/examples/sign_policy.py)."""
    return base64.b64encode(key.sign(signed.policy_message(app_id, policy)).signature).decode()


def _rotation(key: SigningKey, app_id: str, new: SigningKey, sequence: int) -> dict[str, str]:
    message = signed.rotation_message(app_id, _public(new), sequence)
    return {"publicKey": _public(new), "signature": base64.b64encode(key.sign(message).signature).decode()}


def _register(app_id: str, key: SigningKey, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    capsys.readouterr()
    found = tenancy_store.get_app(app_id)  # the app's client, as its integrator names it to the operator
    client = ["--client-id", found[0].clientId] if found else []
    assert admin.main(["set-policy-key", "--app-id", app_id, *client, "--public-key", _public(key)]) == 0
    return dict(json.loads(capsys.readouterr().out))


def _cosigner_table() -> list[dict[str, Any]]:
    items = aws.table(signing_policies.COSIGNER_POLICY_TABLE).scan(ConsistentRead=True)["Items"]
    return sorted(items, key=lambda item: (str(item["pk"]), str(item["sk"])))


@pytest.fixture
def registry(use_networks):
    """Two networks the engine knows by name (their nodes are never asked here)."""
    use_networks(
        [
            {"name": "local-a", "chainId": 31337, "rpcUrls": ["http://127.0.0.1:9"], "nativeSymbol": "ETH"},
            {"name": "local-b", "chainId": 31338, "rpcUrls": ["http://127.0.0.1:9"], "nativeSymbol": "ETH"},
        ]
    )


@pytest.fixture
def s(api, tenant, registry):
    """`s(method, path, body)`: a Family S call of the tenant's app."""

    def signed_call(method: str, path: str, body: Any = None) -> Any:
        return call(api, tenant, method, path, body)

    return signed_call


def _wallet(api, tenant, sub_id: str) -> dict[str, Any]:
    """A wallet made by the real parties (the cosigner records its client), with `post(path, body)`."""
    headers = {"Content-Type": "application/json", "x-client-secret": tenant.clientSecret}
    login = api.post("/api/v1/auth/login", body=json.dumps({"subId": sub_id}), headers=headers).json_body
    created = api.post(
        "/api/v1/account/create",
        body="{}",
        headers={**headers, "Authorization": f"Bearer {login['data']['accessToken']}"},
    ).json_body
    assert created["status"] == 200, created
    wallet = created["data"]

    def post(path: str, body: Any) -> Any:
        return api.post(
            path, body=json.dumps(body), headers={**headers, "Authorization": f"Bearer {wallet['walletToken']}"}
        )

    def get(path: str) -> Any:
        return api.get(path, headers={**headers, "Authorization": f"Bearer {wallet['walletToken']}"})

    return {"address": wallet["address"], "secret0": wallet["secret0"], "post": post, "get": get}


# --- GET and PUT /api/v1/policies ---------------------------------------------------------------------------------


def test_without_a_policy_key_get_says_so_and_a_put_is_409_no_policy_key(s, tenant):
    answer = s("GET", "/api/v1/policies")
    assert answer.status_code == 200, answer.json_body
    assert answer.json_body["data"] == {
        "policy": None,
        "version": None,
        "keyId": None,
        "keySequence": None,
        "keyRegistered": False,
    }
    policy = {"version": 1}
    refused = s("PUT", "/api/v1/policies", {"policy": policy, "signature": _sign(_key(1), policy, tenant.appId)})
    assert refused.status_code == 409 and refused.json_body["data"]["code"] == "NO_POLICY_KEY"
    assert not _cosigner_table()


def test_a_signed_policy_is_stored_as_sent_and_read_back(s, tenant, capsys):
    key = _key(1)
    record = _register(tenant.appId, key, capsys)
    assert record["sequence"] == 1 and record["keyId"] == signed.key_id(bytes(key.verify_key))
    assert s("GET", "/api/v1/policies").json_body["data"] == {
        "policy": None,
        "version": None,
        "keyId": record["keyId"],
        "keySequence": 1,
        "keyRegistered": True,
    }
    # Key order and spelling as the integrator wrote them: the signature is over the canonical form.
    policy = {
        "version": 2,
        "transactions": {"maxValue": {"native": "1000", TOKEN.upper().replace("0X", "0x"): "5"}},
        "default": "allow",
        "networks": ["local-a"],
    }
    answer = s("PUT", "/api/v1/policies", {"policy": policy, "signature": _sign(key, policy, tenant.appId)})
    assert answer.status_code == 200, answer.json_body
    assert answer.json_body["message"] == "policy set"
    data = answer.json_body["data"]
    assert data["version"] == 2 and data["keyId"] == record["keyId"] and data["setAt"].endswith("Z")
    view = s("GET", "/api/v1/policies").json_body["data"]
    assert view == {
        "policy": policy,
        "version": 2,
        "keyId": record["keyId"],
        "keySequence": 1,
        "keyRegistered": True,
    }


def test_versions_only_grow_and_no_other_key_signs(s, tenant, capsys):
    key = _key(1)
    _register(tenant.appId, key, capsys)
    loose = {"version": 5, "default": "allow"}
    assert (
        s("PUT", "/api/v1/policies", {"policy": loose, "signature": _sign(key, loose, tenant.appId)}).status_code == 200
    )
    strict = {"version": 6, "default": "deny"}
    assert (
        s("PUT", "/api/v1/policies", {"policy": strict, "signature": _sign(key, strict, tenant.appId)}).status_code
        == 200
    )
    stored = _cosigner_table()
    for replay in (loose, strict, {"version": 4}):
        answer = s("PUT", "/api/v1/policies", {"policy": replay, "signature": _sign(key, replay, tenant.appId)})
        assert answer.status_code == 409, replay
        assert answer.json_body["data"] == {"code": "POLICY_VERSION_STALE", "currentVersion": 6}
    newer = {"version": 7, "default": "allow"}
    for signature in (
        _sign(_key(2), newer, tenant.appId),  # another key
        _sign(key, {**newer, "default": "deny"}, tenant.appId),  # another document
        base64.b64encode(b"\0" * 64).decode(),  # 64 bytes, not a signature
        "not base64!",
        base64.b64encode(b"short").decode(),
        "",
    ):
        answer = s("PUT", "/api/v1/policies", {"policy": newer, "signature": signature})
        assert answer.status_code == 403, (signature, answer.json_body)
        assert answer.json_body["data"]["code"] == "POLICY_SIGNATURE_INVALID"
    assert _cosigner_table() == stored
    assert s("GET", "/api/v1/policies").json_body["data"]["policy"] == strict


@pytest.mark.parametrize(
    ("policy", "code", "field"),
    [
        ({"version": 0}, "INVALID_POLICY", "version"),
        ({"default": "allow"}, "INVALID_POLICY", "version"),
        ({"version": 1, "networks": ["mainnet"]}, "INVALID_POLICY", "networks.0"),
        (
            {"version": 1, "transactions": {"maxValue": {"native": "-1"}}},
            "INVALID_POLICY",
            "transactions.maxValue.native",
        ),
        ({"version": 1, "transactions": {"maxValue": {"native": 1}}}, "INVALID_POLICY", "transactions.maxValue.native"),
        ({"version": 1, "transactions": {"raw": "false"}}, "INVALID_POLICY", "transactions.raw"),
        ({"version": 1, "transactions": {"destinations": {"allow": ["0x12"]}}}, "INVALID_POLICY", None),
        ({"version": 1, "messages": {"personal": True, "extra": 1}}, "INVALID_POLICY", "messages.extra"),
        ({"version": 1.0}, "INVALID_POLICY", "version"),
        ({"version": 1, "comment": "x" * 70_000}, "POLICY_TOO_LARGE", "policy"),
    ],
)
def test_an_invalid_document_is_400_naming_its_field_and_stores_nothing(s, tenant, capsys, policy, code, field):
    key = _key(1)
    _register(tenant.appId, key, capsys)
    before = _cosigner_table()
    answer = s("PUT", "/api/v1/policies", {"policy": policy, "signature": _sign(key, policy, tenant.appId)})
    assert answer.status_code == 400, answer.json_body
    data = answer.json_body["data"]
    assert data["code"] == code
    if field is not None:
        assert data["field"] == field
        assert data["errors"][0]["field"] == ("policy" if field == "policy" else f"policy.{field}")
    assert _cosigner_table() == before


# --- POST /api/v1/policies/evaluate -------------------------------------------------------------------------------


def _set(s, key: SigningKey, policy: dict[str, Any], app_id: str) -> None:
    answer = s("PUT", "/api/v1/policies", {"policy": policy, "signature": _sign(key, policy, app_id)})
    assert answer.status_code == 200, answer.json_body


def _evaluate(s, body: dict[str, Any]) -> dict[str, Any]:
    answer = s("POST", "/api/v1/policies/evaluate", body)
    assert answer.status_code == 200, answer.json_body
    return dict(answer.json_body["data"])


def test_evaluate_answers_the_engine_s_decision_for_each_kind(s, tenant, capsys):
    # No key, no policy: as before policies, allowed.
    assert _evaluate(s, {"message": "hello"})["allowed"] is True
    key = _key(1)
    _register(tenant.appId, key, capsys)
    _set(
        s,
        key,
        {
            "version": 1,
            "default": "deny",
            "networks": ["local-a"],
            "transactions": {
                "maxValue": {"native": str(ETH)},
                "destinations": {"allow": [RECIPIENT.lower()]},
                "contracts": [{"address": TOKEN, "selectors": ["0xa9059cbb"]}],
            },
            "messages": {"personal": False, "typedData": [{"primaryType": "Permit", "verifyingContract": TOKEN}]},
        },
        tenant.appId,
    )
    coin = {"network": "local-a", "to": RECIPIENT, "value": str(ETH)}
    assert _evaluate(s, {"transaction": coin}) == {
        "allowed": True,
        "rule": "transactions.destinations.allow",
        "reason": "Every recipient is on the policy's allow list.",
    }
    too_much = _evaluate(s, {"transaction": {**coin, "value": str(ETH + 1)}})
    assert too_much["allowed"] is False and too_much["rule"] == "transactions.maxValue.native"
    elsewhere = _evaluate(s, {"transaction": {**coin, "to": OTHER}})
    assert elsewhere == {**elsewhere, "allowed": False, "rule": "transactions.destinations.allow"}
    other_chain = _evaluate(s, {"transaction": {**coin, "network": "local-b"}})
    assert other_chain["allowed"] is False and other_chain["rule"] == "networks"
    transfer = "0xa9059cbb" + RECIPIENT[2:].lower().rjust(64, "0") + hex(5)[2:].rjust(64, "0")
    token_call = _evaluate(s, {"transaction": {"network": "local-a", "to": TOKEN, "data": transfer}})
    assert token_call["allowed"] is True and token_call["rule"] == "transactions.contracts"
    approve = "0x095ea7b3" + RECIPIENT[2:].lower().rjust(64, "0") + "f" * 64
    refused = _evaluate(s, {"transaction": {"network": "local-a", "to": TOKEN, "data": approve}})
    assert refused["allowed"] is False and refused["rule"] == "transactions.contracts"
    message = _evaluate(s, {"message": "0x00ff", "encoding": "hex"})
    assert message["allowed"] is False and message["rule"] == "messages.personal"
    # A permit grants its value to its spender: the allow list sees the spender before messages.typedData decides.
    permit = _evaluate(s, {"typedData": PERMIT})
    assert permit["allowed"] is False and permit["rule"] == "transactions.destinations.allow"
    to_recipient = {**PERMIT, "message": {**PERMIT["message"], "spender": RECIPIENT}}
    permit = _evaluate(s, {"typedData": to_recipient})
    assert permit["allowed"] is True and permit["rule"] == "messages.typedData"
    other = _evaluate(s, {"typedData": {**to_recipient, "domain": {**PERMIT["domain"], "verifyingContract": OTHER}}})
    assert other["allowed"] is False and other["rule"] == "messages.typedData"
    assert not [item for item in _cosigner_table() if str(item["pk"]).startswith(("USAGE#", "COUNTED#"))]


def _call(selector: str, address: str, word: int) -> str:
    return "0x" + selector + address[2:].lower().rjust(64, "0") + hex(word)[2:].rjust(64, "0")


def test_evaluate_decides_allowances_permits_and_32_byte_messages(s, tenant, capsys):
    """An allowance is spending, over HTTP as in the engine: approve, increaseAllowance, setApprovalForAll, Permit2's
    approve and permits move their amount to their spender; revokes move nothing; other typed data and a 32-byte
    message need their own rule under a daily cap. Nothing is counted."""
    key = _key(1)
    _register(tenant.appId, key, capsys)
    policy = {
        "version": 1,
        "transactions": {"maxValuePer24h": {TOKEN: "100"}, "destinations": {"allow": [RECIPIENT]}},
        "messages": {"personal": True, "typedData": [{"primaryType": "Permit"}]},
    }
    _set(s, key, policy, tenant.appId)
    cap, allow = f"transactions.maxValuePer24h.{TOKEN}", "transactions.destinations.allow"

    def decide(body: dict[str, Any]) -> tuple[bool, str]:
        decision = _evaluate(s, body)
        return decision["allowed"], decision["rule"]

    def call(data: str) -> tuple[bool, str]:
        return decide({"transaction": {"network": "local-a", "to": TOKEN, "data": data}})

    approve, increase, decrease, approve_all = "095ea7b3", "39509351", "a457c2d7", "a22cb465"
    assert call(_call(approve, RECIPIENT, 100)) == (True, allow)
    assert call(_call(approve, RECIPIENT, 101)) == (False, cap)
    assert call(_call(increase, RECIPIENT, 101)) == (False, cap)
    unlimited = _evaluate(
        s, {"transaction": {"network": "local-a", "to": TOKEN, "data": _call(approve, RECIPIENT, 2**256 - 1)}}
    )
    assert (unlimited["allowed"], unlimited["rule"]) == (False, cap) and "unlimited approval" in unlimited["reason"]
    assert call(_call(approve_all, RECIPIENT, 1)) == (False, cap)
    assert call(_call(approve, OTHER, 1)) == (False, allow)
    assert call(_call(approve, OTHER, 0)) == (False, allow)
    assert call(_call(approve, RECIPIENT, 0)) == (True, allow)
    assert call(_call(decrease, OTHER, 5)) == (True, "default")
    assert call(_call(approve_all, OTHER, 0)) == (True, "default")
    assert call(_call(approve_all, OTHER, 2)) == (False, allow)  # a bool that is not 0 or 1: not decoded

    to_recipient = {**PERMIT, "message": {**PERMIT["message"], "spender": RECIPIENT}}
    assert decide({"typedData": {**to_recipient, "message": {**to_recipient["message"], "value": "100"}}}) == (
        True,
        "messages.typedData",
    )
    assert decide({"typedData": {**to_recipient, "message": {**to_recipient["message"], "value": "101"}}}) == (
        False,
        cap,
    )
    assert decide({"typedData": PERMIT}) == (False, allow)
    # Typed data that is no permit the cosigner reads (USDC's EIP-3009 transfer): only an entry allows it.
    authorization = {
        "types": {
            "TransferWithAuthorization": [
                {"name": "from", "type": "address"},
                {"name": "to", "type": "address"},
                {"name": "value", "type": "uint256"},
                {"name": "validAfter", "type": "uint256"},
                {"name": "validBefore", "type": "uint256"},
                {"name": "nonce", "type": "bytes32"},
            ]
        },
        "primaryType": "TransferWithAuthorization",
        "domain": {"name": "USD Coin", "version": "2", "chainId": 31337, "verifyingContract": TOKEN},
        "message": {
            "from": RECIPIENT,
            "to": OTHER,
            "value": str(10**30),
            "validAfter": 0,
            "validBefore": 1893456000,
            "nonce": "0x" + "00" * 32,
        },
    }
    assert decide({"typedData": authorization}) == (False, "messages.typedData")
    # Permit2's approve names the token it grants; the called contract is Permit2.
    permit2, approve_on_permit2 = "0x000000000022D473030F116dDEE9F6B43aC78BA3", "87517c45"

    def on_permit2(spender: str, amount: int) -> tuple[bool, str]:
        data = _call(approve_on_permit2, TOKEN, int(spender, 16)) + hex(amount)[2:].rjust(64, "0") + "0" * 64
        return decide({"transaction": {"network": "local-a", "to": permit2, "data": data}})

    assert on_permit2(RECIPIENT, 101) == (False, cap)
    assert on_permit2(RECIPIENT, 100) == (True, allow)
    assert on_permit2(OTHER, 1) == (False, allow)

    assert decide({"message": "0x" + "ab" * 32, "encoding": "hex"}) == (False, "messages.rawHashes")
    assert decide({"message": "0x" + "ab" * 31, "encoding": "hex"}) == (True, "messages.personal")
    assert decide({"message": "x" * 32}) == (False, "messages.rawHashes")  # 32 bytes of text are 32 bytes
    _set(s, key, {**policy, "version": 2, "messages": {"rawHashes": True}}, tenant.appId)
    assert decide({"message": "0x" + "ab" * 32, "encoding": "hex"}) == (True, "messages.rawHashes")
    assert not [item for item in _cosigner_table() if str(item["pk"]).startswith(("USAGE#", "COUNTED#"))]


def test_evaluate_takes_only_a_wallet_of_the_app_s_client(s, api, tenant, capsys, aux_sets):
    aux_sets(1)
    wallet = _wallet(api, tenant, "alice")
    key = _key(1)
    _register(tenant.appId, key, capsys)
    _set(s, key, {"version": 1, "transactions": {"maxCountPer24h": 0}}, tenant.appId)
    coin = {"network": "local-a", "to": RECIPIENT, "value": "1"}
    for body in ({"transaction": coin}, {"transaction": coin, "walletAddress": wallet["address"].lower()}):
        decision = _evaluate(s, body)
        assert decision["allowed"] is False and decision["rule"] == "transactions.maxCountPer24h"
    # A wallet of another client, or no wallet at all, is not found (clients never learn of each other's wallets).
    other = tenancy.create_tenant("Other")
    aux_sets(1)
    foreign = _wallet(api, other, "bob")
    for address in (foreign["address"], Account.create().address):
        answer = s("POST", "/api/v1/policies/evaluate", {"transaction": coin, "walletAddress": address})
        assert answer.status_code == 404 and answer.json_body["data"]["code"] == "WALLET_NOT_FOUND"


BAD_EVALUATIONS: list[tuple[Any, int, str]] = [
    ({}, 400, "VALIDATION_ERROR"),
    ({"message": "a", "typedData": PERMIT}, 400, "VALIDATION_ERROR"),
    ({"message": "a", "transaction": {"network": "local-a", "to": RECIPIENT}}, 400, "VALIDATION_ERROR"),
    ({"message": "a", "extra": 1}, 400, "VALIDATION_ERROR"),
    ({"message": 5}, 400, "VALIDATION_ERROR"),
    ({"message": "zz", "encoding": "hex"}, 400, "INVALID_MESSAGE"),
    ({"message": "0x0", "encoding": "hex"}, 400, "INVALID_MESSAGE"),
    ({"message": "\ud800"}, 400, "MALFORMED_JSON"),  # the router refuses a lone surrogate
    ({"message": "x" * 65_537}, 400, "MESSAGE_TOO_LARGE"),
    ({"message": "a", "encoding": "base64"}, 400, "VALIDATION_ERROR"),
    ({"transaction": {"network": "mainnet", "to": RECIPIENT}}, 400, "UNKNOWN_NETWORK"),
    ({"transaction": {"network": "local-a", "to": "0x12"}}, 400, "INVALID_ADDRESS"),
    ({"transaction": {"network": "local-a", "to": RECIPIENT.lower()[:-1] + "C"}}, 400, "INVALID_ADDRESS"),
    ({"transaction": {"network": "local-a", "to": RECIPIENT, "value": "-1"}}, 400, "INVALID_AMOUNT"),
    ({"transaction": {"network": "local-a", "to": RECIPIENT, "value": "1e18"}}, 400, "INVALID_AMOUNT"),
    ({"transaction": {"network": "local-a", "to": RECIPIENT, "value": str(2**256)}}, 400, "INVALID_AMOUNT"),
    ({"transaction": {"network": "local-a", "to": RECIPIENT, "value": 1}}, 400, "VALIDATION_ERROR"),
    ({"transaction": {"network": "local-a", "to": RECIPIENT, "data": "0xabc"}}, 400, "VALIDATION_ERROR"),
    ({"transaction": {"network": "local-a", "to": RECIPIENT, "data": "abcd"}}, 400, "VALIDATION_ERROR"),
    ({"transaction": {"network": "local-a"}}, 400, "VALIDATION_ERROR"),
    ({"transaction": {"network": "local-a", "to": None}}, 400, "VALIDATION_ERROR"),
    ({"transaction": {"network": "local-a", "to": RECIPIENT, "from": RECIPIENT}}, 400, "VALIDATION_ERROR"),
    ({"typedData": {}}, 400, "INVALID_TYPED_DATA"),
    ({"typedData": {**PERMIT, "primaryType": "Nope"}}, 400, "INVALID_TYPED_DATA"),
    ({"typedData": {**PERMIT, "message": {**PERMIT["message"], "value": "-1"}}}, 400, "INVALID_TYPED_DATA"),
    ({"typedData": {**PERMIT, "domain": {**PERMIT["domain"], "salt": "x" * 70_000}}}, 400, "TYPED_DATA_TOO_LARGE"),
    ({"message": "a", "walletAddress": "0x12"}, 400, "INVALID_ADDRESS"),
    ([1, 2], 400, "MALFORMED_JSON"),
]


def test_bad_input_is_a_4xx_with_its_code_and_changes_nothing(s, api, tenant, capsys):
    key = _key(1)
    _register(tenant.appId, key, capsys)
    policy = {"version": 3, "messages": {"personal": False}}
    _set(s, key, policy, tenant.appId)
    before = _cosigner_table()
    for body, status, code in BAD_EVALUATIONS:
        answer = s("POST", "/api/v1/policies/evaluate", body)
        assert (answer.status_code, answer.json_body["data"]["code"]) == (status, code), (body, answer.json_body)
    bad_puts: list[tuple[Any, int, str]] = [
        ({}, 400, "VALIDATION_ERROR"),
        ({"policy": policy}, 400, "VALIDATION_ERROR"),
        ({"policy": "{}", "signature": _sign(key, policy, tenant.appId)}, 400, "VALIDATION_ERROR"),
        ({"policy": [policy], "signature": _sign(key, policy, tenant.appId)}, 400, "VALIDATION_ERROR"),
        ({"policy": policy, "signature": 5}, 400, "VALIDATION_ERROR"),
        ({"policy": policy, "signature": "A" * 300}, 400, "VALIDATION_ERROR"),
        ({"policy": policy, "signature": _sign(key, policy, tenant.appId), "extra": 1}, 400, "VALIDATION_ERROR"),
        ({"policy": {"version": 1.5}, "signature": _sign(key, policy, tenant.appId)}, 400, "INVALID_POLICY"),
        ({"policy": {"version": 4, "x": 2**60}, "signature": _sign(key, policy, tenant.appId)}, 400, "INVALID_POLICY"),
        ({"policy": {"version": 2**60}, "signature": _sign(key, policy, tenant.appId)}, 400, "INVALID_POLICY"),
    ]
    for body, status, code in bad_puts:
        answer = s("PUT", "/api/v1/policies", body)
        assert (answer.status_code, answer.json_body["data"]["code"]) == (status, code), (body, answer.json_body)
    bad_keys: list[tuple[Any, int, str]] = [
        ({}, 400, "VALIDATION_ERROR"),
        ({"publicKey": "abc", "signature": "x"}, 400, "INVALID_POLICY_KEY"),
        ({"publicKey": base64.b64encode(b"\0" * 32).decode(), "signature": "x"}, 400, "INVALID_POLICY_KEY"),
        ({"publicKey": base64.b64encode(b"\1" * 33).decode(), "signature": "x"}, 400, "INVALID_POLICY_KEY"),
        ({"publicKey": "é" * 10, "signature": "x"}, 400, "INVALID_POLICY_KEY"),
        ({"publicKey": _public(_key(2)), "signature": "x"}, 403, "POLICY_SIGNATURE_INVALID"),
        ({"publicKey": _public(_key(2)), "signature": 1}, 400, "VALIDATION_ERROR"),
    ]
    for body, status, code in bad_keys:
        answer = s("PUT", "/api/v1/policies/key", body)
        assert (answer.status_code, answer.json_body["data"]["code"]) == (status, code), (body, answer.json_body)
    raw = api.put("/api/v1/policies", body=b"{not json", headers={"Content-Type": "application/json"})
    assert raw.status_code == 401  # unsigned: refused before its body is read
    assert _cosigner_table() == before
    assert s("GET", "/api/v1/policies").json_body["data"]["policy"] == policy


# --- PUT /api/v1/policies/key ---------------------------------------------------------------------------------------


def test_a_rotation_signed_by_the_current_key_replaces_it_once(s, tenant, capsys):
    first, second, third = _key(1), _key(2), _key(3)
    rotation = _rotation(first, tenant.appId, second, 2)
    assert s("PUT", "/api/v1/policies/key", rotation).json_body["data"]["code"] == "NO_POLICY_KEY"
    _register(tenant.appId, first, capsys)
    _set(s, first, {"version": 1}, tenant.appId)
    for wrong in (
        _rotation(second, tenant.appId, second, 2),  # signed by the new key itself
        _rotation(first, tenant.appId, second, 1),  # the current sequence, not the next
        _rotation(first, tenant.appId, second, 3),
        _rotation(first, str(uuid.uuid4()), second, 2),  # for another app
        {**_rotation(first, tenant.appId, second, 2), "publicKey": _public(third)},  # another key than signed
    ):
        answer = s("PUT", "/api/v1/policies/key", wrong)
        assert answer.status_code == 403 and answer.json_body["data"]["code"] == "POLICY_SIGNATURE_INVALID", wrong
    answer = s("PUT", "/api/v1/policies/key", rotation)
    assert answer.status_code == 200, answer.json_body
    assert answer.json_body["message"] == "policy key rotated"
    assert answer.json_body["data"] == {"keyId": signed.key_id(bytes(second.verify_key)), "sequence": 2}
    replayed = s("PUT", "/api/v1/policies/key", rotation)
    assert replayed.status_code == 403 and replayed.json_body["data"]["code"] == "POLICY_SIGNATURE_INVALID"
    # The document in force stays; the next one must be signed by the new key.
    view = s("GET", "/api/v1/policies").json_body["data"]
    assert view["policy"] == {"version": 1} and view["keyId"] == signed.key_id(bytes(second.verify_key))
    old = {"version": 2}
    answer = s("PUT", "/api/v1/policies", {"policy": old, "signature": _sign(first, old, tenant.appId)})
    assert answer.json_body["data"]["code"] == "POLICY_SIGNATURE_INVALID"
    _set(s, second, old, tenant.appId)
    assert s("PUT", "/api/v1/policies/key", _rotation(second, tenant.appId, third, 3)).status_code == 200


# --- an unreachable cosigner ------------------------------------------------------------------------------------------


def test_a_cosigner_that_cannot_answer_is_503_signer_unavailable(s, tenant, capsys, monkeypatch):
    key = _key(1)
    _register(tenant.appId, key, capsys)

    def crash(event: dict[str, Any]) -> dict[str, Any]:
        raise RuntimeError("cosigner down")

    crashing = signing_policies.ACTIONS.copy()
    for name in ("policy-set", "policy-get", "policy-evaluate", "policy-key-rotate"):
        crashing.register(name, crash)
    monkeypatch.setattr(signing_policies, "ACTIONS", crashing)
    policy = {"version": 1}
    for method, path, body in (
        ("GET", "/api/v1/policies", None),
        ("PUT", "/api/v1/policies", {"policy": policy, "signature": _sign(key, policy, tenant.appId)}),
        ("POST", "/api/v1/policies/evaluate", {"message": "hi"}),
        ("PUT", "/api/v1/policies/key", _rotation(key, tenant.appId, _key(2), 2)),
    ):
        answer = s(method, path, body)
        assert answer.status_code == 503 and answer.json_body["data"] == {"code": "SIGNER_UNAVAILABLE"}, path


# --- the operator's commands -----------------------------------------------------------------------------------------


def test_set_policy_key_refuses_what_is_not_a_key_or_an_app_and_a_replacement_continues_the_sequence(
    tenant, registry, capsys
):
    assert admin.main(["set-policy-key", "--app-id", tenant.appId, "--public-key", "abc"]) == 1
    assert "error:" in capsys.readouterr().err
    assert admin.main(["set-policy-key", "--app-id", "nope", "--public-key", _public(_key(1))]) == 1
    assert "no app nope" in capsys.readouterr().err
    assert not _cosigner_table()
    assert _register(tenant.appId, _key(1), capsys)["sequence"] == 1
    replaced = _register(tenant.appId, _key(2), capsys)
    assert replaced["sequence"] == 2 and replaced["keyId"] == signed.key_id(bytes(_key(2).verify_key))
    assert "secret" not in json.dumps(replaced).lower()


def _wallet_id(address: str) -> str:
    item = aws.table("wallets").get_item(Key={"pk": f"ADDRESS#{address}", "sk": "META"})["Item"]
    return str(item["walletId"])


# --- a refused send: 403 POLICY_DENIED, nothing broadcast, the nonce given back ---------------------------------------


@pytest.fixture(scope="module")
def local_chain(tmp_path_factory):
    with chain.start_anvil(chain.free_port(), 31337) as anvil:
        tokens = chain.deploy_test_contracts(anvil.rpc_url)
        path = tmp_path_factory.mktemp("networks") / "networks.json"
        entry = {"name": "local-a", "chainId": 31337, "rpcUrls": [anvil.rpc_url], "nativeSymbol": "ETH"}
        path.write_text(json.dumps({"networks": [{**entry, "tokens": tokens}]}))
        yield {"rpc": anvil.rpc_url, "tokens": tokens, "networks_file": path}


@pytest.fixture
def funded(local_chain, api, tenant, aux_sets, monkeypatch):
    from web3 import Web3

    monkeypatch.setenv("DOMPET_NETWORKS_FILE", str(local_chain["networks_file"]))
    settings.load_settings.cache_clear()
    networks.registry.cache_clear()
    aux_sets(1)
    wallet = _wallet(api, tenant, f"sender-{uuid.uuid4().hex[:8]}")
    w3 = Web3(Web3.HTTPProvider(local_chain["rpc"]))
    w3.provider.make_request("anvil_setBalance", [wallet["address"], hex(10 * ETH)])
    yield {**wallet, "w3": w3}
    settings.load_settings.cache_clear()
    networks.registry.cache_clear()


def test_a_send_the_policy_refuses_is_403_policy_denied_broadcasts_nothing_and_gives_its_nonce_back(
    funded, api, tenant, capsys
):
    w3, address = funded["w3"], funded["address"]
    key = _key(1)
    _register(tenant.appId, key, capsys)
    policy = {
        "version": 1,
        "transactions": {
            "maxValue": {"native": str(ETH)},
            "maxValuePer24h": {"native": str(2 * ETH)},
            "destinations": {"deny": [OTHER]},
        },
    }
    answer = call(
        api, tenant, "PUT", "/api/v1/policies", {"policy": policy, "signature": _sign(key, policy, tenant.appId)}
    )
    assert answer.status_code == 200, answer.json_body

    def send(to: str, amount: str) -> Any:
        return funded["post"]("/api/v1/wallet/send-coin", {"network": "local-a", "to": to, "amount": amount})

    first = send(RECIPIENT, "0.5")
    assert first.status_code == 200, first.json_body
    assert first.json_body["data"]["txReceipt"]["nonce"] == 0
    balance = w3.eth.get_balance(address)
    for to, amount, rule in (
        (RECIPIENT, "1.5", "transactions.maxValue.native"),
        (OTHER, "0.1", "transactions.destinations.deny"),
    ):
        refused = send(to, amount)
        assert refused.status_code == 403, refused.json_body
        assert refused.json_body["data"] == {"code": "POLICY_DENIED", "rule": rule}
        assert refused.json_body["message"].startswith("The wallet's signing policy refused this")
    raw = {"from": address, "to": OTHER, "value": hex(1)}
    refused = funded["post"]("/api/v1/wallet/send-transaction", {"network": "local-a", "transaction": raw})
    assert refused.status_code == 403 and refused.json_body["data"]["rule"] == "transactions.destinations.deny"
    # Nothing was broadcast, and the wallet lists only its one transaction.
    assert w3.eth.get_transaction_count(address, "pending") == 1
    assert w3.eth.get_balance(address) == balance
    listed = funded["get"]("/api/v1/wallet/transactions").json_body["data"]["data"]
    assert [t["nonce"] for t in listed] == [0]
    # The refused sends' nonce went back: the next allowed send takes it, no gap on chain.
    second = send(RECIPIENT, "1")
    assert second.status_code == 200, second.json_body
    assert second.json_body["data"]["txReceipt"]["nonce"] == 1
    w3.eth.wait_for_transaction_receipt(second.json_body["data"]["txReceipt"]["hash"])
    assert w3.eth.get_transaction_count(address) == 2
    # The wallet's own last 24 hours, as `evaluate` sees them with its address: 1.5 ETH sent (the refused sends
    # count nothing) of the 2 allowed.
    coin = {"network": "local-a", "to": RECIPIENT, "value": str(ETH)}
    for body, allowed in (({"transaction": coin}, True), ({"transaction": coin, "walletAddress": address}, False)):
        decision = call(api, tenant, "POST", "/api/v1/policies/evaluate", body).json_body["data"]
        assert decision["allowed"] is allowed, decision
    assert decision["rule"] == "transactions.maxValuePer24h.native"
    assert "after 1500000000000000000 in the last 24 hours" in decision["reason"]
    refused = send(RECIPIENT, "1")
    assert refused.status_code == 403 and refused.json_body["data"]["rule"] == "transactions.maxValuePer24h.native"
    assert send(RECIPIENT, "0.5").json_body["data"]["txReceipt"]["nonce"] == 2
    # A refused signature is not listed. A permit is spending: one for the denied address is refused.
    denied = funded["post"]("/api/v1/wallet/sign-typed-data", {"typedData": PERMIT})
    assert denied.status_code == 403 and denied.json_body["data"] == {
        "code": "POLICY_DENIED",
        "rule": "transactions.destinations.deny",
    }
    to_recipient = {**PERMIT, "message": {**PERMIT["message"], "spender": RECIPIENT}}
    signature = funded["post"]("/api/v1/wallet/sign-typed-data", {"typedData": to_recipient})
    assert signature.status_code == 200  # no typed-data rule: the default (allow) decides
    policy = {"version": 2, "messages": {"typedData": []}}
    answer = call(
        api, tenant, "PUT", "/api/v1/policies", {"policy": policy, "signature": _sign(key, policy, tenant.appId)}
    )
    assert answer.status_code == 200, answer.json_body
    denied = funded["post"]("/api/v1/wallet/sign-typed-data", {"typedData": to_recipient})
    assert denied.status_code == 403 and denied.json_body["data"] == {
        "code": "POLICY_DENIED",
        "rule": "messages.typedData",
    }
    assert len(funded["get"]("/api/v1/wallet/signatures").json_body["data"]["data"]) == 1


def test_a_refusal_in_a_presignature_s_online_step_burns_no_presignature_and_gives_the_nonce_back(
    pool_settings, funded, api, tenant, capsys
):
    from chalicelib.mpc import presignatures, shares
    from tests.support.mpc import audit_records, refill_messages, run_refill_function

    wallet_id = _wallet_id(funded["address"])
    for message in refill_messages():
        assert run_refill_function(message) == {"batchItemFailures": []}
    for party in (shares.SIGNER, shares.COSIGNER):
        assert len(presignatures.ready_ids(party, wallet_id)) == 2
    key = _key(1)
    _register(tenant.appId, key, capsys)
    policy = {"version": 1, "transactions": {"destinations": {"allow": [RECIPIENT]}}}
    answer = call(
        api, tenant, "PUT", "/api/v1/policies", {"policy": policy, "signature": _sign(key, policy, tenant.appId)}
    )
    assert answer.status_code == 200, answer.json_body

    def send(to: str) -> Any:
        return funded["post"]("/api/v1/wallet/send-coin", {"network": "local-a", "to": to, "amount": "0.1"})

    refused = send(OTHER)
    assert refused.status_code == 403, refused.json_body
    assert refused.json_body["data"] == {"code": "POLICY_DENIED", "rule": "transactions.destinations.allow"}
    for party in (shares.SIGNER, shares.COSIGNER):
        assert len(presignatures.ready_ids(party, wallet_id)) == 2  # nothing burned on either side
    audits = [(a["outcome"], a["method"]) for a in audit_records(wallet_id)]
    assert audits == [("denied", "presignature")]  # decided in the online step, no full run after it
    sent = send(RECIPIENT)
    assert sent.status_code == 200, sent.json_body
    assert sent.json_body["data"]["txReceipt"]["nonce"] == 0
    assert len(presignatures.ready_ids(shares.COSIGNER, wallet_id)) == 1  # signed with one of them
    assert funded["w3"].eth.get_transaction_count(funded["address"], "pending") == 1
