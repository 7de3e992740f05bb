"""HD keys (a chain code from keygen with `hd`) and signing with their non-hardened child keys, with the real MPC
core, moto and in-process parties: a child key signs only in a full run, with the path the cosigner's policy
checks, only under a policy that `derives`; a key without a chain code refuses any path; an hd key never presigns
and is made only under a policy without presignatures."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

import dompet_mpc
import pytest

from chalicelib.evm import digests
from chalicelib.mpc import aux_pool, cosigner_checks, parties, presignatures, shares
from chalicelib.mpc import service as mpc
from chalicelib.platform import aws
from tests.support.mpc import (
    audit_records,
    isolated_policies,
    recovered_address,
    recovered_public_key,
    refill_messages,
    run_refill_function,
)

POLICY = "test-hd"
PAYLOAD = digests.personal_message(b"pay from a deposit address")
DIGEST = digests.digest_of(PAYLOAD)
PATH = (0, 7)

Register = Callable[[cosigner_checks.SigningPolicy], None]


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch) -> Register:
    return isolated_policies(monkeypatch)


class Seen:
    """What the test policy's hooks were given."""

    def __init__(self) -> None:
        self.keys: list[cosigner_checks.NewKey] = []
        self.requests: list[cosigner_checks.SigningRequest] = []


def _policy(seen: Seen, *, derives: bool = True, presigns: bool = False) -> cosigner_checks.SigningPolicy:
    def on_key(key: cosigner_checks.NewKey) -> list[aws.TxItem]:
        seen.keys.append(key)
        return []

    def check(request: cosigner_checks.SigningRequest) -> None:
        seen.requests.append(request)
        if request.context.get("allow") is not True:
            raise cosigner_checks.PolicyRefusedError("not allowed")

    return cosigner_checks.SigningPolicy(
        POLICY, on_key, {"personal_message": check}, presignatures=presigns, derives=derives
    )


def _new_key(aux_sets: Any, hd: bool) -> tuple[str, mpc.KeyMaterial]:
    aux_sets(1)
    wallet_id = secrets.token_hex(16)
    return wallet_id, mpc.generate_key(wallet_id, aux_pool.claim(wallet_id), cosigner_checks.KeyPolicy(name=POLICY), hd)


def _presignature_items(wallet_id: str) -> list[dict[str, Any]]:
    return [
        item
        for table in presignatures.TABLE.values()
        for item in aws.table(table).scan(ConsistentRead=True)["Items"]
        if wallet_id in str(item["pk"])
    ]


def test_an_hd_key_signs_in_full_with_the_child_key_its_policy_checks(aux_sets, registered, pool_settings):
    seen = Seen()
    registered(_policy(seen))
    wallet_id, material = _new_key(aux_sets, hd=True)
    assert material.chain_code is not None and len(material.chain_code) == 32
    assert len(material.public_key) == 33
    # The cosigner's policy was given the key's public facts, as its own share records them.
    (key,) = seen.keys
    assert (key.wallet_id, key.address) == (wallet_id, material.address)
    assert (key.public_key, key.chain_code) == (material.public_key, material.chain_code)
    child = mpc.derive_public_key(material.public_key, material.chain_code, PATH)
    assert child == dompet_mpc.derive_public_key(material.public_key, material.chain_code, list(PATH))

    signature = mpc.sign(wallet_id, material.address, PAYLOAD, "test", policy={"allow": True}, derivation=PATH)
    assert recovered_public_key(signature, DIGEST) == child
    assert recovered_address(signature, DIGEST) != material.address
    (request,) = seen.requests
    assert request.derivation == PATH and request.digest == DIGEST and request.address == material.address
    (record,) = audit_records(wallet_id)
    assert (record["outcome"], record["method"], record["derivation"]) == ("signed", "full", list(PATH))

    # Its master key signs too (the check sees no path), in full: the presignature pool stays empty.
    signature = mpc.sign(wallet_id, material.address, PAYLOAD, "test", policy={"allow": True})
    assert recovered_address(signature, DIGEST) == material.address
    assert seen.requests[-1].derivation is None
    messages = refill_messages()
    assert {"walletId": wallet_id} in messages  # the empty pool asked for a refill...
    for message in messages:
        assert run_refill_function(message) == {"batchItemFailures": []}
    assert mpc.refill_presignatures(wallet_id, lambda: 100.0, 1.0, target=2) == 0  # ...which makes nothing
    assert _presignature_items(wallet_id) == []

    # Neither party presigns for it: the cosigner's policy says no, and the core refuses share A.
    request_base = {"runId": "ab" * 16, "walletId": wallet_id, "peers": [0], "signers": [0, 1]}
    assert parties.cosigner({**request_base, "action": "presign"})["code"] == parties.PRESIGNATURES_OFF
    with pytest.raises(dompet_mpc.InvalidInputError, match="never presign"):
        dompet_mpc.presign_session(b"x", shares.load_share(wallet_id, shares.SIGNER), [0, 1])
    # A path comes only with a full signing run: an online step that names one is refused.
    partial = {
        **request_base,
        "action": "partial",
        "digest": DIGEST.hex(),
        "payload": PAYLOAD.model_dump(),
        "derivation": list(PATH),
    }
    assert parties.cosigner(partial)["code"] == "BAD_PARTY_REQUEST"
    assert len(seen.requests) == 2


def test_a_path_is_refused_for_a_key_whose_policy_does_not_derive(aux_sets, registered):
    seen = Seen()
    registered(_policy(seen, derives=False))
    wallet_id, material = _new_key(aux_sets, hd=True)
    with pytest.raises(mpc.MpcRunError) as refused:
        mpc.sign(wallet_id, material.address, PAYLOAD, "test", policy={"allow": True}, derivation=PATH)
    assert refused.value.code == mpc.POLICY_REFUSED
    assert seen.requests == []  # refused before its check
    assert [r["outcome"] for r in audit_records(wallet_id)] == ["failed"]


def test_a_key_without_a_chain_code_signs_for_no_path(aux_sets, registered):
    seen = Seen()
    registered(_policy(seen))
    wallet_id, material = _new_key(aux_sets, hd=False)
    assert material.chain_code is None and seen.keys[0].chain_code is None
    # Party A reads its own share before it asks anyone.
    with pytest.raises(ValueError, match="no chain code"):
        mpc.sign(wallet_id, material.address, PAYLOAD, "test", policy={"allow": True}, derivation=PATH)
    assert seen.requests == []
    assert [r["outcome"] for r in audit_records(wallet_id)] == ["failed"]
    # The cosigner, asked directly, finds no chain code in its own share B after its check: nothing is signed.
    request = {
        "action": "sign",
        "runId": "cd" * 16,
        "walletId": wallet_id,
        "peers": [0],
        "digest": DIGEST.hex(),
        "payload": PAYLOAD.model_dump(),
        "signers": [0, 1],
        "policy": {"allow": True},
        "derivation": list(PATH),
    }
    assert parties.cosigner(request)["code"] == "BAD_PARTY_REQUEST"
    assert [r.derivation for r in seen.requests] == [PATH]


def test_hardened_indices_and_malformed_paths_are_refused_before_any_run(aws_env):
    wallet_id = secrets.token_hex(16)
    for path in ((2**31,), (0, 2**32 - 1), (-1,), (True,), (0,) * 256):
        with pytest.raises(ValueError):
            mpc.sign(wallet_id, "0x" + "00" * 20, PAYLOAD, "test", policy={"allow": True}, derivation=path)
    assert audit_records(wallet_id) == []
    request = {
        "action": "sign",
        "runId": "ef" * 16,
        "walletId": wallet_id,
        "peers": [0],
        "digest": DIGEST.hex(),
        "payload": PAYLOAD.model_dump(),
        "signers": [0, 1],
        "policy": {},
    }
    for path in ([2**31], [True], ["1"], [0] * 256):
        assert parties.cosigner({**request, "derivation": path})["code"] == "BAD_PARTY_REQUEST", path
    assert parties.cosigner({**request, "action": "presign", "hd": True})["code"] == "BAD_PARTY_REQUEST"


def test_an_hd_key_is_made_only_under_a_policy_without_presignatures(aux_sets, registered):
    with pytest.raises(ValueError, match="never uses presignatures"):
        registered(_policy(Seen(), derives=True, presigns=True))
    registered(_policy(Seen(), derives=False, presigns=True))
    with pytest.raises(mpc.MpcRunError) as refused:
        _new_key(aux_sets, hd=True)
    assert refused.value.code == mpc.POLICY_REFUSED
    assert aws.table("cosigner-shares").scan()["Items"] == []
    assert aws.table(cosigner_checks.COSIGNER_POLICY_TABLE).scan()["Items"] == []


def test_derive_public_key_follows_bip32():
    # BIP32 test vector 2: m -> m/0 (public derivation of a non-hardened child).
    master = bytes.fromhex("03cbcaa9c98c877a26977d00825c956a238e8dddfbd322cce4f74b0b5bd6ace4a7")
    chain_code = bytes.fromhex("60499f801b896d83179a4374aeb7822aaeaceaa0db1f85ee3e904c4defbd9689")
    child = "02fc9e5af0ac8d9b3cecfe2a888e2117ba3d089d8585886c9c826b6b22a98d12ea"
    assert mpc.derive_public_key(master, chain_code, (0,)).hex() == child
    assert mpc.derive_public_key(master, chain_code, ()) == master
    for bad in ((master, chain_code, (2**31,)), (master, chain_code[:31], (0,)), (master[1:], chain_code, (0,))):
        with pytest.raises(ValueError):
            mpc.derive_public_key(*bad)
