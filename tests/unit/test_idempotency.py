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
