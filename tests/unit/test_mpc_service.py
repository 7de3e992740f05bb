"""The signing service and the custody guarantees, with the real MPC core, moto and in-process parties.

* sign() with A+B, and with A+C when the user's secret0 is given; a wrong secret is 401;
  every request leaves an audit record;
* the DynamoDB tables plus any single KMS key hold at most one key share per wallet (so
  they cannot sign), and no plaintext share appears in any stored item, S3 object or log line.
"""

from __future__ import annotations

import base64
import contextlib
import json
from collections import defaultdict
from typing import Any

import dompet_mpc as mpc
import pytest
from boto3.dynamodb.types import Binary

from chalicelib.auth import users
from chalicelib.auth.models import WalletPrincipal
from chalicelib.evm.digests import digest_of, personal_message
from chalicelib.mpc import aux_pool, shares
from chalicelib.platform import aws, resources
from chalicelib.platform.errors import ApiError
from chalicelib.platform.kms_envelope import Sealed
from chalicelib.wallets import provisioning
from chalicelib.wallets import store as wallet_store
from tests.support.mpc import audit_records, dump_tables, principal_for, recovered_address, refreshed


@pytest.fixture
def wallet(tenant: Any, aux_sets: Any) -> tuple[WalletPrincipal, Any]:
    aux_sets(1)
    principal = principal_for(tenant, "alice")
    created = provisioning.create(principal, None)
    return refreshed(principal), created


def test_signer_and_cosigner_sign_without_the_user(wallet):
    principal, created = wallet
    payload = personal_message(b"pay 1 wei")
    digest = digest_of(payload)
    signature = provisioning.sign(principal, payload)
    assert len(signature) == 65 and signature[64] in (0, 1)
    assert recovered_address(signature, digest) == created.address

    (record,) = audit_records(principal.user.walletId)
    assert record["digest"] == digest.hex() and record["outcome"] == "signed"
    assert record["parties"] == ["signer", "cosigner"]
    assert record["caller"] == f"client:{principal.client.clientId}/user:{principal.user.userId}"
    assert record["createdAt"].endswith("Z")


def test_user_secret_signs_with_share_c_instead_of_the_cosigner(wallet):
    principal, created = wallet
    # Without share B the cosigner cannot take part, so a signature proves share C signed.
    aws.table("cosigner-shares").delete_item(Key={"pk": f"WALLET#{principal.user.walletId}", "sk": "SHARE#1"})
    payload = personal_message(b"pay 2 wei")
    digest = digest_of(payload)
    signature = provisioning.sign(principal, payload, secret=created.secret0)
    assert recovered_address(signature, digest) == created.address
    assert [r["parties"] for r in audit_records(principal.user.walletId)] == [["signer", "user"]]

    # And with the cosigner unable to sign, a request without the secret fails cleanly, and is audited.
    with pytest.raises(ApiError) as failure:
        provisioning.sign(principal, payload)
    assert (failure.value.status, failure.value.code) == (503, "SIGNER_UNAVAILABLE")
    outcomes = sorted(r["outcome"] for r in audit_records(principal.user.walletId))
    assert outcomes == ["failed", "signed"]


@pytest.mark.parametrize("secret", ["nonsense", "dompet-s0.1.x", ""])
def test_a_secret_that_is_not_this_wallets_secret0_is_401(wallet, secret):
    principal, _ = wallet
    with pytest.raises(ApiError) as failure:
        provisioning.sign(principal, personal_message(b"x"), secret=secret)
    assert (failure.value.status, failure.value.code) == (401, "INVALID_SECRET")
    assert audit_records(principal.user.walletId) == []


def test_another_wallets_secret0_is_401(wallet, tenant, aux_sets):
    principal, _ = wallet
    aux_sets(1)
    other = provisioning.create(principal_for(tenant, "bob"), None)
    with pytest.raises(ApiError) as failure:
        provisioning.sign(principal, personal_message(b"x"), secret=other.secret0)
    assert failure.value.code == "INVALID_SECRET"


# --- custody: what the stored data and one KMS key give ---------------------------------------


def dump_bucket() -> list[bytes]:
    s3, bucket = aws.client("s3"), aws.bucket("recovery")
    keys = [o["Key"] for o in s3.list_objects_v2(Bucket=bucket).get("Contents", [])]
    return [s3.get_object(Bucket=bucket, Key=k)["Body"].read() for k in keys]


def sealed_values(dump: dict[str, list[dict[str, Any]]]) -> list[tuple[str, dict[str, Any], Sealed]]:
    """Every envelope-sealed value in the dump, with the item it belongs to."""
    found = []
    for table, items in dump.items():
        for item in items:
            candidates = [item] + [v for v in item.values() if isinstance(v, dict)]
            for value in candidates:
                if {"v", "key", "nonce", "ct"} <= set(value):
                    found.append((table, item, Sealed.from_item(value)))
    return found


def open_with_one_key(key_name: str, sealed: Sealed, context: dict[str, str]) -> bytes | None:
    """What an attacker holding only `key_name` (and the dump, so every context) can open."""
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    kms = aws.client("kms")
    key_id = kms.describe_key(KeyId=aws.key_alias(key_name))["KeyMetadata"]["KeyId"]
    try:
        response = kms.decrypt(CiphertextBlob=sealed.encrypted_key, EncryptionContext=context)
    except kms.exceptions.ClientError:
        return None
    if response["KeyId"].split("/")[-1] != key_id:
        return None  # that data key is under another KMS key
    aad = json.dumps(context, sort_keys=True, separators=(",", ":")).encode()
    return AESGCM(response["Plaintext"]).decrypt(sealed.nonce, sealed.ciphertext, aad)


def contexts_for(item: dict[str, Any]) -> list[dict[str, str]]:
    ids = {str(v) for v in item.values() if isinstance(v, str)} | {
        item["pk"].split("#", 1)[-1],
        item["sk"].split("#", 1)[-1],
    }
    return [
        context(i, party)
        for i in ids
        for party in (0, 1, 2)
        for context in (shares.share_context, aux_pool.aux_context)
    ]


def test_tables_plus_any_single_kms_key_cannot_sign(wallet, tenant, aux_sets):
    aux_sets(2)  # one spare set stays in the pool, as in production
    provisioning.import_key(principal_for(tenant, "bob"), "0x" + "11" * 32, None)
    dump = dump_tables()
    assert dump["wallets"] and dump["signer-shares"] and dump["cosigner-shares"] and dump["aux-pool"]

    for key in resources.KEYS:
        key_shares: dict[str, set[int]] = defaultdict(set)
        for _, item, sealed in sealed_values(dump):
            for context in contexts_for(item):
                plain = open_with_one_key(key.name, sealed, context)
                if plain is None:
                    continue
                info = mpc.share_info(plain) if context["purpose"] == "key-share" else None
                if info is not None:
                    assert info["kind"] == "key_share"
                    key_shares[info["address"]].add(info["party_index"])
        for address, parties in key_shares.items():
            assert len(parties) <= 1, f"KMS key {key.name} opens shares {parties} of {address}"
        assert key.name != "recovery" or not key_shares, "share C must never be stored"
        if key.name in ("share-a", "share-b"):  # the check sees the shares it is meant to see
            assert len(key_shares) == 2, key.name

    # secret0 (share C) is not stored anywhere: only its hash is.
    wallet_items = [i for i in dump["wallets"] if i["sk"] == "META" and "secret0Hash" in i]
    assert len(wallet_items) == 2
    flat = json.dumps(dump, default=repr)
    assert wallet[1].secret0 not in flat and wallet[1].secret0.split(".")[-1] not in flat


def _windows(blob: bytes, size: int = 32) -> set[bytes]:
    return {blob[i : i + size] for i in range(0, len(blob) - size + 1)}


def _stored_bytes(dump: dict[str, list[dict[str, Any]]], objects: list[bytes]) -> list[bytes]:
    blobs: list[bytes] = list(objects)

    def walk(value: Any) -> None:
        if isinstance(value, Binary):
            blobs.append(bytes(value))
        elif isinstance(value, bytes):
            blobs.append(value)
        elif isinstance(value, str):
            blobs.append(value.encode())
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, (list, set, tuple)):
            for v in value:
                walk(v)

    walk(dump)
    return blobs


def test_no_plaintext_share_in_any_stored_item_object_or_log(tenant, aux_sets, capsys, caplog):
    aux_sets(2)
    caplog.set_level("DEBUG")
    principal = principal_for(tenant, "alice")
    created = provisioning.create(principal, None)
    principal = refreshed(principal)
    provisioning.sign(principal, personal_message(b"one"))
    provisioning.sign(principal, personal_message(b"two"), secret=created.secret0)
    # An import (core shares travel in the party requests) and a failing signature run (error paths log).
    imported = provisioning.import_key(principal_for(tenant, "bob"), "0x" + "11" * 32, None)

    wallet_id = principal.user.walletId
    plaintext = [
        shares.load_share(wallet_id, shares.SIGNER),
        shares.load_share(wallet_id, shares.COSIGNER),
        shares.open_secret0(created.secret0)[1],
    ]
    bob = wallet_store.get(users.get(tenant.clientId, "bob").walletId)
    plaintext += [
        shares.load_share(bob.walletId, shares.SIGNER),
        shares.load_share(bob.walletId, shares.COSIGNER),
        shares.open_secret0(imported.secret0)[1],
    ]
    assert {mpc.share_info(p)["party_index"] for p in plaintext} == {0, 1, 2}
    aws.table("cosigner-shares").delete_item(Key={"pk": f"WALLET#{wallet_id}", "sk": "SHARE#1"})
    with pytest.raises(ApiError):
        provisioning.sign(principal, personal_message(b"three"))

    stored = _stored_bytes(dump_tables(), dump_bucket())
    out, err = capsys.readouterr()
    logs = (out + err + caplog.text).encode()
    haystacks = [*stored, logs]
    for share in plaintext:
        windows = _windows(share)
        encodings = [share.hex().encode(), base64.b64encode(share), base64.urlsafe_b64encode(share)]
        for blob in haystacks:
            assert not any(blob[i : i + 32] in windows for i in range(len(blob) - 31)), "share bytes stored/logged"
            assert not any(e[:64] in blob for e in encodings), "encoded share stored/logged"
    assert b"wallet provisioned" in logs and b"party function failed" in logs, "the capture must see the logs"


def test_wallet_record_and_binding(wallet):
    principal, created = wallet
    record = wallet_store.get(principal.user.walletId)
    assert record is not None
    assert record.address == created.address and record.origin == "created"
    assert record.subId == "alice" and record.secret0Hash == shares.secret0_hash(created.secret0)
    assert principal.user.walletAddress == created.address


def test_a_failing_audit_does_not_replace_the_signing_error(tenant, aux_sets, monkeypatch):
    """`_audit` ran in a `finally`: its own failure masked why the signing run failed."""
    from chalicelib.mpc import service as mpc_service

    aux_sets(1)
    principal = principal_for(tenant, "audit-mask")
    provisioning.create(principal, None)

    def no_share(*args, **kwargs):
        raise mpc_service.MpcRunError("SIGNER_UNAVAILABLE", "share missing")

    def broken_audit(*args, **kwargs):
        raise RuntimeError("audit table down")

    monkeypatch.setattr(mpc_service.shares, "load_share", no_share)
    monkeypatch.setattr(mpc_service, "_audit_item", broken_audit)
    with pytest.raises(ApiError) as failed:
        provisioning.sign(principal, personal_message(b"x"))
    assert failed.value.code != "INTERNAL_ERROR"  # the run's own error, mapped by the caller


def test_the_wait_estimate_counts_whole_turns_of_the_run_slots():
    from chalicelib.mpc.service import wait_estimate_s

    assert wait_estimate_s(0, 1, 3.0) == 3.0  # a free slot: one run
    assert wait_estimate_s(1, 1, 3.0) == 6.0  # one ahead on one slot
    assert wait_estimate_s(1, 2, 3.0) == 3.0  # one ahead, a slot free
    assert wait_estimate_s(2, 2, 3.0) == 6.0
    assert wait_estimate_s(5, 2, 2.5) == 7.5


def test_admission_refuses_only_a_full_run_that_cannot_fit(wallet, monkeypatch):
    from chalicelib.mpc import presignatures, service
    from chalicelib.platform.errors import RetryLaterError

    principal, _ = wallet
    wallet_id = principal.user.walletId
    monkeypatch.setattr(service, "_full_run_s", 3.0)
    assert service.admission_s(wallet_id, None) is None  # no budget: nothing to refuse for
    assert service.admission_s(wallet_id, 10.0) is None  # a free slot and time for a run
    with contextlib.ExitStack() as held:
        for _ in range(service.RUN_SLOTS):  # every slot busy
            held.enter_context(service._run_slot())
        needed = service.wait_estimate_s(service.RUN_SLOTS, service.RUN_SLOTS, 3.0)
        assert needed == 6.0  # the next full run waits a whole turn
        assert service.admission_s(wallet_id, needed) is None
        assert service.admission_s(wallet_id, 4.0) == pytest.approx(needed - 4.0)
        with pytest.raises(RetryLaterError) as busy:
            service.admit(wallet_id, 4.0)
        assert (busy.value.status, busy.value.code, busy.value.retry_after_s) == (503, "SIGNER_BUSY", 2)
        # A ready presignature signs in milliseconds: admitted, unless the signature cannot use it.
        monkeypatch.setattr(presignatures, "pools_on", lambda: True)
        monkeypatch.setattr(presignatures, "ready_hint", lambda _: 1)
        assert service.admission_s(wallet_id, 4.0) is None
        assert service.admission_s(wallet_id, 4.0, pooled=False) is not None
    assert service._queued == 0


def test_concurrent_requests_are_admitted_on_the_pool_only_as_far_as_it_goes(wallet, monkeypatch):
    """Sixteen sends at once must not all count on the same two presignatures: each admitted on the pool counts
    against its hint until its signature has tried to take one; the others are judged as the full runs they will
    be (here, with every run slot busy, a fast 503 SIGNER_BUSY)."""
    import threading

    from chalicelib.mpc import presignatures, service
    from chalicelib.platform.errors import RetryLaterError

    principal, _ = wallet
    wallet_id = principal.user.walletId
    monkeypatch.setattr(service, "_full_run_s", 3.0)
    monkeypatch.setattr(presignatures, "pools_on", lambda: True)
    monkeypatch.setattr(presignatures, "ready_hint", lambda _: 2)
    outcomes: dict[int, str] = {}
    go_on = threading.Event()

    def request(n: int, then_sign: bool) -> None:
        try:
            service.admit(wallet_id, 4.0)
        except RetryLaterError as refused:
            outcomes[n] = refused.code
            return
        outcomes[n] = "admitted"
        if then_sign:
            go_on.wait(10)
            service._presigned_admission_over()  # what sign() does once it tried to take one

    with contextlib.ExitStack() as held:
        for _ in range(service.RUN_SLOTS):  # every slot busy: a full run cannot fit in 4 s
            held.enter_context(service._run_slot())
        first = [threading.Thread(target=request, args=(n, True)) for n in range(2)]
        for thread in first:
            thread.start()
        while len(outcomes) < 2:
            threading.Event().wait(0.01)
        late = threading.Thread(target=request, args=(2, False))
        late.start()
        late.join(10)
        assert outcomes == {0: "admitted", 1: "admitted", 2: "SIGNER_BUSY"}
        assert service.admission_s(wallet_id, 4.0) is not None  # the pool is spoken for
        go_on.set()
        for thread in first:
            thread.join(10)
        again = threading.Thread(target=request, args=(3, False))
        again.start()
        again.join(10)
        assert outcomes[3] == "admitted"  # the first two have signed: the hint is the pool again
    service._admitted_presigned.clear()
