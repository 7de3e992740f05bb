"""Signing policies at the cosigner (policies/cosigner_check.py, store.py, usage.py; mpc/parties.py), with the real MPC
core, moto and the in-process parties:

* documents are stored only when the app's registered policy key signed them, with a version above the stored one;
  a key is replaced only by a rotation the current key signs, at the next sequence;
* a wallet's every signature is decided by the policies of all its client's apps (each must allow): a refusal is
  403 POLICY_DENIED naming the rule; on the presignature path it burns nothing (both shares stay ready), on the
  full path it signs nothing;
* 24 h windows per wallet count transactions and amounts per asset; the same digest counts once; concurrent
  signatures against a limit get exactly the limit;
* wallets are governed from their key generation or import: their client is the cosigner's own record.
"""

from __future__ import annotations

import base64
import secrets
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from boto3.dynamodb.conditions import Attr
from eth_account import Account
from nacl.signing import SigningKey

from chalicelib.auth.models import WalletPrincipal
from chalicelib.evm import abi, digests
from chalicelib.evm.digests import Signable
from chalicelib.evm.transactions import SignedAuthorization, UnsignedTx
from chalicelib.mpc import aux_pool, cosigner_checks, parties, presignatures, shares
from chalicelib.mpc import service as mpc
from chalicelib.platform import aws, clock
from chalicelib.platform.errors import ApiError
from chalicelib.policies import signed, store, usage
from chalicelib.policies.cosigner_check import WALLET_POLICY_NAME, register_policy_key
from chalicelib.tenancy import service as tenancy
from chalicelib.wallets import provisioning
from tests.support.cosigner import cosigner_decides, cosigner_policy_reads, no_full_signing
from tests.support.mpc import (
    audit_records,
    principal_for,
    recovered_address,
    refill_messages,
    refreshed,
    run_refill_function,
)
from tests.support.permit import PERMIT_TYPES

TOKEN = "0x" + "5f" * 20
FRIEND = "0x" + "11" * 20
STRANGER = "0x" + "22" * 20
CHAIN_ID = 31337


@pytest.fixture(autouse=True)
def networks(use_networks: Callable[[list[dict[str, Any]]], Any]) -> None:
    use_networks(
        [
            {"name": "local-a", "chainId": CHAIN_ID, "rpcUrls": ["http://127.0.0.1:9"], "nativeSymbol": "ETH"},
            {"name": "local-b", "chainId": 31338, "rpcUrls": ["http://127.0.0.1:9"], "nativeSymbol": "ETH"},
        ]
    )


@pytest.fixture
def policy_key(tenant: Any) -> SigningKey:
    """The app's policy key, registered by the operator."""
    key = SigningKey.generate()
    record = register_policy_key(tenant.appId, _public(key), tenant.clientId)
    assert record["sequence"] == 1 and record["clientId"] == tenant.clientId and not record["replaced"]
    return key


@pytest.fixture
def wallet(tenant: Any, aux_sets: Any) -> WalletPrincipal:
    """A wallet with no presignatures (the pool is off): every signature runs in full."""
    aux_sets(1)
    principal = principal_for(tenant, "alice")
    provisioning.create(principal, None)
    return refreshed(principal)


@pytest.fixture
def stocked(tenant: Any, aux_sets: Any, pool_settings: None) -> WalletPrincipal:
    """A wallet whose pool holds two presignatures."""
    aux_sets(1)
    principal = principal_for(tenant, "bob")
    provisioning.create(principal, None)
    principal = refreshed(principal)
    (message,) = refill_messages()
    assert run_refill_function(message) == {"batchItemFailures": []}
    assert len(presignatures.ready_ids(shares.COSIGNER, principal.user.walletId)) == 2
    return principal


def _public(key: SigningKey) -> str:
    return base64.b64encode(bytes(key.verify_key)).decode()


def _sign_document(key: SigningKey, document: Any, app_id: str) -> str:
    return base64.b64encode(key.sign(signed.policy_message(app_id, document)).signature).decode()


def set_policy(app_id: str, key: SigningKey, document: dict[str, Any], signature: str | None = None) -> dict[str, Any]:
    request = {"action": "policy-set", "appId": app_id, "policy": document}
    return parties.cosigner({**request, "signature": signature or _sign_document(key, document, app_id)})


def get_policy(app_id: str) -> dict[str, Any]:
    return parties.cosigner({"action": "policy-get", "appId": app_id})


def rotate(app_id: str, current: SigningKey, new: SigningKey, sequence: int) -> dict[str, Any]:
    message = signed.rotation_message(app_id, _public(new), sequence)
    signature = base64.b64encode(current.sign(message).signature).decode()
    return parties.cosigner(
        {"action": "policy-key-rotate", "appId": app_id, "publicKey": _public(new), "signature": signature}
    )


def tx(to: str, value: int = 0, data: bytes = b"", nonce: int = 0, chain_id: int = CHAIN_ID) -> Signable:
    return digests.transaction(
        UnsignedTx(chain_id, nonce, to, value, data, 100_000, max_fee=10**9, max_priority_fee=10**9)
    )


def token_transfer(to: str, amount: int, nonce: int = 0) -> Signable:
    return tx(TOKEN, 0, abi.transfer(to, amount), nonce)


def counted(wallet_id: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = aws.table(store.TABLE).scan(
        FilterExpression=Attr("pk").begins_with(f"COUNTED#{wallet_id}#"), ConsistentRead=True
    )["Items"]
    return items


def denied(call: Callable[[], Any]) -> ApiError:
    with pytest.raises(ApiError) as refused:
        call()
    assert (refused.value.status, refused.value.code) == (403, "POLICY_DENIED"), refused.value.message
    return refused.value


# --- documents and keys --------------------------------------------------------------------------------------


def test_a_document_is_stored_only_signed_by_the_apps_key_and_its_version_only_grows(tenant, policy_key):
    app_id = tenant.appId
    assert get_policy(app_id) == {
        "ok": True,
        "policy": None,
        "version": None,
        "keyId": signed.key_id(bytes(policy_key.verify_key)),
        "keySequence": 1,
        "keyRegistered": True,
    }
    first = {"version": 1, "transactions": {"maxValue": {"native": "100"}}}
    answer = set_policy(app_id, policy_key, first)
    assert answer["ok"] and answer["version"] == 1 and answer["keyId"] == signed.key_id(bytes(policy_key.verify_key))
    shown = get_policy(app_id)
    assert (shown["policy"], shown["version"], shown["keyRegistered"]) == (first, 1, True)
    stored = aws.table(store.TABLE).get_item(Key=store.client_policies_key(tenant.clientId))["Item"]
    assert stored["apps"][app_id]["document"] == signed.canonical(first).decode()  # exactly what was signed

    # The same version again, and an older one after a newer: stale (no replay of a looser document).
    assert set_policy(app_id, policy_key, first)["code"] == "POLICY_VERSION_STALE"
    assert set_policy(app_id, policy_key, {"version": 3, "default": "deny"})["ok"]
    stale = set_policy(app_id, policy_key, {"version": 2})
    assert (stale["code"], stale["currentVersion"]) == ("POLICY_VERSION_STALE", 3)

    # Another key's signature; the key's signature of another document; no base64; a document that does not
    # validate (signed); one too large.
    other = SigningKey.generate()
    looser = {"version": 9}
    assert set_policy(app_id, other, looser)["code"] == "POLICY_SIGNATURE_INVALID"
    assert set_policy(app_id, policy_key, looser, _sign_document(policy_key, {"version": 10}, app_id))["code"] == (
        "POLICY_SIGNATURE_INVALID"
    )
    assert set_policy(app_id, policy_key, looser, "not base64!")["code"] == "POLICY_SIGNATURE_INVALID"
    invalid = set_policy(app_id, policy_key, {"version": 9, "transactions": {"maxValue": {"native": "-1"}}})
    assert (invalid["code"], invalid["field"]) == ("INVALID_POLICY", "transactions.maxValue.native")
    huge = {"version": 9, "transactions": {"destinations": {"deny": ["0x" + f"{i:040x}" for i in range(2000)]}}}
    assert set_policy(app_id, policy_key, huge)["code"] == "POLICY_TOO_LARGE"
    assert get_policy(app_id)["version"] == 3

    # An app with no key registered: nothing stored, and GET says so.
    second, _ = tenancy.create_app(tenant.clientId, "second")
    assert set_policy(second.appId, policy_key, looser)["code"] == "NO_POLICY_KEY"
    assert get_policy(second.appId) == {
        "ok": True,
        "policy": None,
        "version": None,
        "keyId": None,
        "keySequence": None,
        "keyRegistered": False,
    }
    # The user party serves no action.
    assert parties.user_party({"action": "policy-get", "appId": app_id}) == {"ok": False, "code": "BAD_PARTY_REQUEST"}


def test_a_policy_key_is_replaced_only_by_a_rotation_the_current_key_signs(tenant, policy_key):
    app_id = tenant.appId
    new, newer = SigningKey.generate(), SigningKey.generate()
    assert rotate(app_id, new, newer, 2)["code"] == "POLICY_SIGNATURE_INVALID"  # not signed by the current key
    assert rotate(app_id, policy_key, new, 3)["code"] == "POLICY_SIGNATURE_INVALID"  # not the next sequence
    answer = rotate(app_id, policy_key, new, 2)
    assert answer == {"ok": True, "keyId": signed.key_id(bytes(new.verify_key)), "sequence": 2}
    assert rotate(app_id, policy_key, new, 2)["code"] == "POLICY_SIGNATURE_INVALID"  # replayed: its sequence is gone
    assert set_policy(app_id, policy_key, {"version": 1})["code"] == "POLICY_SIGNATURE_INVALID"  # the old key
    assert set_policy(app_id, new, {"version": 1})["ok"]
    assert get_policy(app_id)["keyId"] == signed.key_id(bytes(new.verify_key))
    bad = parties.cosigner({"action": "policy-key-rotate", "appId": app_id, "publicKey": "AAAA", "signature": "AAAA"})
    assert bad["code"] == "INVALID_POLICY_KEY"
    # The operator replaces the key: the sequence continues, so no rotation signed before can be replayed.
    assert register_policy_key(app_id, _public(newer))["sequence"] == 3
    assert rotate(app_id, new, policy_key, 3)["code"] == "POLICY_SIGNATURE_INVALID"
    assert rotate(app_id, newer, policy_key, 4)["ok"]


# --- enforcement on both paths -----------------------------------------------------------------------------------


def test_a_denial_on_the_presignature_path_burns_nothing(tenant, policy_key, stocked, monkeypatch):
    wallet_id = stocked.user.walletId
    assert set_policy(tenant.appId, policy_key, {"version": 1, "messages": {"personal": False}})["ok"]
    before = {party: presignatures.ready_ids(party, wallet_id) for party in (shares.SIGNER, shares.COSIGNER)}
    with monkeypatch.context() as patched:
        no_full_signing(patched)  # no fallback to full signing
        refusal = denied(lambda: provisioning.sign(stocked, digests.personal_message(b"hello")))
    assert refusal.details["rule"] == "messages.personal"
    after = {party: presignatures.ready_ids(party, wallet_id) for party in (shares.SIGNER, shares.COSIGNER)}
    assert {p: sorted(ids) for p, ids in after.items()} == {p: sorted(ids) for p, ids in before.items()}
    assert refill_messages() == []  # nothing burned, nothing to refill
    [record] = audit_records(wallet_id)
    assert (record["method"], record["outcome"]) == ("presignature", "denied")

    # What the policy allows signs with one of the same presignatures.
    payload = tx(FRIEND, 5)
    with monkeypatch.context() as patched:
        no_full_signing(patched)
        signature = provisioning.sign(stocked, payload)
    assert recovered_address(signature, digests.digest_of(payload)) == stocked.user.walletAddress
    assert len(presignatures.ready_ids(shares.COSIGNER, wallet_id)) == 1


def test_a_denial_on_the_full_path_signs_nothing(tenant, policy_key, wallet):
    wallet_id = wallet.user.walletId
    assert set_policy(tenant.appId, policy_key, {"version": 1, "transactions": {"maxValue": {"native": "100"}}})["ok"]
    refusal = denied(lambda: provisioning.sign(wallet, tx(FRIEND, 101)))
    assert refusal.details["rule"] == "transactions.maxValue.native"
    assert "101" in refusal.message
    [record] = audit_records(wallet_id)
    assert (record["method"], record["outcome"]) == ("full", "denied")

    payload = tx(FRIEND, 100)
    signature = provisioning.sign(wallet, payload)
    assert recovered_address(signature, digests.digest_of(payload)) == wallet.user.walletAddress
    # Counted though no 24 h rule is in force: a limit set later sees it. The refused one is not.
    assert [c["pk"].rsplit("#", 1)[1] for c in counted(wallet_id)] == [digests.digest_of(payload).hex()]


def test_the_users_secret0_still_signs_and_an_imported_key_is_governed(tenant, policy_key, aux_sets):
    aux_sets(1)
    principal = principal_for(tenant, "carol")
    private_key = "0x" + secrets.token_hex(32)
    created = provisioning.import_key(principal, private_key, None)
    principal = refreshed(principal)
    wallet_id = principal.user.walletId
    assert created.address == Account.from_key(private_key).address
    mark = aws.table(store.TABLE).get_item(Key=store.wallet_client_key(wallet_id))["Item"]
    assert mark["clientId"] == tenant.clientId
    assert cosigner_checks.governance(wallet_id) == cosigner_checks.Governance(WALLET_POLICY_NAME, created.address)

    assert set_policy(tenant.appId, policy_key, {"version": 1, "messages": {"personal": False}})["ok"]
    denied(lambda: provisioning.sign(principal, digests.personal_message(b"with the cosigner")))
    # Share C is the user's own (sealed as any wallet's): A + C signs, after a recovery too.
    recovered = provisioning.recover(principal, created.secret0, None)
    payload = digests.typed_data(
        {
            "types": {
                "EIP712Domain": [{"name": "chainId", "type": "uint256"}],
                "Note": [{"name": "n", "type": "uint256"}],
            },
            "primaryType": "Note",
            "domain": {"chainId": CHAIN_ID},
            "message": {"n": 1},
        }
    )
    signature = provisioning.sign(principal, payload, recovered.secret0)
    assert recovered_address(signature, digests.digest_of(payload)) == created.address


def test_a_wallet_key_for_a_client_tenancy_does_not_have_is_never_made(aux_sets, tenant):
    aux_sets(1)
    wallet_id = secrets.token_hex(16)
    key_policy = cosigner_checks.KeyPolicy(name=WALLET_POLICY_NAME, context={"clientId": "not-a-client"})
    with pytest.raises(mpc.MpcRunError) as refused:
        mpc.generate_key(wallet_id, aux_pool.claim(wallet_id), key_policy)
    assert refused.value.code == mpc.POLICY_REFUSED
    assert aws.table("cosigner-shares").scan()["Items"] == []
    assert aws.table(store.TABLE).scan()["Items"] == []


# --- 24 h windows --------------------------------------------------------------------------------------------


def test_the_24h_count_counts_each_digest_once_and_rolls(tenant, policy_key, wallet):
    wallet_id = wallet.user.walletId
    document = {"version": 1, "transactions": {"maxCountPer24h": 3}}
    assert set_policy(tenant.appId, policy_key, document)["ok"]
    sends = [tx(FRIEND, 1, nonce=n) for n in range(4)]
    assert [cosigner_decides(wallet_id, s) for s in sends[:3]] == [None, None, None]
    assert cosigner_decides(wallet_id, sends[0]) is None  # the same transaction again: counted once
    assert cosigner_decides(wallet_id, sends[3]) == "transactions.maxCountPer24h"
    assert cosigner_decides(wallet_id, digests.personal_message(b"not a transaction")) is None
    assert len(counted(wallet_id)) == 3
    window = usage.window_of(aws.table(store.TABLE).get_item(Key=usage.usage_key(wallet_id))["Item"])
    assert sum(b.n for b in window.buckets.values()) == 3

    # A bucket counts while any of it is inside the last 24 h, then the window has room again.
    clock.travel(usage.WINDOW_S)
    assert cosigner_decides(wallet_id, sends[3]) == "transactions.maxCountPer24h"
    clock.travel(usage.BUCKET_S)
    assert cosigner_decides(wallet_id, sends[3]) is None
    window = usage.window_of(aws.table(store.TABLE).get_item(Key=usage.usage_key(wallet_id))["Item"])
    assert sum(b.n for b in window.buckets.values()) == 1  # old buckets dropped on write

    # Through the service: a transaction the window allows is signed and counted.
    payload = tx(FRIEND, 1, nonce=9)
    signature = provisioning.sign(wallet, payload)
    assert recovered_address(signature, digests.digest_of(payload)) == wallet.user.walletAddress
    assert len(counted(wallet_id)) == 5


def test_the_24h_value_is_per_asset(tenant, policy_key, wallet):
    wallet_id = wallet.user.walletId
    limits = {"native": "1000", TOKEN: "50"}
    assert set_policy(tenant.appId, policy_key, {"version": 1, "transactions": {"maxValuePer24h": limits}})["ok"]
    assert cosigner_decides(wallet_id, tx(FRIEND, 600, nonce=0)) is None
    assert cosigner_decides(wallet_id, tx(FRIEND, 401, nonce=1)) == "transactions.maxValuePer24h.native"
    assert cosigner_decides(wallet_id, token_transfer(FRIEND, 30, nonce=1)) is None
    assert cosigner_decides(wallet_id, token_transfer(FRIEND, 21, nonce=2)) == f"transactions.maxValuePer24h.{TOKEN}"
    assert cosigner_decides(wallet_id, token_transfer(FRIEND, 20, nonce=2)) is None
    assert cosigner_decides(wallet_id, tx(FRIEND, 400, nonce=3)) is None  # exactly the limit
    assert cosigner_decides(wallet_id, tx(FRIEND, 600, nonce=0)) is None  # the first again: counted once
    assert cosigner_decides(wallet_id, tx(FRIEND, 1, nonce=4)) == "transactions.maxValuePer24h.native"
    spent = usage.usage(
        usage.window_of(aws.table(store.TABLE).get_item(Key=usage.usage_key(wallet_id))["Item"]), clock.epoch()
    )
    assert (dict(spent.spent), spent.count) == ({"native": 1000, TOKEN: 50}, 4)


def test_ten_concurrent_signatures_against_a_limit_of_seven_sign_exactly_seven(tenant, policy_key, wallet):
    wallet_id = wallet.user.walletId
    assert set_policy(tenant.appId, policy_key, {"version": 1, "transactions": {"maxCountPer24h": 7}})["ok"]
    payloads = [tx(FRIEND, 1, nonce=n) for n in range(10)]
    results: dict[int, bytes | ApiError] = {}
    start = threading.Barrier(10)

    def sign(n: int) -> None:
        start.wait()
        try:
            results[n] = provisioning.sign(wallet, payloads[n])
        except ApiError as exc:
            results[n] = exc

    threads = [threading.Thread(target=sign, args=(n,)) for n in range(10)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    signed_ones = {n: r for n, r in results.items() if isinstance(r, bytes)}
    refused = [r for r in results.values() if isinstance(r, ApiError)]
    assert len(signed_ones) == 7 and len(refused) == 3
    for n, signature in signed_ones.items():
        assert recovered_address(signature, digests.digest_of(payloads[n])) == wallet.user.walletAddress
    assert all(
        (r.status, r.code, r.details["rule"]) == (403, "POLICY_DENIED", "transactions.maxCountPer24h") for r in refused
    )
    assert sorted(item["pk"] for item in counted(wallet_id)) == sorted(
        usage.counted_key(wallet_id, digests.digest_of(payloads[n]))["pk"] for n in signed_ones
    )


# --- several apps of one client ------------------------------------------------------------------------------


def test_every_app_of_the_wallets_client_must_allow(tenant, policy_key, wallet):
    wallet_id = wallet.user.walletId
    second, _ = tenancy.create_app(tenant.clientId, "treasury")
    second_key = SigningKey.generate()
    register_policy_key(second.appId, _public(second_key), tenant.clientId)
    assert set_policy(tenant.appId, policy_key, {"version": 1, "transactions": {"maxValue": {"native": "100"}}})["ok"]
    destinations = {"version": 1, "transactions": {"destinations": {"allow": [FRIEND]}}}
    assert set_policy(second.appId, second_key, destinations)["ok"]

    assert cosigner_decides(wallet_id, tx(FRIEND, 50)) is None
    assert cosigner_decides(wallet_id, tx(STRANGER, 50)) == "transactions.destinations.allow"
    assert cosigner_decides(wallet_id, tx(FRIEND, 150)) == "transactions.maxValue.native"
    # Each app's own policy, as its evaluate action reads it.
    evaluate = {"action": "policy-evaluate", "walletId": wallet_id, "payload": tx(STRANGER, 50).model_dump()}
    assert parties.cosigner({**evaluate, "appId": tenant.appId})["allowed"] is True
    assert parties.cosigner({**evaluate, "appId": second.appId})["rule"] == "transactions.destinations.allow"

    # Another client's policies do not reach this wallet.
    other = tenancy.create_tenant("Other")
    other_key = SigningKey.generate()
    register_policy_key(str(other.appId), _public(other_key), other.clientId)
    assert set_policy(str(other.appId), other_key, {"version": 1, "default": "deny"})["ok"]
    assert cosigner_decides(wallet_id, tx(FRIEND, 50)) is None
    assert parties.cosigner({**evaluate, "appId": other.appId}) == {"ok": False, "code": "WALLET_NOT_FOUND"}


def test_the_clients_documents_are_one_item_read_in_the_online_steps_one_batch(tenant, policy_key, stocked):
    """Apps of one client writing their documents at once each keep theirs; a warm online step of a personal message
    reads the policies with its mark and share in one batch, and makes no other read of the cosigner's table."""
    second, _ = tenancy.create_app(tenant.clientId, "treasury")
    second_key = SigningKey.generate()
    register_policy_key(second.appId, _public(second_key), tenant.clientId)
    answers: list[dict[str, Any]] = []
    writers = [
        threading.Thread(target=lambda a=app, k=key: answers.append(set_policy(a, k, {"version": 1})))
        for app, key in ((tenant.appId, policy_key), (second.appId, second_key))
    ]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join()
    assert all(answer["ok"] for answer in answers), answers
    assert [p.app_id for p in store.client_policies(tenant.clientId)] == sorted([tenant.appId, second.appId])
    assert set_policy(second.appId, second_key, {"version": 2, "messages": {"personal": False}})["ok"]

    provisioning.sign(stocked, tx(FRIEND, 1))  # warm: the wallet's client is known from here on
    with cosigner_policy_reads() as reads:
        refusal = denied(lambda: provisioning.sign(stocked, digests.personal_message(b"hi")))
    assert refusal.details["rule"] == "messages.personal"  # the second app's document, read in the batch
    assert reads == ["BatchGetItem"]


def test_evaluate_counts_nothing_and_reads_the_window(tenant, policy_key, wallet):
    wallet_id = wallet.user.walletId
    document = {"version": 1, "transactions": {"maxValuePer24h": {"native": "10"}}, "messages": {"personal": True}}
    assert set_policy(tenant.appId, policy_key, document)["ok"]
    assert cosigner_decides(wallet_id, tx(FRIEND, 8)) is None

    def evaluate(payload: Signable, wallet: str | None = wallet_id) -> dict[str, Any]:
        return parties.cosigner(
            {"action": "policy-evaluate", "appId": tenant.appId, "walletId": wallet, "payload": payload.model_dump()}
        )

    assert evaluate(tx(FRIEND, 3))["rule"] == "transactions.maxValuePer24h.native"
    assert evaluate(tx(FRIEND, 3), None)["allowed"] is True  # no wallet: no usage
    assert evaluate(digests.personal_message(b"hi")) == {
        "ok": True,
        "allowed": True,
        "rule": "messages.personal",
        "reason": evaluate(digests.personal_message(b"hi"))["reason"],
    }
    assert len(counted(wallet_id)) == 1
    broken = {"kind": "transaction", "transaction": {"chainId": "x"}}
    answer = parties.cosigner({"action": "policy-evaluate", "appId": tenant.appId, "walletId": None, "payload": broken})
    assert answer["code"] == "INVALID_PAYLOAD"


def test_no_policy_signs_as_before_and_every_transaction_counts(stocked, monkeypatch):
    wallet_id = stocked.user.walletId
    digests_signed = []
    for n in range(2):
        payload = tx(STRANGER, 10**18, nonce=n)
        with monkeypatch.context() as patched:
            no_full_signing(patched)  # through the presignature pool, as before
            signature = provisioning.sign(stocked, payload)
        assert recovered_address(signature, digests.digest_of(payload)) == stocked.user.walletAddress
        digests_signed.append(digests.digest_of(payload).hex())
    assert presignatures.ready_ids(shares.COSIGNER, wallet_id) == []
    # Counted all the same, so that a 24 h limit set later already sees them.
    assert sorted(c["pk"].rsplit("#", 1)[1] for c in counted(wallet_id)) == sorted(digests_signed)


@pytest.fixture(autouse=True)
def _no_leftover_travel() -> Iterator[None]:
    yield
    clock.reset()


# --- an allowance is spending ----------------------------------------------------------------------------------


def permit(value: int, nonce: int = 0, spender: str = FRIEND) -> Signable:
    """An EIP-2612 permit of TOKEN, as OpenZeppelin's ERC20Permit defines it."""
    return digests.typed_data(
        {
            "types": PERMIT_TYPES,
            "primaryType": "Permit",
            "domain": {"name": "Token", "version": "1", "chainId": CHAIN_ID, "verifyingContract": TOKEN},
            "message": {"owner": STRANGER, "spender": spender, "value": value, "nonce": nonce, "deadline": 2**40},
        }
    )


def window_of(wallet_id: str) -> tuple[dict[str, int], int]:
    spent = usage.usage(
        usage.window_of(aws.table(store.TABLE).get_item(Key=usage.usage_key(wallet_id))["Item"]), clock.epoch()
    )
    return dict(spent.spent), spent.count


def test_permits_and_approvals_count_in_the_24h_window_once_each(tenant, policy_key, wallet):
    """A permit listed in messages.typedData still faces the daily cap, and counts in it (once per digest) with the
    transactions; it is not a transaction for maxCountPer24h. An approve counts its amount too."""
    wallet_id = wallet.user.walletId
    document = {
        "version": 1,
        "transactions": {"maxValuePer24h": {TOKEN: "100"}, "maxCountPer24h": 1},
        "messages": {"typedData": [{"primaryType": "Permit"}]},
    }
    assert set_policy(tenant.appId, policy_key, document)["ok"]
    assert cosigner_decides(wallet_id, permit(101)) == f"transactions.maxValuePer24h.{TOKEN}"
    assert cosigner_decides(wallet_id, permit(60)) is None
    assert cosigner_decides(wallet_id, permit(60)) is None  # the same permit again: counted once
    assert window_of(wallet_id) == ({TOKEN: 60}, 0)
    assert cosigner_decides(wallet_id, permit(41, nonce=1)) == f"transactions.maxValuePer24h.{TOKEN}"
    approve = tx(TOKEN, 0, abi.encode_call("approve(address,uint256)", FRIEND, 41))
    assert cosigner_decides(wallet_id, approve) == f"transactions.maxValuePer24h.{TOKEN}"
    assert cosigner_decides(wallet_id, tx(TOKEN, 0, abi.encode_call("approve(address,uint256)", FRIEND, 40))) is None
    assert window_of(wallet_id) == ({TOKEN: 100}, 1)
    # A revoke moves nothing and passes the cap (the count of transactions is what stops it).
    revoke = tx(TOKEN, 0, abi.encode_call("decreaseAllowance(address,uint256)", FRIEND, 40), nonce=1)
    assert cosigner_decides(wallet_id, revoke) == "transactions.maxCountPer24h"
    assert len(counted(wallet_id)) == 2

    # evaluate reads the window for a permit as for a transaction, and counts nothing.
    def evaluate(payload: Signable) -> dict[str, Any]:
        request = {"action": "policy-evaluate", "appId": tenant.appId, "walletId": wallet_id}
        return parties.cosigner({**request, "payload": payload.model_dump()})

    assert evaluate(permit(1, nonce=2))["rule"] == f"transactions.maxValuePer24h.{TOKEN}"
    assert evaluate(permit(0, nonce=2))["allowed"] is True
    assert len(counted(wallet_id)) == 2


def test_a_permit_signed_in_the_online_step_is_counted_from_the_one_batch(tenant, policy_key, stocked, monkeypatch):
    wallet_id = stocked.user.walletId
    document = {"version": 1, "transactions": {"maxValuePer24h": {TOKEN: "10"}}}
    assert set_policy(tenant.appId, policy_key, document)["ok"]
    provisioning.sign(stocked, tx(FRIEND, 1))  # warm: the wallet's client is known from here on
    payload = permit(10)
    with cosigner_policy_reads() as reads, monkeypatch.context() as patched:
        no_full_signing(patched)
        signature = provisioning.sign(stocked, payload)
    assert recovered_address(signature, digests.digest_of(payload)) == stocked.user.walletAddress
    assert reads == ["BatchGetItem"]  # the window and the digest's mark came with the policies
    assert window_of(wallet_id) == ({"native": 1, TOKEN: 10}, 1)
    refusal = denied(lambda: provisioning.sign(stocked, permit(1, nonce=1)))
    assert refusal.details["rule"] == f"transactions.maxValuePer24h.{TOKEN}"


def test_typed_data_that_is_no_permit_needs_an_entry_under_a_daily_cap_and_counts_nothing(tenant, policy_key, wallet):
    """A USDC-style EIP-3009 transfer moves value the cosigner does not read: under a daily cap it is refused unless
    an entry names it (the default does not allow it), and allowed it counts in no window."""
    wallet_id = wallet.user.walletId
    fields = ["from", "to", "value", "validAfter", "validBefore"]
    authorization = digests.typed_data(
        {
            "types": {
                "TransferWithAuthorization": [
                    *({"name": name, "type": "address" if name in ("from", "to") else "uint256"} for name in fields),
                    {"name": "nonce", "type": "bytes32"},
                ]
            },
            "primaryType": "TransferWithAuthorization",
            "domain": {"name": "USD Coin", "version": "2", "chainId": CHAIN_ID, "verifyingContract": TOKEN},
            "message": {
                "from": STRANGER,
                "to": FRIEND,
                "value": 10**30,
                "validAfter": 0,
                "validBefore": 2**40,
                "nonce": "0x" + "00" * 32,
            },
        }
    )
    capped = {"version": 1, "default": "allow", "transactions": {"maxValuePer24h": {TOKEN: "100"}}}
    assert set_policy(tenant.appId, policy_key, capped)["ok"]
    assert cosigner_decides(wallet_id, authorization) == "messages.typedData"
    named = {"typedData": [{"verifyingContract": TOKEN, "primaryType": "TransferWithAuthorization"}]}
    assert set_policy(tenant.appId, policy_key, {**capped, "version": 2, "messages": named})["ok"]
    assert cosigner_decides(wallet_id, authorization) is None
    assert counted(wallet_id) == []


# --- EIP-7702 authorizations ---------------------------------------------------------------------------------------

DELEGATE = "0x" + "d7" * 20
ZERO = "0x" + "00" * 20


def test_authorizations_are_decided_by_the_cosigner_and_signed_by_the_wallet(tenant, policy_key, wallet):
    wallet_id, address = wallet.user.walletId, wallet.user.walletAddress

    def evaluate(payload: Signable) -> dict[str, Any]:
        return parties.cosigner(
            {"action": "policy-evaluate", "appId": tenant.appId, "walletId": wallet_id, "payload": payload.model_dump()}
        )

    # No policy: one for this chain signs, and its signature is the authority eth-account recovers.
    payload = digests.authorization(CHAIN_ID, DELEGATE, 0)
    signature = provisioning.sign(wallet, payload)
    assert recovered_address(signature, digests.digest_of(payload)) == address
    # One for any chain is refused by the default, even with no policy at all; a revocation never is.
    refusal = denied(lambda: provisioning.sign(wallet, digests.authorization(0, DELEGATE, 0)))
    assert refusal.details["rule"] == "default"
    assert evaluate(digests.authorization(0, DELEGATE, 0))["rule"] == "default"
    revoke = digests.authorization(0, ZERO, 1)
    assert recovered_address(provisioning.sign(wallet, revoke), digests.digest_of(revoke)) == address

    document = {"version": 1, "default": "deny", "authorizations": {"delegates": [DELEGATE], "anyChain": False}}
    assert set_policy(tenant.appId, policy_key, document)["ok"]
    refusal = denied(lambda: provisioning.sign(wallet, digests.authorization(CHAIN_ID, STRANGER, 0)))
    assert refusal.details["rule"] == "authorizations.delegates"
    refusal = denied(lambda: provisioning.sign(wallet, digests.authorization(0, DELEGATE, 0)))
    assert refusal.details["rule"] == "authorizations.anyChain"
    listed = digests.authorization(CHAIN_ID, DELEGATE, 1)
    assert recovered_address(provisioning.sign(wallet, listed), digests.digest_of(listed)) == address
    assert evaluate(digests.authorization(CHAIN_ID, STRANGER, 0))["allowed"] is False
    assert counted(wallet_id) == []  # an authorization moves nothing by itself: no 24 h window counts it


def _signed_by_wallet(wallet: WalletPrincipal, delegate: str, nonce: int) -> SignedAuthorization:
    signature = provisioning.sign(wallet, digests.authorization(CHAIN_ID, delegate, nonce))
    r, s = int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:64], "big")
    return SignedAuthorization(CHAIN_ID, delegate, nonce, signature[64], r, s)


def _set_code(to: str, authorizations: tuple[SignedAuthorization, ...], value: int = 0, nonce: int = 0) -> Signable:
    return digests.transaction(
        UnsignedTx(
            CHAIN_ID,
            nonce,
            to,
            value,
            b"",
            100_000,
            max_fee=10**9,
            max_priority_fee=10**9,
            authorization_list=authorizations,
        )
    )


def test_the_wallets_own_authorizations_in_a_set_code_transaction_are_decided_as_delegations(
    tenant, policy_key, wallet
):
    """However the wallet's own authorization was signed (before a policy, say), a transaction that carries it is a
    delegation of the wallet and the cosigner decides it as one; another account's authorization is that account's,
    and paying its gas is a transaction the documents decide. A set-code transaction to the wallet itself that moves
    nothing and carries only the wallet's own authorizations is decided by them alone (a destination allow list
    need not name the wallet), never as a no-op."""
    wallet_id, address = wallet.user.walletId, wallet.user.walletAddress
    own_stranger = _signed_by_wallet(wallet, STRANGER, 1)  # no policy yet: signed
    own_listed = _signed_by_wallet(wallet, DELEGATE, 1)
    other = Account.create()
    signed = other.sign_authorization({"chainId": CHAIN_ID, "address": STRANGER, "nonce": 0})
    others = SignedAuthorization(CHAIN_ID, STRANGER, 0, signed.y_parity, signed.r, signed.s)

    document = {
        "version": 1,
        "default": "deny",
        "authorizations": {"delegates": [DELEGATE], "anyChain": False},
        "transactions": {"destinations": {"allow": [FRIEND]}},
    }
    assert set_policy(tenant.appId, policy_key, document)["ok"]
    assert cosigner_decides(wallet_id, _set_code(address, (own_stranger,))) == "authorizations.delegates"
    assert cosigner_decides(wallet_id, _set_code(FRIEND, (own_stranger,), 1)) == "authorizations.delegates"
    # Another account's authorization is that account's, not the wallet's to decide: the wallet paying for it is a
    # transaction as any, decided by the documents (the allow list does not name the wallet), alone or beside its own.
    assert cosigner_decides(wallet_id, _set_code(address, (others,))) == "transactions.destinations.allow"
    assert cosigner_decides(wallet_id, _set_code(address, (own_listed, others))) == "transactions.destinations.allow"
    # Its own listed delegation, sent to itself: signed (the allow list need not name the wallet), and counted at
    # its nonce like any transaction.
    delegation = _set_code(address, (own_listed,))
    assert cosigner_decides(wallet_id, delegation) is None
    assert recovered_address(provisioning.sign(wallet, delegation), digests.digest_of(delegation)) == address
    assert len(counted(wallet_id)) == 1
    # The call still answers to the transaction rules: coin to a stranger is refused by the allow list.
    assert cosigner_decides(wallet_id, _set_code(STRANGER, (own_listed,), 5, 1)) == "transactions.destinations.allow"
    # A set-code self-send is never the no-op a cancel signs: at a nonce already signed, its authorizations decide.
    assert cosigner_decides(wallet_id, _set_code(address, (own_stranger,))) == "authorizations.delegates"
