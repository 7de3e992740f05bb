"""Message signatures through the API: POST /api/v1/wallet/sign-message and sign-typed-data, and the wallet's
list of signatures (GET /api/v1/wallet/signatures).

AWS is moto in process and the MPC core is real: the cosigner and the user party run in process and exchange
messages through the DynamoDB mailbox. Every signature is checked against eth-account, an implementation
independent of the service's.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
import rlp
from eth_account import Account
from eth_account.messages import _hash_eip191_message, encode_defunct, encode_typed_data
from eth_utils import keccak

from chalicelib.mpc import remote
from chalicelib.platform import aws, examples
from chalicelib.wallets.models import (
    AuthorizationSignature,
    MessageSignature,
    SignatureView,
    SignAuthorizationRequest,
    SignMessageRequest,
    SignTypedDataRequest,
    TypedDataSignature,
)
from tests.support import typed_data
from tests.support.authorizations import eth_account_authority, viem
from tests.support.mpc import audit_records, refill_messages, run_refill_function

SIGN_MESSAGE = "/api/v1/wallet/sign-message"
SIGN_TYPED_DATA = "/api/v1/wallet/sign-typed-data"
SIGNATURES = "/api/v1/wallet/signatures"
# The OpenAPI example: an EIP-2612 permit whose owner is the example wallet (the test's wallet is another).
PERMIT: dict[str, Any] = examples.example(SignTypedDataRequest, request=True)["typedData"]


class Wallet:
    def __init__(self, api: Any, tenant: Any, data: dict[str, Any], access_token: str) -> None:
        self.api, self.tenant = api, tenant
        self.token, self.secret0, self.address = data["walletToken"], data["secret0"], data["address"]
        self.access_token = access_token

    def post(self, path: str, body: Any, token: str | None = None) -> Any:
        return self.api.post(
            path,
            body=body if isinstance(body, str) else json.dumps(body),
            headers={
                "Content-Type": "application/json",
                "Authorization": f"Bearer {token or self.token}",
                "x-client-secret": self.tenant.clientSecret,
            },
        )

    def get(self, path: str, token: str | None = None) -> Any:
        return self.api.get(
            path,
            headers={"Authorization": f"Bearer {token or self.token}", "x-client-secret": self.tenant.clientSecret},
        )

    @property
    def wallet_id(self) -> str:
        return self.secret0.split(".")[2]


@pytest.fixture
def wallet(api, tenant, aux_sets) -> Wallet:
    """A wallet created through the API; its presignature pool is empty (no refill ran)."""
    aux_sets(1)
    login = api.post(
        "/api/v1/auth/login",
        body=json.dumps({"subId": "alice"}),
        headers={"Content-Type": "application/json", "x-client-secret": tenant.clientSecret},
    )
    access = login.json_body["data"]["accessToken"]
    created = api.post(
        "/api/v1/account/create",
        body="{}",
        headers={
            "Content-Type": "application/json",
            "Authorization": f"Bearer {access}",
            "x-client-secret": tenant.clientSecret,
        },
    )
    assert created.status_code == 200, created.json_body
    return Wallet(api, tenant, created.json_body["data"], access)


@pytest.fixture
def party_calls(monkeypatch) -> list[str]:
    """The party functions (cosigner, user party) each request reached, in order; the calls go through."""
    calls: list[str] = []
    real = remote.call

    def spy(function: str, payload: dict[str, Any]) -> Any:
        calls.append(function)
        return real(function, payload)

    monkeypatch.setattr(remote, "call", spy)
    return calls


def data(response: Any) -> dict[str, Any]:
    assert response.status_code == 200, response.json_body
    return dict(response.json_body["data"])


def mailbox_items() -> int:
    return len(aws.table("mpc-mailbox").scan(ConsistentRead=True)["Items"])


def test_a_personal_message_is_signed_as_eip191_and_recovers_to_the_wallet(wallet, party_calls):
    text = "Sign in to app.example.com\nNonce: 8f3c2a1b — ünïcode ✓"
    response = wallet.post(SIGN_MESSAGE, {"message": text})

    assert response.json_body["message"] == "sign message successfully"
    got = data(response)
    assert set(got) == {"signature", "address", "messageHash"}
    signable = encode_defunct(text=text)
    assert got["address"] == wallet.address
    assert got["messageHash"] == "0x" + _hash_eip191_message(signable).hex()
    signature = bytes.fromhex(got["signature"].removeprefix("0x"))
    assert got["signature"].startswith("0x") and len(signature) == 65 and signature[64] in (27, 28)
    assert Account.recover_message(signable, signature=signature) == wallet.address
    # A and B signed (no secret): the cosigner was asked, and it signed this very digest.
    assert party_calls and set(party_calls) == {"cosigner"}
    (record,) = audit_records(wallet.wallet_id)
    assert record["digest"] == got["messageHash"].removeprefix("0x") and record["outcome"] == "signed"


def test_hex_encoding_signs_the_bytes(wallet):
    raw = bytes(range(256)) * 2  # not UTF-8 text
    got = data(wallet.post(SIGN_MESSAGE, {"message": "0x" + raw.hex().upper(), "encoding": "hex"}))
    signable = encode_defunct(primitive=raw)
    assert got["messageHash"] == "0x" + _hash_eip191_message(signable).hex()
    assert Account.recover_message(signable, signature=got["signature"]) == wallet.address

    # The same characters as text sign other bytes: utf8 is the default.
    as_text = data(wallet.post(SIGN_MESSAGE, {"message": "0x646f6d706574"}))
    assert Account.recover_message(encode_defunct(text="0x646f6d706574"), signature=as_text["signature"]) == (
        wallet.address
    )
    empty = data(wallet.post(SIGN_MESSAGE, {"message": "0x", "encoding": "hex"}))
    assert Account.recover_message(encode_defunct(primitive=b""), signature=empty["signature"]) == wallet.address


def test_typed_data_is_signed_as_eip712_and_recovers_to_the_wallet(wallet):
    response = wallet.post(SIGN_TYPED_DATA, {"typedData": PERMIT})

    assert response.json_body["message"] == "sign typed data successfully"
    got = data(response)
    assert set(got) == {"signature", "address", "hash", "domainSeparator"}
    signable = encode_typed_data(full_message=PERMIT)
    assert got["address"] == wallet.address
    assert got["hash"] == "0x" + _hash_eip191_message(signable).hex()
    assert got["domainSeparator"] == "0x" + signable.header.hex()
    assert bytes.fromhex(got["signature"][2:])[64] in (27, 28)
    assert Account.recover_message(signable, signature=got["signature"]) == wallet.address

    # EIP712Domain given explicitly: the same digest.
    declared = copy.deepcopy(PERMIT)
    declared["types"]["EIP712Domain"] = [
        {"name": "name", "type": "string"},
        {"name": "version", "type": "string"},
        {"name": "chainId", "type": "uint256"},
        {"name": "verifyingContract", "type": "address"},
    ]
    again = data(wallet.post(SIGN_TYPED_DATA, {"typedData": declared}))
    assert again["hash"] == got["hash"]
    assert Account.recover_message(signable, signature=again["signature"]) == wallet.address


def test_with_secret_shares_a_and_c_sign_without_the_cosigner(wallet, party_calls):
    text = "signed with A and C"
    got = data(wallet.post(SIGN_MESSAGE, {"message": text, "secret": wallet.secret0}))
    assert Account.recover_message(encode_defunct(text=text), signature=got["signature"]) == wallet.address
    typed = data(wallet.post(SIGN_TYPED_DATA, {"typedData": PERMIT, "secret": wallet.secret0 + "\n"}))
    assert Account.recover_message(encode_typed_data(full_message=PERMIT), signature=typed["signature"]) == (
        wallet.address
    )
    assert party_calls == ["user_party", "user_party"]
    assert {tuple(r["parties"]) for r in audit_records(wallet.wallet_id)} == {("signer", "user")}


@pytest.mark.parametrize("path", [SIGN_MESSAGE, SIGN_TYPED_DATA])
def test_a_wrong_secret_is_401_and_nothing_is_signed(wallet, party_calls, path):
    body = {"message": "hi"} if path == SIGN_MESSAGE else {"typedData": PERMIT}
    response = wallet.post(path, {**body, "secret": wallet.secret0[:-4] + "AAAA"})
    assert response.status_code == 401 and response.json_body["data"]["code"] == "INVALID_SECRET"
    assert party_calls == [] and audit_records(wallet.wallet_id) == []
    assert data(wallet.get(SIGNATURES))["pagination"]["total"] == 0


def _typed(**changes: Any) -> dict[str, Any]:
    document = copy.deepcopy(PERMIT)
    for dotted, value in changes.items():
        *parents, last = dotted.split("__")
        node = document
        for key in parents:
            node = node[key]
        if value is None:
            del node[last]
        else:
            node[last] = value
    return {"typedData": document}


BIG = "x" * (64 * 1024 + 1)
MALFORMED = [
    (SIGN_MESSAGE, {"message": "0x123", "encoding": "hex"}, "INVALID_MESSAGE", "message"),
    (SIGN_MESSAGE, {"message": "646f", "encoding": "hex"}, "INVALID_MESSAGE", "message"),
    (SIGN_MESSAGE, {"message": "0xzz", "encoding": "hex"}, "INVALID_MESSAGE", "message"),
    (SIGN_MESSAGE, {"message": BIG}, "MESSAGE_TOO_LARGE", "message"),
    (SIGN_MESSAGE, {"message": "é" * (32 * 1024 + 1)}, "MESSAGE_TOO_LARGE", "message"),  # 2 bytes each
    (SIGN_MESSAGE, {"message": "0x" + "00" * (64 * 1024 + 1), "encoding": "hex"}, "MESSAGE_TOO_LARGE", "message"),
    (SIGN_MESSAGE, {"message": "hi", "encoding": "base64"}, "VALIDATION_ERROR", "encoding"),
    (SIGN_MESSAGE, {}, "VALIDATION_ERROR", "message"),
    (SIGN_MESSAGE, {"message": 42}, "VALIDATION_ERROR", "message"),
    (SIGN_MESSAGE, {"message": "hi", "network": "anvil"}, "VALIDATION_ERROR", "network"),
    (SIGN_MESSAGE, {"message": "hi", "digest": "0x" + "11" * 32}, "VALIDATION_ERROR", "digest"),
    (SIGN_TYPED_DATA, {}, "VALIDATION_ERROR", "typedData"),
    (SIGN_TYPED_DATA, {"typedData": []}, "VALIDATION_ERROR", "typedData"),
    (SIGN_TYPED_DATA, {"typedData": PERMIT, "chainId": "31337"}, "VALIDATION_ERROR", "chainId"),
    (SIGN_TYPED_DATA, _typed(primaryType="Order"), "INVALID_TYPED_DATA", "typedData.primaryType"),
    (
        SIGN_TYPED_DATA,
        _typed(types__Permit=[*PERMIT["types"]["Permit"], {"name": "extra", "type": "Missing"}]),
        "INVALID_TYPED_DATA",
        "typedData.types.Permit.5.type",
    ),
    (SIGN_TYPED_DATA, _typed(message__owner=None), "INVALID_TYPED_DATA", "typedData.message.owner"),
    (SIGN_TYPED_DATA, _typed(message__value=str(2**256)), "INVALID_TYPED_DATA", "typedData.message.value"),
    (SIGN_TYPED_DATA, _typed(message__nonce=-1), "INVALID_TYPED_DATA", "typedData.message.nonce"),
    (
        SIGN_TYPED_DATA,
        _typed(
            types__Permit=[*PERMIT["types"]["Permit"], {"name": "next", "type": "Link"}],
            types__Link=[{"name": "back", "type": "Permit"}],
        ),
        "INVALID_TYPED_DATA",
        None,  # the cycle is named where it closes
    ),
    (SIGN_TYPED_DATA, _typed(message__spender="0x1234"), "INVALID_TYPED_DATA", "typedData.message.spender"),
    (SIGN_TYPED_DATA, _typed(domain__name=BIG), "TYPED_DATA_TOO_LARGE", "typedData"),
]


@pytest.mark.parametrize(("path", "body", "code", "field"), MALFORMED)
def test_malformed_bodies_are_400_naming_the_field_and_never_reach_a_party(
    wallet, party_calls, path, body, code, field
):
    mailbox = mailbox_items()
    response = wallet.post(path, body)

    assert response.status_code == 400, response.json_body
    assert response.json_body["data"]["code"] == code
    fields = [e["field"] for e in response.json_body["data"]["errors"]]
    assert fields and (field is None or fields == [field]), fields
    if field is None:
        assert fields[0].startswith("typedData.types."), fields
    assert party_calls == [] and audit_records(wallet.wallet_id) == [] and mailbox_items() == mailbox
    assert data(wallet.get(SIGNATURES))["pagination"]["total"] == 0


def test_the_list_shows_each_signature_with_kind_hash_and_time_newest_first(wallet):
    message = data(wallet.post(SIGN_MESSAGE, {"message": "first"}))
    typed = data(wallet.post(SIGN_TYPED_DATA, {"typedData": PERMIT}))
    no_domain_chain = _typed(domain__chainId=None, domain__verifyingContract=None)
    third = data(wallet.post(SIGN_TYPED_DATA, no_domain_chain))

    listed = data(wallet.get(SIGNATURES))
    assert listed["pagination"] == {
        "total": 3,
        "page": 1,
        "limit": 20,
        "totalPages": 1,
        "hasNext": False,
        "hasPrev": False,
    }
    newest, middle, oldest = listed["data"]
    assert newest == {
        "kind": "typed_data",
        "hash": third["hash"],
        "primaryType": "Permit",
        "chainId": None,
        "verifyingContract": None,
        "contractAddress": None,
        "createdAt": newest["createdAt"],
    }
    assert middle == {
        "kind": "typed_data",
        "hash": typed["hash"],
        "primaryType": "Permit",
        "chainId": "31337",
        "verifyingContract": "0x5FbDB2315678afecb367f032d93F642f64180aa3",
        "contractAddress": None,
        "createdAt": middle["createdAt"],
    }
    assert oldest == {
        "kind": "personal_message",
        "hash": message["messageHash"],
        "primaryType": None,
        "chainId": None,
        "verifyingContract": None,
        "contractAddress": None,
        "createdAt": oldest["createdAt"],
    }
    assert oldest["createdAt"] <= middle["createdAt"] <= newest["createdAt"]
    assert newest["createdAt"].endswith("Z")

    second_page = data(wallet.get(SIGNATURES + "?page=2&limit=2"))
    assert [e["hash"] for e in second_page["data"]] == [message["messageHash"]]
    assert second_page["pagination"]["hasPrev"] is True and second_page["pagination"]["totalPages"] == 2
    # Signatures are not transactions: the transaction list stays empty.
    assert data(wallet.get("/api/v1/wallet/transactions"))["pagination"]["total"] == 0
    # What is kept: neither the message nor the signature.
    stored = json.dumps(aws.table("wallets").scan(ConsistentRead=True)["Items"], default=str)
    assert "first" not in stored and message["signature"][2:] not in stored and typed["signature"][2:] not in stored


@pytest.mark.parametrize(("method", "path"), [("POST", SIGN_MESSAGE), ("POST", SIGN_TYPED_DATA), ("GET", SIGNATURES)])
def test_an_access_token_is_403(wallet, party_calls, method, path):
    body = {"message": "hi"} if path == SIGN_MESSAGE else {"typedData": PERMIT}
    response = (
        wallet.post(path, body, token=wallet.access_token)
        if method == "POST"
        else wallet.get(path, token=wallet.access_token)
    )
    # The access token the wallet was created with is still the user's, but not a wallet token.
    assert response.status_code == 403, response.json_body
    assert response.json_body["data"]["code"] == "WALLET_TOKEN_REQUIRED"
    assert party_calls == []


def test_a_stocked_wallet_signs_messages_through_its_presignatures(pool_settings, wallet):
    (refill,) = refill_messages()
    assert run_refill_function(refill) == {"batchItemFailures": []}

    message = data(wallet.post(SIGN_MESSAGE, {"message": "fast"}))
    typed = data(wallet.post(SIGN_TYPED_DATA, {"typedData": PERMIT}))

    assert Account.recover_message(encode_defunct(text="fast"), signature=message["signature"]) == wallet.address
    assert Account.recover_message(encode_typed_data(full_message=PERMIT), signature=typed["signature"]) == (
        wallet.address
    )
    records = audit_records(wallet.wallet_id)
    assert sorted(r["digest"] for r in records) == sorted(
        [message["messageHash"].removeprefix("0x"), typed["hash"].removeprefix("0x")]
    )
    assert {r["method"] for r in records} == {"presignature"}


def test_the_openapi_examples_are_real_signatures():
    """The documented request and answer examples belong together: each signature recovers to the example's
    address with eth-account, over the digest the example answers."""
    message_body = examples.example(SignMessageRequest, request=True)
    message_answer = examples.example(MessageSignature)
    signable = encode_defunct(text=message_body["message"])
    assert message_answer["messageHash"] == "0x" + _hash_eip191_message(signable).hex()
    assert Account.recover_message(signable, signature=message_answer["signature"]) == message_answer["address"]

    typed_body = examples.example(SignTypedDataRequest, request=True)
    typed_answer = examples.example(TypedDataSignature)
    typed = encode_typed_data(full_message=typed_body["typedData"])
    assert typed_answer["hash"] == "0x" + _hash_eip191_message(typed).hex()
    assert typed_answer["domainSeparator"] == "0x" + typed.header.hex()
    assert Account.recover_message(typed, signature=typed_answer["signature"]) == typed_answer["address"]
    listed = examples.example(SignatureView)
    assert listed["hash"] == typed_answer["hash"]


def test_the_services_typed_data_signatures_verify_with_ethers_and_viem(wallet):
    """Independent verifiers: documents of the differential corpus (with and without EIP712Domain, a salt, nested
    and array types), signed through the API by the MPC wallet, verify with ethers' and viem's verifyTypedData; a
    signature of one document does not verify another."""
    documents = [entry["document"] for entry in typed_data.corpus()[::6]]  # ten of the 55, spread over the kinds
    signed = [(doc, data(wallet.post(SIGN_TYPED_DATA, {"typedData": doc}))["signature"]) for doc in documents]
    items = [(doc, signature, wallet.address) for doc, signature in signed]
    items.append((documents[1], signed[0][1], wallet.address))  # another document's signature
    verdicts = typed_data.node_verify(items)
    for verdict in verdicts[:-1]:
        assert verdict["ethers"]["valid"] is True and verdict["viem"]["valid"] is True, verdict
    assert verdicts[-1]["ethers"].get("valid") is not True and verdicts[-1]["viem"].get("valid") is not True


# --- EIP-7702 authorizations ---------------------------------------------------------------------------------------

SIGN_AUTHORIZATION = "/api/v1/wallet/sign-authorization"
DELEGATE = "0x5FbDB2315678afecb367f032d93F642f64180aa3"
SECP256K1_N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141


def authority(signed: dict[str, Any]) -> str:
    """eth-account's recovery, after checking the answer's hash against the EIP written out here."""
    tuple_hash = keccak(
        b"\x05" + rlp.encode([signed["chainId"], bytes.fromhex(signed["address"][2:]), signed["nonce"]])
    )
    assert "0x" + tuple_hash.hex() == signed["hash"]
    return eth_account_authority(signed)


@pytest.fixture
def chains(use_networks) -> None:
    use_networks([{"name": "local-a", "chainId": 31337, "rpcUrls": ["http://127.0.0.1:9"], "nativeSymbol": "ETH"}])


def test_an_authorization_is_signed_as_eip7702_verified_by_viem_and_listed(chains, wallet, party_calls):
    response = wallet.post(SIGN_AUTHORIZATION, {"network": "local-a", "contractAddress": DELEGATE.lower(), "nonce": 7})
    assert response.json_body["message"] == "sign authorization successfully"
    signed = data(response)
    assert set(signed) == {"chainId", "address", "nonce", "yParity", "r", "s", "hash"}
    assert (signed["chainId"], signed["address"], signed["nonce"]) == (31337, DELEGATE, 7)
    assert signed["yParity"] in (0, 1) and len(signed["r"]) == len(signed["s"]) == 66
    assert int(signed["s"], 16) <= SECP256K1_N // 2  # low s
    assert authority(signed) == wallet.address
    assert party_calls and set(party_calls) == {"cosigner"}
    by_chain_id = data(wallet.post(SIGN_AUTHORIZATION, {"chainId": "31337", "contractAddress": DELEGATE, "nonce": 8}))
    items = [{"signer": wallet.address, **{k: str(v) for k, v in s.items()}} for s in (signed, by_chain_id)]
    assert viem({"action": "verify", "items": items}) == [{"valid": True, "recovered": wallet.address}] * 2

    listed = data(wallet.get(SIGNATURES))["data"]
    assert listed[1] == {
        "kind": "authorization",
        "hash": signed["hash"],
        "primaryType": None,
        "chainId": "31337",
        "verifyingContract": None,
        "contractAddress": DELEGATE,
        "createdAt": listed[1]["createdAt"],
    }
    (record, _) = sorted(audit_records(wallet.wallet_id), key=lambda r: r["digest"] != signed["hash"][2:])
    assert (record["kind"], record["digest"], record["outcome"]) == ("authorization", signed["hash"][2:], "signed")


def test_an_authorization_for_any_chain_needs_its_nonce_and_a_policy(chains, wallet, party_calls):
    def refused(body: dict[str, Any], status: int, code: str) -> None:
        response = wallet.post(SIGN_AUTHORIZATION, body)
        assert (response.status_code, response.json_body["data"]["code"]) == (status, code), response.json_body

    refused({"chainId": "0", "contractAddress": DELEGATE}, 400, "NONCE_REQUIRED")
    refused({"chainId": "0", "network": "local-a", "contractAddress": DELEGATE, "nonce": 1}, 400, "NETWORK_MISMATCH")
    assert party_calls == []
    # No policy at all: an authorization valid on every chain is refused by the default, and nothing is signed.
    response = wallet.post(SIGN_AUTHORIZATION, {"chainId": "0", "contractAddress": DELEGATE, "nonce": 1})
    assert response.status_code == 403 and response.json_body["data"] == {"code": "POLICY_DENIED", "rule": "default"}
    assert data(wallet.get(SIGNATURES))["pagination"]["total"] == 0
    # A revocation for any chain is always allowed.
    revoked = data(wallet.post(SIGN_AUTHORIZATION, {"chainId": "0", "contractAddress": "0x" + "00" * 20, "nonce": 1}))
    assert revoked["chainId"] == 0 and authority(revoked) == wallet.address


@pytest.mark.parametrize(
    ("body", "code", "field"),
    [
        ({"network": "local-a", "contractAddress": "0x1234", "nonce": 0}, "INVALID_ADDRESS", "contractAddress"),
        ({"network": "local-a", "contractAddress": DELEGATE, "nonce": "1"}, "VALIDATION_ERROR", "nonce"),
        ({"network": "local-a", "contractAddress": DELEGATE, "nonce": 2**64}, "VALIDATION_ERROR", "nonce"),
        ({"network": "local-a", "contractAddress": DELEGATE, "nonce": -1}, "VALIDATION_ERROR", "nonce"),
        ({"network": "nowhere", "contractAddress": DELEGATE, "nonce": 0}, "UNKNOWN_NETWORK", "network"),
        ({"chainId": "5", "contractAddress": DELEGATE, "nonce": 0}, "UNKNOWN_NETWORK", "chainId"),
        ({"contractAddress": DELEGATE, "nonce": 0}, "NETWORK_REQUIRED", "network"),
        ({"network": "local-a", "nonce": 0}, "VALIDATION_ERROR", "contractAddress"),
        ({"network": "local-a", "contractAddress": DELEGATE, "extra": 1}, "VALIDATION_ERROR", "extra"),
    ],
)
def test_a_bad_authorization_body_is_400_naming_the_field(chains, wallet, party_calls, body, code, field):
    response = wallet.post(SIGN_AUTHORIZATION, body)
    assert (response.status_code, response.json_body["data"]["code"]) == (400, code), response.json_body
    assert response.json_body["data"]["errors"][0]["field"] == field
    assert party_calls == []


def test_the_authorization_example_is_a_real_signature():
    body = examples.example(SignAuthorizationRequest, request=True)
    answer = examples.example(AuthorizationSignature)
    assert (answer["address"], answer["nonce"]) == (body["contractAddress"], 0)
    assert authority(answer) == examples.example(MessageSignature)["address"]
