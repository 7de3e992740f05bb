"""Follow-ups (platform/followups.py): delayed messages within SQS's cap, step tokens that drop a stale re-check,
and the due index through which a record whose follow-up was lost is handed back."""

from __future__ import annotations

import json

import pytest

from chalicelib.platform import aws, clock, followups

TABLE = "user-ops"  # any table with a `due` index
QUEUE = "userop-tracker"
OPEN = followups.Requeue(TABLE, "open", quiet_s=300)
KEY = {"pk": "RECORD#1", "sk": "R"}


def _messages() -> list[dict]:
    url = aws._queue_url(aws.queue(QUEUE))
    attributes = aws.client("sqs").get_queue_attributes(
        QueueUrl=url, AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesDelayed"]
    )["Attributes"]
    delayed = int(attributes["ApproximateNumberOfMessagesDelayed"])
    visible = aws.client("sqs").receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", [])
    return [{"delayed": delayed, **json.loads(m["Body"])} for m in visible] or [{"delayed": delayed}]


def _record(**values: object) -> dict:
    item = {**KEY, "status": "open", **values}
    aws.table(TABLE).put_item(Item=item)
    return item


def _stored() -> dict:
    item: dict = aws.table(TABLE).get_item(Key=KEY, ConsistentRead=True)["Item"]
    return item


def test_delays_are_whole_seconds_within_the_sqs_cap():
    assert followups.capped(5000) == followups.MAX_DELAY_S == 900
    assert followups.capped(-3) == 0 and followups.capped(2.9) == 2
    assert [followups.doubling(2, step) for step in (0, 1, 2, 9, 10, 60)] == [2, 4, 8, 900, 900, 900]
    assert followups.doubling(2, 5, cap_s=60) == 60
    assert [followups.stepped((2, 4, 900), step) for step in (0, 1, 2, 7)] == [2, 4, 900, 900]
    assert followups.stepped((2, 4000), 1) == 900


def test_a_follow_up_longer_than_sqs_allows_is_sent_at_the_cap(aws_env):
    follow_up = followups.FollowUp(QUEUE, step_field="step")
    follow_up.send({"id": "1", "step": 3}, 86_400)  # SQS refuses a DelaySeconds above 900
    assert _messages() == [{"delayed": 1}]
    follow_up.send({"id": "2", "step": 0})
    assert _messages() == [{"delayed": 1, "id": "2", "step": 0}]


def test_a_follow_up_that_cannot_be_sent_after_its_commit_is_left_to_the_sweep(aws_env, monkeypatch):
    def down(*_: object, **__: object) -> None:
        raise ConnectionError("SQS unreachable")

    monkeypatch.setattr(aws, "send_message", down)
    assert followups.FollowUp(QUEUE).send_committed({"id": "1"}, 10, recordId="1") is False
    with pytest.raises(ConnectionError):
        followups.FollowUp(QUEUE).send({"id": "1"})  # before a commit, the caller must know


def test_a_message_of_another_step_is_stale():
    follow_up = followups.FollowUp(QUEUE, step_field="step")
    assert follow_up.stale({"step": 2}, 3) and follow_up.stale({"step": "2"}, 3)
    assert not follow_up.stale({"step": 3}, 3) and not follow_up.stale({"step": 3}, "3")
    assert not follow_up.stale({}, 3)  # a message without a token (a direct call) is taken
    assert followups.FollowUp(QUEUE).stale({"step": 2}, 3) is False  # a tracker without tokens
    assert followups.is_stale("2025-01-01T00:00:00.000Z", None)  # the record left the chain's due time


def test_the_sweep_hands_back_a_record_whose_follow_up_was_lost_once_per_lease(aws_env):
    _record(**OPEN.due(2))
    handed: list[str] = []
    assert OPEN.sweep(lambda item: handed.append(str(item["pk"])), 10) == 0  # its follow-up may still come
    try:
        clock.travel(2 + 300 + 1)
        assert OPEN.sweep(lambda item: handed.append(str(item["pk"])), 10) == 1
        assert OPEN.sweep(lambda item: handed.append(str(item["pk"])), 10) == 0  # leased to the one handed back
        assert handed == ["RECORD#1"]
        # The record ended without leaving the index: the sweep takes it out and hands nothing back.
        aws.table(TABLE).put_item(Item={**_stored(), "status": "done", "dueAt": clock.iso_in(-1)})
        assert OPEN.sweep(lambda item: handed.append(str(item["pk"])), 10) == 0
        assert not set(followups.ENDED) & set(_stored())
    finally:
        clock.reset()
