"""Presignature pools (issue 12), with the real MPC core, moto and the in-process cosigner.

* a stocked wallet signs through the online step (its pool shrinks by one on both sides, no signing session runs);
  an empty pool signs in full and queues a refill;
* a presignature serves one digest only, on each party's own authority: a second digest, a replayed request,
  concurrent consumers and a crash after consumption all find nothing to sign with;
* concurrent sends of one wallet each take their own presignature;
* the stored tables plus any single KMS key never open both shares of one presignature, and no plaintext
  presignature share is stored or logged;
* a warm function's online step makes no KMS call.
"""

from __future__ import annotations

import base64
import json
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import dompet_mpc as mpc
import pytest
from eth_utils import keccak

from chalicelib.evm.digests import Signable, digest_of, personal_message
from chalicelib.mpc import parties, presignatures, shares
from chalicelib.mpc import service as mpc_service
from chalicelib.platform import aws, resources
from chalicelib.platform.kms_envelope import DataKey, open_with
from chalicelib.wallets import provisioning
from tests.support.cosigner import no_full_signing
from tests.support.mpc import (
    audit_records,
    dump_tables,
    partial_request,
    principal_for,
    recovered_address,
    refill_messages,
    refreshed,
    run_refill_function,
)


@pytest.fixture
def stocked(tenant, aux_sets, pool_settings):
    """A wallet whose pool holds two presignatures (party A's and party B's shares of each)."""
    aux_sets(1)
    principal = principal_for(tenant, "alice")
    created = provisioning.create(principal, None)
    principal = refreshed(principal)
    wallet_id = principal.user.walletId
    (message,) = refill_messages()
    assert message == {"walletId": wallet_id, "atLeast": 2}  # the first stock, within the ceiling (2)
    assert run_refill_function(message) == {"batchItemFailures": []}  # the Lambda handler, as SQS calls it
    assert len(ready(shares.SIGNER, wallet_id)) == 2
    return principal, created, wallet_id


def ready(party: int, wallet_id: str) -> list[str]:
    return presignatures.ready_ids(party, wallet_id)


def test_creation_queues_a_first_stock_and_the_refill_fills_both_parties(tenant, aux_sets, pool_settings):
    aux_sets(1)
    principal = principal_for(tenant, "new")
    provisioning.create(principal, None)
    wallet_id = refreshed(principal).user.walletId
    assert refill_messages() == [{"walletId": wallet_id, "atLeast": 2}]
    assert mpc_service.refill_presignatures(wallet_id, lambda: 100.0, 1.0, target=2) == 2
    assert mpc_service.refill_presignatures(wallet_id, lambda: 100.0, 1.0, target=2) == 0  # stocked: nothing to do
    ids = ready(shares.SIGNER, wallet_id)
    assert len(ids) == 2 and sorted(ids) == sorted(ready(shares.COSIGNER, wallet_id))  # one id, two shares each


def test_a_stocked_wallet_signs_through_the_online_step(stocked, monkeypatch):
    principal, created, wallet_id = stocked
    before = ready(shares.SIGNER, wallet_id)
    no_full_signing(monkeypatch)
    payload = personal_message(b"pay 1 wei")
    digest = digest_of(payload)
    signature = provisioning.sign(principal, payload)
    assert recovered_address(signature, digest) == created.address
    after = ready(shares.SIGNER, wallet_id)
    assert len(after) == len(before) - 1 and sorted(ready(shares.COSIGNER, wallet_id)) == sorted(after)
    (used,) = set(before) - set(after)
    (record,) = audit_records(wallet_id)
    assert record["method"] == "presignature" and record["presignatureId"] == used and record["outcome"] == "signed"
    for party in (shares.SIGNER, shares.COSIGNER):  # each party recorded the digest and dropped its share
        table = aws.table(presignatures.TABLE[party])
        record = table.get_item(Key=presignatures.used_key(wallet_id, used))["Item"]
        assert record["digest"] == digest.hex() and "ct" not in record
        assert "Item" not in table.get_item(Key=presignatures.ready_key(wallet_id, used))
    assert refill_messages() == [{"walletId": wallet_id}]  # below the floor (2) after use: refill queued
    provisioning.sign(principal, personal_message(b"pay 2 wei"))
    assert ready(shares.SIGNER, wallet_id) == []
    assert refill_messages() == [{"walletId": wallet_id}]  # below the floor: asked again, however lately


def test_an_empty_pool_signs_in_full_and_queues_a_refill(tenant, aux_sets, pool_settings):
    aux_sets(1)
    principal = principal_for(tenant, "empty")
    created = provisioning.create(principal, None)
    principal = refreshed(principal)
    refill_messages()  # the creation's own request
    payload = personal_message(b"full")
    digest = digest_of(payload)
    assert recovered_address(provisioning.sign(principal, payload), digest) == created.address
    (record,) = audit_records(principal.user.walletId)
    assert record["method"] == "full" and "presignatureId" not in record
    assert refill_messages() == [{"walletId": principal.user.walletId}]


def test_a_presignature_never_signs_a_second_digest(stocked):
    _principal, _created, wallet_id = stocked
    presignature_id = ready(shares.COSIGNER, wallet_id)[0]
    first = parties.cosigner(partial_request(wallet_id, presignature_id, b"one"))
    assert first["ok"] and len(base64.b64decode(first["partial"])) > 0
    # Another digest, and the very same request replayed: the share is gone, nothing is issued.
    for message in (b"two", b"one"):
        assert parties.cosigner(partial_request(wallet_id, presignature_id, message)) == {
            "ok": False,
            "code": "PRESIGNATURE_UNAVAILABLE",
        }
    # Party A enforces the same on its own.
    share = presignatures.consume(shares.SIGNER, wallet_id, presignature_id, keccak(b"one"))
    assert share is not None
    assert presignatures.consume(shares.SIGNER, wallet_id, presignature_id, keccak(b"two")) is None
    assert presignatures.consume(shares.SIGNER, wallet_id, presignature_id, keccak(b"one")) is None
    # The user party holds no presignatures and refuses to act for the cosigner.
    assert parties.user_party(partial_request(wallet_id, presignature_id, b"one"))["code"] == ("BAD_PARTY_REQUEST")


def test_concurrent_consumers_of_one_presignature_get_it_once(stocked):
    _, _, wallet_id = stocked
    presignature_id = ready(shares.COSIGNER, wallet_id)[0]
    start = threading.Barrier(6)

    def consume(n: int) -> bytes | None:
        start.wait()
        return presignatures.consume(shares.COSIGNER, wallet_id, presignature_id, keccak(bytes([n])))

    with ThreadPoolExecutor(6) as pool:
        got = list(pool.map(consume, range(6)))
    assert sum(share is not None for share in got) == 1
    item = aws.table("cosigner-presignatures").get_item(Key=presignatures.used_key(wallet_id, presignature_id))
    winner = next(n for n, share in enumerate(got) if share is not None)
    assert item["Item"]["digest"] == keccak(bytes([winner])).hex()  # the recorded digest is the winner's


def test_a_crash_after_consumption_loses_the_presignature_and_full_signing_follows(stocked, monkeypatch):
    _principal, created, wallet_id = stocked
    ids = ready(shares.SIGNER, wallet_id)

    def crash(*args, **kwargs):
        raise RuntimeError("the function died here")

    monkeypatch.setattr(mpc, "issue_partial_signature", crash)
    with pytest.raises(RuntimeError):  # party A consumed its share, then died before issuing
        lost_payload = personal_message(b"lost")
        mpc_service._sign_presigned(wallet_id, created.address, lost_payload, digest_of(lost_payload), "test")
    monkeypatch.undo()
    lost = (set(ids) - set(ready(shares.SIGNER, wallet_id))).pop()
    assert presignatures.consume(shares.SIGNER, wallet_id, lost, keccak(b"lost")) is None  # never again
    # The cosigner's half of a presignature whose A half is gone never signs with another digest either.
    parties.cosigner(partial_request(wallet_id, lost, b"lost"))
    assert not parties.cosigner(partial_request(wallet_id, lost, b"other"))["ok"]


def test_a_failed_online_step_burns_the_presignature_and_signs_in_full(stocked):
    principal, created, wallet_id = stocked
    # The cosigner lost its halves (say its store was restored from an old backup): the online step fails.
    for presignature_id in ready(shares.COSIGNER, wallet_id):
        presignatures.consume(shares.COSIGNER, wallet_id, presignature_id, keccak(b"elsewhere"))
    payload = personal_message(b"fallback")
    digest = digest_of(payload)
    signature = provisioning.sign(principal, payload)
    assert recovered_address(signature, digest) == created.address
    records = sorted(audit_records(wallet_id), key=lambda r: r["method"])
    assert [(r["method"], r["outcome"]) for r in records] == [("full", "signed"), ("presignature", "failed")]
    assert len(ready(shares.SIGNER, wallet_id)) == 1  # A's share of the failed one is burned, not returned


def test_concurrent_sends_of_one_wallet_each_take_their_own_presignature(stocked, monkeypatch):
    principal, created, wallet_id = stocked
    no_full_signing(monkeypatch)
    payloads = [personal_message(b"a"), personal_message(b"b")]
    start = threading.Barrier(2)

    def sign(payload: Signable) -> bytes:
        start.wait()
        return provisioning.sign(principal, payload)

    with ThreadPoolExecutor(2) as pool:
        signatures = list(pool.map(sign, payloads))
    recovered = [recovered_address(s, digest_of(p)) for s, p in zip(signatures, payloads, strict=True)]
    assert recovered == [created.address] * 2
    used = {r["presignatureId"] for r in audit_records(wallet_id)}
    assert len(used) == 2 and ready(shares.SIGNER, wallet_id) == []


def test_a_warm_online_step_makes_no_kms_call(stocked, monkeypatch):
    principal, created, wallet_id = stocked  # the refill left both data keys in this process's memory
    kms = aws.client("kms")
    for operation in ("decrypt", "generate_data_key", "encrypt"):
        monkeypatch.setattr(kms, operation, lambda **kw: (_ for _ in ()).throw(AssertionError("KMS called")))
    payload = personal_message(b"warm")
    digest = digest_of(payload)
    assert recovered_address(provisioning.sign(principal, payload), digest) == created.address
    assert audit_records(wallet_id)[0]["method"] == "presignature"


def test_a_cold_function_unwraps_the_data_key_once(stocked, monkeypatch):
    principal, _, wallet_id = stocked
    presignatures._data_keys.clear()  # a new instance of each function
    calls = []
    decrypt = aws.client("kms").decrypt
    monkeypatch.setattr(
        aws.client("kms"), "decrypt", lambda **kw: calls.append(kw["EncryptionContext"]) or decrypt(**kw)
    )
    provisioning.sign(principal, personal_message(b"cold 1"))
    provisioning.sign(principal, personal_message(b"cold 2"))
    assert sorted(c["party"] for c in calls) == ["0", "1"]  # once per party, not per signature
    assert all(c["purpose"] == "presignatures" and c["walletId"] == wallet_id for c in calls)


# --- custody: the stored presignature shares ----------------------------------------------------


def open_presignature_shares(key_name: str, dump: dict[str, list[dict[str, Any]]]) -> list[bytes]:
    """Every presignature share that an attacker holding the dump and only KMS key `key_name` can open."""
    kms = aws.client("kms")
    key_id = kms.describe_key(KeyId=aws.key_alias(key_name))["KeyMetadata"]["KeyId"]
    opened = []
    for table in ("signer-presignatures", "cosigner-presignatures"):
        items = dump[table]
        for data_key_item in (i for i in items if i["sk"] == presignatures.DATA_KEY_SK):
            wallet_id = data_key_item["pk"].split("#", 1)[1]
            for party in (0, 1, 2):
                context = presignatures.data_key_context(wallet_id, party)
                try:
                    answer = kms.decrypt(CiphertextBlob=bytes(data_key_item["key"]), EncryptionContext=context)
                except kms.exceptions.ClientError:
                    continue
                if answer["KeyId"].split("/")[-1] != key_id:
                    continue
                data_key = DataKey(answer["Plaintext"], b"")
                for item in items:
                    if item["pk"] == data_key_item["pk"] and "ct" in item:
                        presignature_id = item["sk"].removeprefix(presignatures.READY_PREFIX)
                        context = presignatures.presignature_context(wallet_id, party, presignature_id)
                        opened.append(open_with(data_key, bytes(item["nonce"]), bytes(item["ct"]), context))
    return opened


def test_tables_plus_any_single_kms_key_never_open_both_shares_of_a_presignature(stocked, capsys, caplog):
    _principal, _, _wallet_id = stocked
    dump = dump_tables()
    assert len([i for i in dump["signer-presignatures"] if "ct" in i]) == 2
    everything: list[bytes] = []
    for key in resources.KEYS:
        opened = open_presignature_shares(key.name, dump)
        by_presignature: dict[bytes, set[int]] = {}
        for share in opened:
            info = mpc.presignature_info(share)
            by_presignature.setdefault(info["presignature_id"], set()).add(info["party_index"])
        assert all(len(p) <= 1 for p in by_presignature.values()), f"{key.name} opens both shares"
        if key.name in ("share-a", "share-b"):  # the check sees what it is meant to see
            party = 0 if key.name == "share-a" else 1
            assert len(by_presignature) == 2 and all(p == {party} for p in by_presignature.values())
        everything += opened
    # No plaintext share in any stored item (or log line), in raw or encoded form.
    flat = json.dumps(dump, default=lambda v: bytes(v).hex() if isinstance(v, (bytes, bytearray)) else repr(v))
    out, err = capsys.readouterr()
    for share in everything:
        for text in (flat, out + err + caplog.text):
            assert share.hex()[:64] not in text and base64.b64encode(share).decode()[:40] not in text


def test_one_refill_per_wallet_at_a_time(tenant, aux_sets, pool_settings):
    aux_sets(1)
    principal = principal_for(tenant, "leased")
    provisioning.create(principal, None)
    wallet_id = refreshed(principal).user.walletId
    assert presignatures.lease_refill(wallet_id, 60)  # a refill of this wallet is running elsewhere
    assert mpc_service.refill_presignatures(wallet_id, lambda: 100.0, 1.0, target=2) == 0
    presignatures.release_refill(wallet_id)
    assert mpc_service.refill_presignatures(wallet_id, lambda: float("inf"), 1.0, target=1) == 1
    assert presignatures.lease_refill(wallet_id, 60)  # the finished refill let its lease go


def test_party_a_reads_a_few_candidates_and_a_candidate_taken_elsewhere_only_loses_its_transaction(
    stocked, monkeypatch
):
    principal, created, wallet_id = stocked
    assert mpc_service.refill_presignatures(wallet_id, lambda: 100.0, 1.0, target=6) == 4
    pool = sorted(ready(shares.SIGNER, wallet_id))  # party A reads its candidates in key order
    assert len(pool) == 6
    refill_messages()
    no_full_signing(monkeypatch)
    queries: list[dict[str, Any]] = []

    def seen(params: dict[str, Any], **_: Any) -> None:
        if str(params.get("TableName", "")).endswith("signer-presignatures"):
            queries.append(params)

    def sign(text: bytes) -> str:
        """The presignature that signed `text` (the signature checked)."""
        payload = personal_message(text)
        digest = digest_of(payload)
        assert recovered_address(provisioning.sign(principal, payload), digest) == created.address
        (record,) = [r for r in audit_records(wallet_id) if r["digest"] == digest.hex()]
        assert (record["method"], record["outcome"]) == ("presignature", "signed")
        return str(record["presignatureId"])

    events = aws.dynamodb_client().meta.events
    events.register("before-parameter-build.dynamodb.Query", seen)
    try:
        # The first step reads a few ready items, not the pool; the next one uses what it read, with no read.
        assert sign(b"one") == pool[0]
        assert len(queries) == 1 and queries[0]["Limit"] == presignatures.CANDIDATES_READ
        assert sign(b"two") == pool[1]
        assert len(queries) == 1
        assert refill_messages() == []  # the pool still holds its ceiling (2): no target wants more
        # Another instance takes the next two candidates: each only loses its transaction here, and the pool is
        # read again for the rest.
        for taken in pool[2:4]:
            assert presignatures.consume(shares.SIGNER, wallet_id, taken, keccak(taken.encode())) is not None
        assert sign(b"three") == pool[4]
        assert len(queries) == 2 and refill_messages() == [{"walletId": wallet_id}]  # one left: below the floor
        assert sign(b"four") == pool[5]  # a pool below its floor is read afresh
        assert len(queries) == 3 and refill_messages() == [{"walletId": wallet_id}]  # the last one: refill
    finally:
        events.unregister("before-parameter-build.dynamodb.Query", seen)
    # Each presignature served one digest on each side: the two taken elsewhere never reached the cosigner.
    assert sorted(ready(shares.COSIGNER, wallet_id)) == pool[2:4]
    assert ready(shares.SIGNER, wallet_id) == []


# --- pools that follow demand -------------------------------------------------------------------------------


@pytest.fixture
def demand_settings(monkeypatch):
    from chalicelib.platform import settings

    monkeypatch.setenv("DOMPET_PRESIGN_POOL_FLOOR", "1")
    monkeypatch.setenv("DOMPET_PRESIGN_POOL_CEILING", "5")
    monkeypatch.setenv("DOMPET_PRESIGN_DEMAND_WINDOW_S", "900")
    monkeypatch.setenv("DOMPET_PRESIGN_DEMAND_FACTOR", "1")
    settings.load_settings.cache_clear()
    yield
    settings.load_settings.cache_clear()


def _signed(wallet_id: str, count: int) -> None:
    """`count` signature runs of the wallet, audited now as the signing service audits them."""
    payload = personal_message(b"demand")
    for n in range(count):
        aws.write(
            mpc_service._audit_item(
                wallet_id, f"{n:032x}", payload, digest_of(payload), [0, 1], "test", "signed", 0.01, f"{n:032x}"
            )
        )


def test_a_pools_target_follows_its_wallets_recent_signatures_between_floor_and_ceiling(tenant, demand_settings):
    from chalicelib.platform import clock

    wallet_id, other = "a" * 32, "b" * 32
    assert presignatures.target(wallet_id) == 1  # no signatures lately: the floor
    _signed(wallet_id, 3)
    _signed(other, 2)
    assert presignatures.target(wallet_id) == 3 and presignatures.target(other) == 2  # each wallet its own demand
    _signed(wallet_id, 7)
    assert presignatures.target(wallet_id) == 5  # a burst beyond the ceiling
    clock.travel(901)
    try:
        assert presignatures.target(wallet_id) == 1  # the window passed: an idle wallet is refilled to its floor
        _signed(wallet_id, 2)
        assert presignatures.target(wallet_id) == 2
    finally:
        clock.reset()


def test_a_pools_target_is_its_demand_times_the_factor_within_the_ceiling(tenant, demand_settings, monkeypatch):
    from chalicelib.platform import settings

    monkeypatch.setenv("DOMPET_PRESIGN_DEMAND_FACTOR", "2")
    monkeypatch.setenv("DOMPET_PRESIGN_POOL_CEILING", "9")
    settings.load_settings.cache_clear()
    wallet_id = "d" * 32
    assert presignatures.target(wallet_id) == 1  # no demand: the floor, not twice it
    _signed(wallet_id, 3)
    assert presignatures.target(wallet_id) == 6  # a burst of 3 keeps 6 ready: the next one may be larger
    _signed(wallet_id, 2)
    assert presignatures.target(wallet_id) == 9  # 10 wanted: the ceiling bounds it


def test_a_new_wallet_is_stocked_with_its_first_stock_above_the_floor(tenant, aux_sets, demand_settings, monkeypatch):
    from chalicelib.platform import settings

    monkeypatch.setenv("DOMPET_PRESIGN_FIRST_STOCK", "4")
    settings.load_settings.cache_clear()
    aux_sets(1)
    principal = principal_for(tenant, "first-stock")
    provisioning.create(principal, None)
    wallet_id = refreshed(principal).user.walletId
    (message,) = refill_messages()
    assert message == {"walletId": wallet_id, "atLeast": 4}
    assert presignatures.target(wallet_id) == 1  # it has shown no demand: its floor is 1...
    assert run_refill_function(message) == {"batchItemFailures": []}
    assert len(ready(shares.SIGNER, wallet_id)) == 4  # ...and it holds 4 for its first sends all the same
    assert sorted(ready(shares.COSIGNER, wallet_id)) == sorted(ready(shares.SIGNER, wallet_id))
    # A message cannot ask beyond the first stock (the queue is not trusted with the pool's size).
    assert mpc_service.refill_presignatures(wallet_id, lambda: 100.0, 1.0, at_least=50) == 0


def test_the_refill_stocks_a_wallet_to_its_demand(stocked, demand_settings):
    _principal, _created, wallet_id = stocked
    assert mpc_service.refill_presignatures(wallet_id, lambda: 100.0, 1.0) == 0  # 2 ready: above the floor
    _signed(wallet_id, 4)
    assert mpc_service.refill_presignatures(wallet_id, lambda: 100.0, 1.0) == 2  # its 4 signatures lately
    assert len(ready(shares.SIGNER, wallet_id)) == 4 and sorted(ready(shares.COSIGNER, wallet_id)) == sorted(
        ready(shares.SIGNER, wallet_id)
    )


def test_a_used_presignature_asks_for_a_refill_below_the_ceiling_at_most_every_few_seconds(tenant, demand_settings):
    from chalicelib.platform import clock

    wallet_id = "c" * 32
    presignatures.after_use(wallet_id, 5)
    assert refill_messages() == []  # the pool holds the ceiling: no target wants more
    presignatures.after_use(wallet_id, 3)
    presignatures.after_use(wallet_id, 2)
    assert refill_messages() == [{"walletId": wallet_id}]  # a burst asks once
    presignatures.after_use(wallet_id, 0)
    assert refill_messages() == [{"walletId": wallet_id}]  # below the floor: always
    clock.travel(presignatures.REFILL_ASK_EVERY_S + 1)
    try:
        presignatures.after_use(wallet_id, 3)
        assert refill_messages() == [{"walletId": wallet_id}]
    finally:
        clock.reset()


def test_a_ready_presignature_expires_after_its_time_to_live(stocked, monkeypatch):
    from chalicelib.platform import clock, settings

    _principal, _created, wallet_id = stocked
    ttl = settings.load_settings().presign_ttl_s
    for party in (shares.SIGNER, shares.COSIGNER):
        for presignature_id in ready(party, wallet_id):
            item = aws.table(presignatures.TABLE[party]).get_item(
                Key=presignatures.ready_key(wallet_id, presignature_id)
            )
            assert abs(int(item["Item"]["expiresAt"]) - (clock.epoch() + ttl)) < 60
    clock.travel(ttl + 1)
    try:
        assert ready(shares.SIGNER, wallet_id) == []  # expired: offered to no online step, refilled instead
    finally:
        clock.reset()


def test_a_refill_that_was_asked_for_looks_again_once_after_the_asks_it_held_back(
    tenant, aux_sets, pool_settings, queues_on_the_clock
):
    from chalicelib.platform import clock

    aux_sets(1)
    principal = principal_for(tenant, "follow-up")
    provisioning.create(principal, None)
    wallet_id = refreshed(principal).user.walletId
    (message,) = refill_messages()
    started = clock.monotonic()
    assert run_refill_function(message) == {"batchItemFailures": []}
    assert refill_messages(follow_ups=True) == []  # delayed past the asks a burst may have held back
    while not (found := refill_messages(follow_ups=True)):
        assert clock.monotonic() - started < presignatures.REFILL_ASK_EVERY_S + 30
        clock.travel(0.5)
    assert found == [{"walletId": wallet_id, "followUp": True}]
    assert run_refill_function(found[0]) == {"batchItemFailures": []}  # stocked: nothing made, no further look
    clock.travel(presignatures.REFILL_ASK_EVERY_S + 2)
    assert refill_messages(follow_ups=True) == [] and refill_messages() == []


@pytest.fixture
def hourly_budget(monkeypatch):
    from chalicelib.platform import settings

    monkeypatch.setenv("DOMPET_PRESIGN_POOL_FLOOR", "1")
    monkeypatch.setenv("DOMPET_PRESIGN_POOL_CEILING", "5")
    monkeypatch.setenv("DOMPET_PRESIGN_CLIENT_HOURLY", "3")
    settings.load_settings.cache_clear()
    yield
    settings.load_settings.cache_clear()


def _new_wallet(tenant: Any, sub_id: str) -> str:
    principal = principal_for(tenant, sub_id)
    provisioning.create(principal, None)
    return refreshed(principal).user.walletId


def test_a_clients_wallets_share_the_cosigners_hourly_presignature_budget(tenant, aux_sets, hourly_budget, monkeypatch):
    from chalicelib.tenancy import service as tenancy

    aux_sets(3)
    first, second = _new_wallet(tenant, "first"), _new_wallet(tenant, "second")
    elsewhere = _new_wallet(tenancy.create_tenant("Other"), "third")
    refill_messages()  # the first-stock asks, run by hand below

    assert mpc_service.refill_presignatures(first, lambda: 100.0, 1.0, target=2) == 2
    # The client's third presignature of the hour, then the cosigner refuses: the refill stops without failing.
    assert mpc_service.refill_presignatures(second, lambda: 100.0, 1.0, target=2) == 1
    assert len(ready(shares.SIGNER, second)) == 1 and len(ready(shares.COSIGNER, second)) == 1
    assert run_refill_function({"walletId": second}) == {"batchItemFailures": []}  # as SQS calls it: no retry
    assert len(ready(shares.COSIGNER, second)) == 1
    # The cosigner keeps the count in its own table: a request straight to it (a compromised API) is refused too.
    refused = parties.cosigner(
        {"action": "presign", "runId": "ab" * 16, "walletId": second, "peers": [0], "signers": [0, 1]}
    )
    assert refused == {"ok": False, "code": parties.PRESIGN_BUDGET_SPENT, "reason": refused["reason"]}
    # Another client's wallets have their own budget; the client's sends still sign (in full runs).
    assert mpc_service.refill_presignatures(elsewhere, lambda: 100.0, 1.0, target=1) == 1
    # The next clock hour has room again.
    hour_later = presignatures.epoch() + 3600
    monkeypatch.setattr(presignatures, "epoch", lambda: hour_later)
    assert mpc_service.refill_presignatures(second, lambda: 100.0, 1.0, target=2) == 1
