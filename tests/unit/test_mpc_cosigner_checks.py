"""The cosigner's signing-policy registry (mpc/cosigner_checks.py), with the real MPC core and in-process parties: a key
governed by a policy is marked with its share B in one transaction, signs in full only what the registered policy
allows, never with a presignature or share C, and nothing is signed when its policy is not registered."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

import pytest
from eth_keys import keys as eth_keys

from chalicelib.evm import digests
from chalicelib.evm.transactions import UnsignedTx
from chalicelib.mpc import aux_pool, cosigner_checks, parties, shares
from chalicelib.mpc import service as mpc
from chalicelib.platform import aws

TEST_POLICY = "test-only"
PAYLOAD = digests.personal_message(b"what the test policy allows")
DIGEST = digests.digest_of(PAYLOAD)


def _policy(
    on_key: Callable[[cosigner_checks.NewKey], list[aws.TxItem]] | None = None,
) -> cosigner_checks.SigningPolicy:
    def record(key: cosigner_checks.NewKey) -> list[aws.TxItem]:
        item = {"pk": f"TESTKEY#{key.wallet_id}", "sk": "KEY", "note": str(key.context.get("note"))}
        return [aws.put("test-key", cosigner_checks.COSIGNER_POLICY_TABLE, item)]

    def allow(request: cosigner_checks.SigningRequest) -> None:
        if request.context.get("allow") is not True or request.digest != DIGEST:
            raise cosigner_checks.PolicyRefusedError("not allowed")

    return cosigner_checks.SigningPolicy(TEST_POLICY, on_key or record, {"personal_message": allow})


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch) -> Callable[[cosigner_checks.SigningPolicy], None]:
    """Registers a policy for the test only (the registry is the process's)."""
    monkeypatch.setattr(cosigner_checks, "POLICIES", cosigner_checks.POLICIES.copy())
    cosigner_checks._GOVERNED.clear()
    return cosigner_checks.register


def _new_key(aux_sets: Any, context: dict[str, Any] | None = None) -> tuple[str, mpc.KeyMaterial]:
    aux_sets(1)
    wallet_id = secrets.token_hex(16)
    aux_id = aux_pool.claim(wallet_id)
    key_policy = cosigner_checks.KeyPolicy(name=TEST_POLICY, context=context or {})
    return wallet_id, mpc.generate_key(wallet_id, aux_id, key_policy)


def _share_b(wallet_id: str) -> dict[str, Any] | None:
    key = {"pk": f"WALLET#{wallet_id}", "sk": f"SHARE#{shares.COSIGNER}"}
    item: dict[str, Any] | None = aws.table("cosigner-shares").get_item(Key=key).get("Item")
    return item


def _mark(wallet_id: str) -> dict[str, Any] | None:
    key = {"pk": f"GOVERNED#{wallet_id}", "sk": "GOVERNED"}
    item: dict[str, Any] | None = aws.table(cosigner_checks.COSIGNER_POLICY_TABLE).get_item(Key=key).get("Item")
    return item


def test_a_governed_key_signs_only_what_its_registered_policy_allows(aux_sets, registered):
    registered(_policy())
    wallet_id, material = _new_key(aux_sets, {"note": "scope"})
    assert _mark(wallet_id) == {
        "pk": f"GOVERNED#{wallet_id}",
        "sk": "GOVERNED",
        "policy": TEST_POLICY,
        "address": material.address,
    }
    record = aws.table(cosigner_checks.COSIGNER_POLICY_TABLE).get_item(Key={"pk": f"TESTKEY#{wallet_id}", "sk": "KEY"})[
        "Item"
    ]
    assert record["note"] == "scope" and _share_b(wallet_id) is not None

    signature = mpc.sign(wallet_id, material.address, PAYLOAD, "test", policy={"allow": True})
    recovered = eth_keys.Signature(signature).recover_public_key_from_msg_hash(DIGEST).to_checksum_address()
    assert recovered == material.address

    transaction = digests.transaction(UnsignedTx(1, 0, material.address, 0, b"", 21_000, gas_price=1))
    other_message = digests.personal_message(b"something else")
    # Not allowed; a kind of payload the policy has no check for; a digest its check refuses; no context.
    for payload, context in (
        (PAYLOAD, {"allow": False}),
        (transaction, {"allow": True}),
        (other_message, {"allow": True}),
        (PAYLOAD, None),
    ):
        with pytest.raises(mpc.MpcRunError) as refused:
            mpc.sign(wallet_id, material.address, payload, "test", policy=context)
        assert refused.value.code == mpc.POLICY_REFUSED, context
    request = {
        "runId": "ab" * 16,
        "walletId": wallet_id,
        "peers": [0],
        "digest": DIGEST.hex(),
        "payload": PAYLOAD.model_dump(),
        "signers": [0, 1],
    }
    assert parties.cosigner({**request, "action": "sign"})["code"] == "POLICY_REFUSED"  # no context
    for action in ("partial", "presign"):  # a policy without presignatures: party A signs in full, checked there
        answer = parties.cosigner({**request, "action": action})
        assert answer["code"] == parties.PRESIGNATURES_OFF, action
    user = {**request, "action": "sign", "signers": [0, 2], "secret0": material.secret0}
    assert parties.user_party(user)["code"] == "SECRET0_REJECTED"  # share C is sealed for recovery only

    cosigner_checks.POLICIES.unregister(TEST_POLICY)  # an entry point that forgot to register it: refused, never signed
    with pytest.raises(mpc.MpcRunError) as refused:
        mpc.sign(wallet_id, material.address, PAYLOAD, "test", policy={"allow": True})
    assert refused.value.code == mpc.POLICY_REFUSED


def test_a_key_under_an_unregistered_policy_is_never_made(aux_sets, registered):
    with pytest.raises(mpc.MpcRunError) as refused:
        _new_key(aux_sets)
    assert refused.value.code == mpc.POLICY_REFUSED
    assert aws.table("cosigner-shares").scan()["Items"] == []
    assert aws.table(cosigner_checks.COSIGNER_POLICY_TABLE).scan()["Items"] == []


def test_a_key_its_policy_refuses_leaves_no_share_and_no_mark(aux_sets, registered):
    def refuse(key: cosigner_checks.NewKey) -> list[aws.TxItem]:
        raise cosigner_checks.PolicyRefusedError("no such scope")

    registered(_policy(on_key=refuse))
    with pytest.raises(mpc.MpcRunError) as refused:
        _new_key(aux_sets)
    assert refused.value.code == mpc.POLICY_REFUSED
    assert aws.table("cosigner-shares").scan()["Items"] == []
    assert aws.table(cosigner_checks.COSIGNER_POLICY_TABLE).scan()["Items"] == []


def test_a_new_key_needs_a_policy_and_a_key_without_its_mark_signs_nothing(aux_sets, registered):
    aux_sets(1)
    wallet_id = secrets.token_hex(16)
    with pytest.raises(mpc.MpcRunError) as refused:  # a compromised API function cannot make an ungoverned key
        mpc.generate_key(wallet_id, aux_pool.claim(wallet_id))
    assert refused.value.code == mpc.POLICY_REFUSED
    assert _share_b(wallet_id) is None
    # A share B whose mark is gone (a fault: both are written in one transaction) signs nothing.
    registered(_policy())
    wallet_id, material = _new_key(aux_sets)
    aws.table(cosigner_checks.COSIGNER_POLICY_TABLE).delete_item(Key={"pk": f"GOVERNED#{wallet_id}", "sk": "GOVERNED"})
    cosigner_checks._GOVERNED.clear()
    assert _mark(wallet_id) is None and _share_b(wallet_id) is not None
    with pytest.raises(mpc.MpcRunError) as unmarked:
        mpc.sign(wallet_id, material.address, PAYLOAD, "test")
    assert unmarked.value.code == mpc.POLICY_REFUSED
