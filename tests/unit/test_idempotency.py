"""Idempotency-Key reservations (the send routes' use is tested end to end in tests/integration/test_sends.py)."""

from __future__ import annotations

import pytest

from chalicelib.platform import aws, idempotency
from chalicelib.platform.errors import ApiError

FP = idempotency.request_hash("POST", "/api/v1/wallet/send-coin", b'{"amount": "1", "to": "0xabc"}')


def run(key, fingerprint=FP, result=("sent", 1)):
    with idempotency.guard(key, "client#user", fingerprint) as slot:
        if slot.replay is not None:
            return ("replayed", slot.replay.data)
        slot.complete(200, "ok", {"n": result[1]})
        return result


def test_first_request_runs_and_a_repeat_replays(aws_env):
    assert run("k1") == ("sent", 1)
    assert run("k1", result=("sent", 2)) == ("replayed", {"n": 1})


def test_json_bodies_compare_by_content():
    same = idempotency.request_hash("POST", "/p", b'{ "to": "0xabc",\n "amount": "1" }')
    assert same == idempotency.request_hash("POST", "/p", b'{"amount":"1","to":"0xabc"}')
    assert same != idempotency.request_hash("POST", "/p", b'{"amount":"2","to":"0xabc"}')
    assert same != idempotency.request_hash("POST", "/other", b'{"amount":"1","to":"0xabc"}')


def test_same_key_other_body_is_refused(aws_env):
    run("k2")
    other = idempotency.request_hash("POST", "/api/v1/wallet/send-coin", b'{"amount": "2", "to": "0xabc"}')
    with pytest.raises(ApiError) as refused:
        run("k2", fingerprint=other)
    assert (refused.value.status, refused.value.code) == (422, "IDEMPOTENCY_KEY_REUSED")


def test_in_progress_then_a_failure_releases_the_key(aws_env):
    with pytest.raises(RuntimeError), idempotency.guard("k3", "client#user", FP) as slot:
        assert slot.replay is None
        with pytest.raises(ApiError) as busy:
            run("k3")
        assert (busy.value.status, busy.value.code) == (409, "IDEMPOTENCY_IN_PROGRESS")
        raise RuntimeError("the send failed")
    assert run("k3") == ("sent", 1), "a failed request must not keep its key"


def test_keys_are_per_user_and_expire(aws_env):
    run("k4")
    with idempotency.guard("k4", "client#someone-else", FP) as slot:
        assert slot.replay is None
        slot.complete(200, "ok", {"n": 9})
    aws.table("idempotency").update_item(
        Key={"pk": "IDEM#client#user#k4", "sk": "KEY"},
        UpdateExpression="SET expiresAt = :past",
        ExpressionAttributeValues={":past": 1},
    )
    assert run("k4", result=("sent", 3)) == ("sent", 3)


@pytest.mark.parametrize("key", ["", "x" * 129, "has space", "ünïcode"])
def test_malformed_keys_are_400(aws_env, key):
    with pytest.raises(ApiError) as bad:
        run(key)
    assert (bad.value.status, bad.value.code) == (400, "INVALID_IDEMPOTENCY_KEY")


def test_no_key_no_reservation(aws_env):
    assert run(None) == ("sent", 1)
    assert aws.table("idempotency").scan()["Items"] == []


def _pin_effect(reference):
    item = idempotency.effect_item(reference)
    assert item is not None
    aws.transact([item])  # in a send this rides in the transaction that records the signed transaction


def test_a_lost_answer_after_an_effect_never_runs_the_request_again(aws_env, monkeypatch):
    """The old code swallowed the failed completion; the in-progress record expired and a retry sent again."""
    ran = []
    real_write = aws.write

    def failing_completion(item, return_new=False):
        if item.kind == "Update" and "state" in item.changes.set:
            raise RuntimeError("DynamoDB unavailable")
        return real_write(item, return_new)

    with idempotency.guard("k5", "client#user", FP) as slot:
        ran.append(1)
        _pin_effect({"txHash": "0xabc"})
        monkeypatch.setattr(aws, "write", failing_completion)
        slot.complete(200, "ok", {"n": 1})
    monkeypatch.setattr(aws, "write", real_write)
    from chalicelib.platform import clock

    clock.travel(idempotency.KEY_TTL_S + 3600)  # far past any lease
    try:
        with pytest.raises(ApiError) as unknown:
            run("k5")
    finally:
        clock.reset()
    assert (unknown.value.status, unknown.value.code) == (409, "IDEMPOTENCY_OUTCOME_UNKNOWN")
    assert unknown.value.details["effects"] == {"txHash": "0xabc"}  # the transaction record is findable
    assert ran == [1]


def test_a_request_that_fails_after_its_effect_keeps_its_key(aws_env):
    with pytest.raises(RuntimeError), idempotency.guard("k6", "client#user", FP):
        _pin_effect({"txHash": "0xdef"})
        raise RuntimeError("broadcast bookkeeping failed")
    with pytest.raises(ApiError) as again:
        run("k6")
    assert (again.value.code, again.value.details["effects"]) == ("IDEMPOTENCY_OUTCOME_UNKNOWN", {"txHash": "0xdef"})
    item = aws.table("idempotency").get_item(Key={"pk": "IDEM#client#user#k6", "sk": "KEY"})["Item"]
    assert item["effects"] == {"txHash": "0xdef"} and "expiresAt" not in item and item["state"] == "unknown"
    from chalicelib.platform import clock

    clock.travel(30 * 24 * 3600)
    try:
        with pytest.raises(ApiError) as much_later:
            run("k6")
    finally:
        clock.reset()
    assert much_later.value.code == "IDEMPOTENCY_OUTCOME_UNKNOWN"


def test_a_repeat_while_the_first_request_still_runs_after_its_effect_is_in_progress(aws_env):
    """The first request will still store its answer: the repeat must be told to retry, not to give up on it
    (the old code answered OUTCOME_UNKNOWN as soon as an effect was recorded)."""
    with idempotency.guard("k8", "client#user", FP) as slot:
        _pin_effect({"txHash": "0x88"})
        with pytest.raises(ApiError) as busy:
            run("k8")
        assert busy.value.code == "IDEMPOTENCY_IN_PROGRESS"
        slot.complete(200, "ok", {"n": 8})
    assert run("k8") == ("replayed", {"n": 8})


def test_a_first_request_that_died_after_its_effect_is_outcome_unknown_once_its_lease_lapsed(aws_env):
    from chalicelib.platform import clock

    held = idempotency.guard("k9", "client#user", FP)
    held.__enter__()  # the function is killed inside: no completion, no release
    _pin_effect({"txHash": "0x99"})
    clock.travel(idempotency.lease_s() + 1)
    try:
        with pytest.raises(ApiError) as unknown:
            run("k9")
    finally:
        clock.reset()
        idempotency._current.set(None)
        held.gen.close()
    assert (unknown.value.code, unknown.value.details["effects"]) == ("IDEMPOTENCY_OUTCOME_UNKNOWN", {"txHash": "0x99"})


def test_a_first_request_that_died_before_any_effect_can_be_retried_once_its_lease_lapsed(aws_env):
    from chalicelib.platform import clock

    held = idempotency.guard("k10", "client#user", FP)
    held.__enter__()  # the function is killed inside, before any effect
    idempotency._current.set(None)
    with pytest.raises(ApiError) as busy:
        run("k10")
    assert busy.value.code == "IDEMPOTENCY_IN_PROGRESS"
    clock.travel(idempotency.lease_s() + 1)
    try:
        assert run("k10") == ("sent", 1)
    finally:
        clock.reset()
        held.gen.close()  # what a new invocation would never do; here it only keeps the garbage collector quiet


def test_an_answer_that_cannot_be_stored_never_lets_the_request_run_again(aws_env, monkeypatch):
    """Even without an effect item (the key is pinned as "unknown" by the failed completion's fallback)."""
    from chalicelib.platform import clock

    real_write = aws.write

    def failing_completion(item, return_new=False):
        if item.kind == "Update" and item.changes.set.get("state") == "completed":
            raise RuntimeError("DynamoDB unavailable")
        return real_write(item, return_new)

    monkeypatch.setattr(idempotency.retry, "pause", lambda attempt, *a, **k: None)
    with idempotency.guard("k11", "client#user", FP) as slot:
        monkeypatch.setattr(aws, "write", failing_completion)
        slot.complete(200, "ok", {"n": 1})
    monkeypatch.setattr(aws, "write", real_write)
    clock.travel(idempotency.KEY_TTL_S * 2)
    try:
        with pytest.raises(ApiError) as unknown:
            run("k11")
    finally:
        clock.reset()
    assert unknown.value.code == "IDEMPOTENCY_OUTCOME_UNKNOWN"


def test_a_replay_reads_exactly_like_the_first_answer(aws_env):
    """DynamoDB numbers come back as Decimal: the old store wrote them as strings ("5"), the envelope as 5."""
    from decimal import Decimal

    from chalicelib.platform.envelope import dumps

    first = {"n": Decimal(5), "fee": Decimal("0.5")}
    with idempotency.guard("k12", "client#user", FP) as slot:
        slot.complete(200, "ok", first)
    with idempotency.guard("k12", "client#user", FP) as slot:
        assert slot.replay is not None and dumps(slot.replay.data) == dumps(first)


def test_the_lease_follows_the_requests_remaining_time(aws_env):
    from chalicelib.platform import clock, deadline

    with deadline.budget(10.0), idempotency.guard("k7", "client#user", FP):
        item = aws.table("idempotency").get_item(Key={"pk": "IDEM#client#user#k7", "sk": "KEY"})["Item"]
        lease = int(item["expiresAt"]) - clock.epoch()
    assert lease <= 10 + idempotency.LEASE_MARGIN_S + 2  # not a fixed 900 s


def test_no_effect_item_without_a_key(aws_env):
    assert idempotency.effect_item({"txHash": "0x1"}) is None
    with idempotency.guard(None, "client#user", FP):
        assert idempotency.effect_item({"txHash": "0x1"}) is None


def test_two_tenants_using_the_same_key_are_independent(aws_env):
    from chalicelib.tenancy import service as tenancy
    from chalicelib.tenancy.models import App

    apps = []
    for name in ("Acme", "Globex"):
        creds = tenancy.create_tenant(name)
        apps.append(App(appId=creds.appId, clientId=creds.clientId, organizationId="o", name=name, createdAt="t"))
    scopes = [idempotency.scope_of(app) for app in apps]
    assert scopes[0] != scopes[1]
    for n, scope in enumerate(scopes):
        with idempotency.guard("shared", scope, FP) as slot:
            assert slot.replay is None  # the other tenant's use of the key changes nothing here
            slot.complete(200, "ok", {"n": n})
    with idempotency.guard("shared", scopes[1], FP) as slot:
        assert slot.replay is not None and slot.replay.data == {"n": 1}


def test_an_unknown_principal_has_no_scope():
    with pytest.raises(TypeError):
        idempotency.scope_of(None)
    with pytest.raises(TypeError):
        idempotency.scope_of(object())


def test_an_effect_after_the_key_was_taken_over_records_nothing(aws_env):
    from chalicelib.platform import clock

    held = idempotency.guard("k13", "client#user", FP)
    held.__enter__()
    stale = idempotency.effect_item({"txHash": "0x13"})
    idempotency._current.set(None)
    clock.travel(idempotency.lease_s() + 1)  # the first request outlived its lease; a retry took the key
    try:
        with idempotency.guard("k13", "client#user", FP) as slot:
            assert slot.replay is None
            with pytest.raises(aws.TransactionCancelledError) as cancelled:
                aws.transact([stale])
            assert cancelled.value.condition_failed("idempotency")
            assert idempotency.lease_lost().code == "IDEMPOTENCY_IN_PROGRESS"
            slot.complete(200, "ok", {"n": 13})
    finally:
        clock.reset()
        held.gen.close()
    assert run("k13") == ("replayed", {"n": 13})
