"""The delivery's declared table (webhooks/deliveries.py `DeliveryRecord.machine`), against moto: every allowed move
is written, every other raises before writing, and the worker's moves (claim, outcome, give up, retry) are
conditional on what they were built from."""

from __future__ import annotations

from typing import Any

import pytest

from chalicelib.platform import aws, clock, due
from chalicelib.platform.transitions import Move, UndeclaredMoveError, refused_moves, transition
from chalicelib.webhooks import deliveries, store
from chalicelib.webhooks.deliveries import DeliveryRecord

MACHINE = DeliveryRecord.machine


def delivery(status: str, **extra: Any) -> DeliveryRecord:
    fields: dict[str, Any] = {
        **deliveries.key("d-1"),
        "id": "d-1",
        "appId": "app-1",
        "eventId": "evt-1",
        "eventType": "webhook.test",
        "url": "https://hooks.example.com/x",
        "status": status,
        "attempts": 1,
        "createdAt": "2026-01-01T00:00:00.000Z",
        "log": [],
    }
    if status == "pending":
        fields.update(nextAttemptAt=clock.iso_now(), **due.due_in(0))
    return DeliveryRecord.model_validate({**fields, **extra})


def put(record: DeliveryRecord) -> None:
    aws.write(aws.put("as-left", store.TABLE, record.to_item(), None))


def stored() -> dict[str, Any]:
    item = deliveries.get("d-1")
    assert item is not None
    return item


def test_the_table_is_the_one_the_worker_moves_along() -> None:
    assert {(m.source, m.target) for m in MACHINE.moves} == {
        ("pending", "pending"),
        ("pending", "delivered"),
        ("pending", "failed"),
        ("failed", "pending"),
    }
    assert MACHINE.initial == {"pending"} and MACHINE.final == {"delivered"}
    assert MACHINE.name == "delivery" and MACHINE.table == store.TABLE and MACHINE.stamp is None


@pytest.mark.parametrize("move", MACHINE.moves, ids=lambda m: f"{m.source}->{m.target}")
def test_every_declared_move_is_written_and_an_ended_delivery_leaves_the_due_index(aws_env: None, move: Move) -> None:
    record = delivery(move.source)
    put(record)
    changes = {"dueAt": clock.iso_in(30), "duePk": due.DUE} if move.target == "pending" else {}
    aws.write(transition(record, move.target, lastError="x", **changes))
    item = stored()
    assert item["status"] == move.target and item["lastError"] == "x" and "updatedAt" not in item
    assert ("dueAt" in item) is (move.target == "pending")


@pytest.mark.parametrize("pair", refused_moves(MACHINE), ids=lambda p: f"{p[0]}->{p[1]}")
def test_every_undeclared_move_raises_before_writing(aws_env: None, pair: tuple[str, str]) -> None:
    source, target = pair
    record = delivery(source)
    put(record)
    before = stored()
    with pytest.raises(UndeclaredMoveError):
        transition(record, target)
    assert stored() == before


def test_a_claim_counts_the_attempt_and_holds_the_delivery_until_its_lease_lapses(aws_env: None) -> None:
    record = delivery("pending")
    put(record)
    first = deliveries.claim(record)
    assert first is not None
    take, claimed = first
    aws.write(take)
    item = stored()
    assert item["attempts"] == 2 and item["claimToken"] == claimed.claimToken
    assert item["dueAt"] == item["claimUntil"] == claimed.claimUntil  # the sweeper leaves it while it runs
    again = deliveries.claim(record)  # a second worker built its claim from the same read
    assert again is not None
    with pytest.raises(aws.ConditionFailedError):
        aws.write(again[0])
    held = DeliveryRecord.from_item(stored())
    assert deliveries.claim(held) is None and deliveries.give_up(held, "x") is None  # its lease holds it
    try:
        clock.travel(deliveries.CLAIM_S + 1)
        taken = deliveries.claim(held)  # the lease lapsed: another worker takes it over
        assert taken is not None
        aws.write(taken[0])
        with pytest.raises(aws.ConditionFailedError):  # the first worker's outcome is not recorded
            aws.write(deliveries.outcome(claimed, "delivered", deliveredAt=clock.iso_now()))
    finally:
        clock.reset()
    assert stored()["status"] == "pending" and stored()["attempts"] == 3


def test_an_outcome_releases_the_claim_and_the_due_index(aws_env: None) -> None:
    record = delivery("pending")
    put(record)
    claim = deliveries.claim(record)
    assert claim is not None
    aws.write(claim[0])
    aws.write(deliveries.outcome(claim[1], "delivered", remove=["nextAttemptAt"], deliveredAt=clock.iso_now()))
    item = stored()
    assert item["status"] == "delivered" and item["attempts"] == 2
    assert not {"claimToken", "claimUntil", "duePk", "dueAt", "nextAttemptAt"} & set(item)


def test_only_a_failed_delivery_is_retried(aws_env: None, monkeypatch: pytest.MonkeyPatch) -> None:
    queued: list[str] = []
    monkeypatch.setattr(deliveries, "enqueue", lambda d, delay_s=0: queued.append(d))
    pending = delivery("pending")
    put(pending)
    assert not deliveries.retry(pending, "https://hooks.example.com/new")
    failed = delivery("failed", lastError="HTTP 404")
    put(failed)
    stale = delivery("failed", lastError="HTTP 404")
    assert deliveries.retry(failed, "https://hooks.example.com/new") and queued == ["d-1"]
    item = stored()
    assert item["status"] == "pending" and item["attempts"] == 0 and item["url"] == "https://hooks.example.com/new"
    assert item["duePk"] == due.DUE and item["nextAttemptAt"] == item["dueAt"]
    assert not deliveries.retry(stale, "https://hooks.example.com/new")  # retried meanwhile: not failed any more
    assert queued == ["d-1"]
