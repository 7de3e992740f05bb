"""The cosigner hashes what it signs (evm/digests.py, mpc/parties.py), with the real MPC core, moto and the
in-process parties:

* a request whose digest is not the hash of the payload it carries, or that carries no payload, is refused by the
  cosigner and the user party, in full signing and in a presignature's online step (where the refusal leaves the
  cosigner's share ready);
* personal messages and EIP-712 typed data are signed, and the signatures recover (eth-account) to the wallet;
* messages use the presignature pool like sends, and sign in full when it is empty;
* every signature's audit record says what kind of thing was signed, its digest and, for typed data, the domain's
  chainId, verifyingContract and primaryType; never the message itself;
* an MPC wallet signs no bare digest: a transaction signer is shown the transaction;
* a compromised API function cannot get a signature outside the wallet's signing policy: it cannot write the
  cosigner's table (and what it writes elsewhere is not read), a document needs the app's policy key's signature
  and a higher version, and a request it makes to the cosigner directly is decided by the cosigner's own records,
  on the full path and in a presignature's online step (before the share is consumed).
"""

from __future__ import annotations

import base64
import json
from typing import Any

import dompet_mpc as mpc
import pytest
from eth_account import Account
from eth_account.messages import encode_defunct, encode_typed_data
from nacl.signing import SigningKey

from chalicelib.auth.models import WalletPrincipal
from chalicelib.evm import digests
from chalicelib.evm.digests import Signable
from chalicelib.evm.transactions import UnsignedTx, signing_hash
from chalicelib.mpc import aux_pool, parties, presignatures, shares
from chalicelib.mpc import service as mpc_service
from chalicelib.platform import aws, resources
from chalicelib.platform.cache import reset_all
from chalicelib.platform.errors import ApiError
from chalicelib.policies import signed
from chalicelib.policies import store as policy_store
from chalicelib.policies.cosigner_check import register_policy_key
from chalicelib.tenancy import service as tenancy
from chalicelib.wallets import provisioning
from chalicelib.wallets.sending import MpcWalletSigner
from tests.support.cosigner import no_full_signing
from tests.support.mpc import audit_records, principal_for, refill_messages, refreshed, run_refill_function
from tests.support.permit import PERMIT_TYPES

SECRET_TEXT = "sign in to example.org, nonce 8d1f2c"
VERIFYING_CONTRACT = "0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC"
PERMIT: dict[str, Any] = {
    "types": PERMIT_TYPES,
    "primaryType": "Permit",
    "domain": {"name": "Secret Token", "version": "1", "chainId": 31337, "verifyingContract": VERIFYING_CONTRACT},
    "message": {
        "owner": "0x1111111111111111111111111111111111111111",
        "spender": "0x2222222222222222222222222222222222222222",
        "value": "123456789",
        "nonce": 0,
        "deadline": 2**40,
    },
}


@pytest.fixture
def wallet(tenant: Any, aux_sets: Any) -> tuple[WalletPrincipal, str, str]:
    """A wallet with no presignatures (the pool is off): every signature runs in full. (principal, address,
    secret0)"""
    aux_sets(1)
    principal = principal_for(tenant, "alice")
    created = provisioning.create(principal, None)
    return refreshed(principal), created.address, created.secret0


@pytest.fixture
def stocked(tenant: Any, aux_sets: Any, pool_settings: None) -> tuple[WalletPrincipal, str]:
    """A wallet whose pool holds two presignatures."""
    aux_sets(1)
    principal = principal_for(tenant, "bob")
    created = provisioning.create(principal, None)
    principal = refreshed(principal)
    (message,) = refill_messages()
    assert run_refill_function(message) == {"batchItemFailures": []}
    assert len(presignatures.ready_ids(shares.COSIGNER, principal.user.walletId)) == 2
    return principal, created.address


def wire(signature: bytes) -> bytes:
    """r ‖ s ‖ v with v 27/28, as eth-account and ethers produce (the service's API form)."""
    return signature[:64] + bytes([27 + signature[64]])


def party_request(wallet_id: str, action: str, payload: Signable | None, digest: bytes, **extra: Any) -> dict[str, Any]:
    request: dict[str, Any] = {
        "action": action,
        "runId": "ab" * 16,
        "walletId": wallet_id,
        "peers": [0],
        "digest": digest.hex(),
        "signers": [0, 1],
        **extra,
    }
    if payload is not None:
        request["payload"] = payload.model_dump()
    return request


def lying_party_a(monkeypatch: pytest.MonkeyPatch, shown: Signable) -> None:
    """A compromised API function: it shows the parties `shown` but asks for the digest of something else."""
    real = digests.digest_of
    monkeypatch.setattr(mpc_service.payloads, "digest_of", lambda payload: real(digests.personal_message(b"pay me")))
    assert real(shown) != real(digests.personal_message(b"pay me"))


# --- the cosigner refuses a digest that is not the payload's -------------------------------------------------


def test_the_cosigner_and_the_user_party_refuse_a_digest_that_is_not_the_payloads(wallet, aux_sets):
    principal, _, _ = wallet
    wallet_id = principal.user.walletId
    shown = digests.personal_message(SECRET_TEXT.encode())
    other = digests.digest_of(digests.personal_message(b"pay me"))
    assert parties.cosigner(party_request(wallet_id, "sign", shown, other)) == {"ok": False, "code": "DIGEST_MISMATCH"}
    user = party_request(wallet_id, "sign", shown, other, signers=[0, 2], secret0="dompet-s0.x")
    assert parties.user_party(user) == {"ok": False, "code": "DIGEST_MISMATCH"}
    # A payload that hashes to nothing (malformed typed data) is no better.
    broken = digests.Signable(kind="typed_data", typedData={**PERMIT, "primaryType": "Nothing"})
    assert parties.cosigner(party_request(wallet_id, "sign", broken, other))["code"] == "BAD_PARTY_REQUEST"


def test_an_authorization_is_hashed_by_each_party_never_taken_as_a_bare_digest(wallet):
    principal, _, _ = wallet
    wallet_id = principal.user.walletId
    shown = digests.authorization(31337, "0x1234567890123456789012345678901234567890", 0)
    bare = digests.digest_of(digests.personal_message(b"pay me"))  # a digest presented as the authorization's
    assert parties.cosigner(party_request(wallet_id, "sign", shown, bare)) == {"ok": False, "code": "DIGEST_MISMATCH"}
    user = party_request(wallet_id, "sign", shown, bare, signers=[0, 2], secret0="dompet-s0.x")
    assert parties.user_party(user) == {"ok": False, "code": "DIGEST_MISMATCH"}
    # An authorization whose body is not one (a negative nonce) hashes to nothing.
    broken = Signable(kind="authorization", authorization={**(shown.authorization or {}), "nonce": -1})
    assert parties.cosigner(party_request(wallet_id, "sign", broken, bare))["code"] == "BAD_PARTY_REQUEST"


def test_a_request_without_a_payload_is_refused(wallet):
    principal, _, _ = wallet
    wallet_id = principal.user.walletId
    digest = digests.digest_of(digests.personal_message(b"anything"))
    for action in ("sign", "partial"):
        assert parties.cosigner(party_request(wallet_id, action, None, digest)) == {
            "ok": False,
            "code": "BAD_PARTY_REQUEST",
        }


def test_full_signing_with_a_lying_party_a_signs_nothing(wallet, monkeypatch):
    principal, _, _ = wallet
    shown = digests.personal_message(SECRET_TEXT.encode())
    lying_party_a(monkeypatch, shown)
    with pytest.raises(ApiError) as failed:
        provisioning.sign(principal, shown)
    assert (failed.value.status, failed.value.code) == (503, "SIGNER_UNAVAILABLE")
    assert [r["outcome"] for r in audit_records(principal.user.walletId)] == ["failed"]


def test_the_online_step_refuses_a_digest_that_is_not_the_payloads_and_burns_nothing(stocked, monkeypatch):
    principal, _ = stocked
    wallet_id = principal.user.walletId
    presignature_id = presignatures.ready_ids(shares.COSIGNER, wallet_id)[0]
    shown = digests.personal_message(SECRET_TEXT.encode())
    other = digests.digest_of(digests.personal_message(b"pay me"))
    request = party_request(wallet_id, "partial", shown, other, runId=presignature_id)
    assert parties.cosigner(request) == {"ok": False, "code": "DIGEST_MISMATCH"}
    assert parties.cosigner({k: v for k, v in request.items() if k != "payload"})["code"] == "BAD_PARTY_REQUEST"
    assert presignature_id in presignatures.ready_ids(shares.COSIGNER, wallet_id)  # still ready: nothing burned
    honest = parties.cosigner({**request, "digest": digests.digest_of(shown).hex()})
    assert honest["ok"] and presignature_id not in presignatures.ready_ids(shares.COSIGNER, wallet_id)

    # Through the service: the online step is refused, and so is the full signing that follows.
    lying_party_a(monkeypatch, shown)
    with pytest.raises(ApiError):
        provisioning.sign(principal, shown)
    outcomes = sorted((r["method"], r["outcome"]) for r in audit_records(wallet_id))
    assert outcomes == [("full", "failed"), ("presignature", "failed")]


# --- messages and typed data: signed, recovered, through the pool -------------------------------------------


def test_a_personal_message_and_typed_data_recover_to_the_wallet(wallet):
    principal, address, secret0 = wallet
    text = SECRET_TEXT.encode()
    message, typed = encode_defunct(primitive=text), encode_typed_data(full_message=PERMIT)
    for secret in (None, secret0):  # with the cosigner, then with the user party (share C): each hashes it itself
        signature = provisioning.sign(principal, digests.personal_message(text), secret)
        assert Account.recover_message(message, signature=wire(signature)) == address
        signature = provisioning.sign(principal, digests.typed_data(PERMIT), secret)
        assert Account.recover_message(typed, signature=wire(signature)) == address
    parties_used = sorted(r["parties"][1] for r in audit_records(principal.user.walletId))
    assert parties_used == ["cosigner", "cosigner", "user", "user"]


def test_messages_use_the_presignature_pool_and_sign_in_full_when_it_is_empty(stocked, monkeypatch):
    principal, address = stocked
    wallet_id = principal.user.walletId
    with monkeypatch.context() as patched:
        no_full_signing(patched)
        for payload, signable in (
            (digests.personal_message(b"first"), encode_defunct(primitive=b"first")),
            (digests.typed_data(PERMIT), encode_typed_data(full_message=PERMIT)),
        ):
            before = len(presignatures.ready_ids(shares.COSIGNER, wallet_id))
            signature = provisioning.sign(principal, payload)
            assert Account.recover_message(signable, signature=wire(signature)) == address
            assert len(presignatures.ready_ids(shares.COSIGNER, wallet_id)) == before - 1
    assert presignatures.ready_ids(shares.SIGNER, wallet_id) == []
    signature = provisioning.sign(principal, digests.personal_message(b"empty pool"))
    assert Account.recover_message(encode_defunct(primitive=b"empty pool"), signature=wire(signature)) == address
    methods = [r["method"] for r in sorted(audit_records(wallet_id), key=lambda r: r["sk"])]
    assert sorted(methods) == ["full", "presignature", "presignature"]


# --- audit ----------------------------------------------------------------------------------------------------


def test_audit_records_carry_the_kind_the_digest_and_the_typed_data_domain(wallet, caplog):
    caplog.set_level("DEBUG")
    principal, _, _ = wallet
    wallet_id = principal.user.walletId
    message = digests.personal_message(SECRET_TEXT.encode())
    document = digests.typed_data(PERMIT)
    provisioning.sign(principal, message)
    provisioning.sign(principal, document)
    tx = UnsignedTx(31337, 0, "0x" + "33" * 20, 1, b"", 21_000, max_fee=10**9, max_priority_fee=10**9)
    MpcWalletSigner(principal, provisioning.bound_wallet(principal), None).sign_transaction(tx)

    records = {r["kind"]: r for r in audit_records(wallet_id)}
    assert set(records) == {"personal_message", "typed_data", "transaction"}
    assert records["personal_message"]["digest"] == digests.digest_of(message).hex()
    assert records["transaction"]["digest"] == signing_hash(tx).hex()
    typed = records["typed_data"]
    assert typed["digest"] == digests.digest_of(document).hex()
    assert (typed["chainId"], typed["verifyingContract"], typed["primaryType"]) == (
        "31337",
        VERIFYING_CONTRACT,
        "Permit",
    )
    assert "chainId" not in records["personal_message"] and "primaryType" not in records["transaction"]
    # No message body in the audit or the logs.
    stored = json.dumps([dict(r) for r in records.values()], default=str)
    bodies = (SECRET_TEXT, SECRET_TEXT.encode().hex(), PERMIT["message"]["spender"][2:], PERMIT["domain"]["name"])
    for body in bodies:
        assert body not in stored and body not in caplog.text


# --- a compromised API function against the wallet's signing policy ---------------------------------------------


@pytest.fixture
def policy_key(tenant: Any, use_networks: Any) -> SigningKey:
    """The app's policy key (registered by the operator), with a registry of one network."""
    use_networks([{"name": "local-a", "chainId": 31337, "rpcUrls": ["http://127.0.0.1:9"], "nativeSymbol": "ETH"}])
    key = SigningKey.generate()
    register_policy_key(tenant.appId, base64.b64encode(bytes(key.verify_key)).decode(), tenant.clientId)
    return key


def set_policy(app_id: str, key: SigningKey, document: dict[str, Any]) -> dict[str, Any]:
    signature = base64.b64encode(key.sign(signed.policy_message(app_id, document)).signature).decode()
    return parties.cosigner({"action": "policy-set", "appId": app_id, "policy": document, "signature": signature})


def payment(value: int, nonce: int = 0) -> Signable:
    return digests.transaction(
        UnsignedTx(31337, nonce, "0x" + "44" * 20, value, b"", 21_000, max_fee=10**9, max_priority_fee=10**9)
    )


def test_the_api_function_cannot_write_the_cosigners_policies_and_its_own_copies_change_nothing(
    wallet, tenant, policy_key
):
    principal, _, _ = wallet
    wallet_id = principal.user.walletId
    assert set_policy(tenant.appId, policy_key, {"version": 1, "messages": {"personal": False}})["ok"]
    # The grant says so: only the cosigner's function may write (or read) the cosigner's table.
    writers = {
        f.name for f in resources.FUNCTIONS for g in f.grants if g.kind == "table" and g.name == "cosigner-policy"
    }
    assert writers == {"cosigner"}
    api_tables = {
        g.name
        for g in resources.function("api_handler").grants
        if g.kind == "table" and g.access in ("write", "read_write")
    }
    assert "cosigner-policy" not in api_tables and api_tables

    # It writes a looser document, its own policy key and another client for the wallet into every table it can.
    attacker = SigningKey.generate()
    looser = {"version": 99}
    items = [
        {
            **policy_store.client_policies_key(tenant.clientId),
            "rev": 99,
            "apps": {
                tenant.appId: {
                    "appId": tenant.appId,
                    "version": 99,
                    "document": signed.canonical(looser).decode(),
                    "signature": base64.b64encode(
                        attacker.sign(signed.policy_message(tenant.appId, looser)).signature
                    ).decode(),
                    "keyId": "pk_attacker",
                    "setAt": "2026-01-01T00:00:00.000Z",
                }
            },
        },
        {
            **policy_store.key_key(tenant.appId),
            "appId": tenant.appId,
            "clientId": tenant.clientId,
            "publicKey": base64.b64encode(bytes(attacker.verify_key)).decode(),
            "keyId": "pk_attacker",
            "sequence": 7,
            "registeredAt": "2026-01-01T00:00:00.000Z",
        },
        {**policy_store.wallet_client_key(wallet_id), "clientId": "a-client-without-policies"},
    ]
    for table in sorted(api_tables):
        for item in items:
            aws.table(table).put_item(Item=item)

    with pytest.raises(ApiError) as refused:
        provisioning.sign(principal, digests.personal_message(b"looser, says the API"))
    assert (refused.value.status, refused.value.code, refused.value.details["rule"]) == (
        403,
        "POLICY_DENIED",
        "messages.personal",
    )
    shown = parties.cosigner({"action": "policy-get", "appId": tenant.appId})
    assert (shown["version"], shown["policy"]) == (1, {"version": 1, "messages": {"personal": False}})
    assert [r["outcome"] for r in audit_records(wallet_id)] == ["denied"]


def test_a_forged_put_a_replayed_version_and_a_forged_rotation_are_refused(wallet, tenant, policy_key):
    strict, looser = {"version": 2, "default": "deny"}, {"version": 1, "default": "allow"}
    assert set_policy(tenant.appId, policy_key, looser)["ok"]
    assert set_policy(tenant.appId, policy_key, strict)["ok"]
    attacker = SigningKey.generate()
    assert set_policy(tenant.appId, attacker, {"version": 3})["code"] == "POLICY_SIGNATURE_INVALID"  # forged
    assert set_policy(tenant.appId, policy_key, looser)["code"] == "POLICY_VERSION_STALE"  # replayed
    new = base64.b64encode(bytes(attacker.verify_key)).decode()
    forged = base64.b64encode(attacker.sign(signed.rotation_message(tenant.appId, new, 2)).signature).decode()
    rotation = {"action": "policy-key-rotate", "appId": tenant.appId, "publicKey": new, "signature": forged}
    assert parties.cosigner(rotation)["code"] == "POLICY_SIGNATURE_INVALID"
    assert parties.cosigner({"action": "policy-get", "appId": tenant.appId})["version"] == 2

    principal, _, _ = wallet
    with pytest.raises(ApiError) as refused:
        provisioning.sign(principal, payment(1))
    assert (refused.value.code, refused.value.details["rule"]) == ("POLICY_DENIED", "default")


def test_a_direct_call_of_the_cosigner_outside_the_policy_signs_nothing_on_either_path(
    stocked, tenant, policy_key, aux_sets, monkeypatch
):
    principal, _ = stocked
    other_client = tenancy.create_tenant("Other").clientId
    wallet_id = principal.user.walletId
    assert set_policy(tenant.appId, policy_key, {"version": 1, "transactions": {"maxValue": {"native": "10"}}})["ok"]
    outside = payment(11)
    digest = digests.digest_of(outside)
    presignature_id = presignatures.ready_ids(shares.COSIGNER, wallet_id)[0]
    no_full_signing(monkeypatch)
    # Full signing, with any context the API function makes up, and a presignature's online step: refused before
    # any run or consumption.
    for context in (None, {"purpose": "withdrawal", "id": "x"}, {"allow": True}):
        extra = {} if context is None else {"policy": context}
        answer = parties.cosigner(party_request(wallet_id, "sign", outside, digest, **extra))
        assert (answer["code"], answer["rule"]) == ("POLICY_DENIED", "transactions.maxValue.native")
        answer = parties.cosigner(party_request(wallet_id, "partial", outside, digest, runId=presignature_id, **extra))
        assert (answer["code"], answer["rule"]) == ("POLICY_DENIED", "transactions.maxValue.native")
    assert presignature_id in presignatures.ready_ids(shares.COSIGNER, wallet_id)
    used = aws.table(presignatures.TABLE[shares.COSIGNER]).get_item(
        Key=presignatures.used_key(wallet_id, presignature_id), ConsistentRead=True
    )
    assert "Item" not in used
    # Nor can it mark the wallet again under another client: a new share B (a key it split itself) and its marks are
    # written only where none exist, all or nothing.
    aux_sets(1)
    cores = mpc.trusted_dealer_split(bytearray(b"\x07" * 32))
    again = {
        "action": "import",
        "runId": "cd" * 16,
        "walletId": wallet_id,
        "peers": [0],
        "auxId": aux_pool.claim(wallet_id),
        "coreShare": base64.b64encode(cores[shares.COSIGNER]).decode(),
        "keyPolicy": {"name": "wallets", "context": {"clientId": other_client}},
    }
    with pytest.raises(aws.TransactionCancelledError):
        parties.cosigner(again)
    reset_all()  # nothing known in process: the cosigner reads its own record again
    assert policy_store.wallet_client(wallet_id) == tenant.clientId
    assert audit_records(wallet_id) == []
