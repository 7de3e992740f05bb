"""SQS consumers report failed records one by one and run within the invocation's budget."""

from __future__ import annotations

import json

import pytest
from chalice.app import SQSEvent

from chalicelib.platform import consumers, deadline


class _Context:
    def __init__(self, millis: int) -> None:
        self.millis = millis

    def get_remaining_time_in_millis(self) -> int:
        return self.millis


def _event(bodies: list[dict], millis: int = 30_000) -> SQSEvent:
    records = [
        {
            "messageId": f"m{i}",
            "receiptHandle": f"r{i}",
            "body": json.dumps(body),
            "attributes": {},
            "messageAttributes": {},
            "md5OfBody": "",
            "eventSource": "aws:sqs",
            "eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:q",
            "awsRegion": "us-east-1",
        }
        for i, body in enumerate(bodies)
    ]
    return SQSEvent({"Records": records}, _Context(millis))


def test_only_the_failed_records_are_reported():
    seen: list[int] = []

    def handle(body: dict) -> None:
        if body["n"] == 1:
            raise ValueError("poison")
        seen.append(body["n"])

    result = consumers.sqs_batch("f", _event([{"n": 0}, {"n": 1}, {"n": 2}]), handle)
    assert result == {"batchItemFailures": [{"itemIdentifier": "m1"}]}
    assert seen == [0, 2]  # one poison message does not hold back the others


def test_records_run_within_the_invocations_remaining_time():
    budgets: list[float | None] = []
    consumers.sqs_batch("f", _event([{"n": 0}], millis=5_000), lambda body: budgets.append(deadline.remaining_s()))
    assert budgets[0] is not None and 0 < budgets[0] <= 5.0 - deadline.RESERVE_S + 0.01
    assert deadline.remaining_s() is None  # the budget ends with the batch


def test_a_record_without_time_left_fails_and_stays_queued():
    def handle(body: dict) -> None:
        deadline.require("work")

    from aws_lambda_powertools.utilities.batch.exceptions import BatchProcessingError

    # Every record failed: the invocation fails, so Lambda returns the whole batch to the queue.
    with pytest.raises(BatchProcessingError):
        consumers.sqs_batch("f", _event([{"n": 0}, {"n": 1}], millis=500), handle)


def test_a_batch_at_once_reports_only_its_failed_records():
    def handle_batch(bodies: list[dict]) -> list[BaseException | None]:
        return [ValueError("poison") if body["n"] == 1 else None for body in bodies]

    result = consumers.sqs_batch_at_once("f", _event([{"n": 0}, {"n": 1}, {"n": 2}]), handle_batch)
    assert result == {"batchItemFailures": [{"itemIdentifier": "m1"}]}


def test_a_batch_at_once_fails_alone_a_record_that_is_not_json_and_wholly_when_it_raises():
    event = _event([{"n": 0}, {"n": 1}])
    event.to_dict()["Records"][0]["body"] = "not json"
    seen: list[list[dict]] = []

    def handle_batch(bodies: list[dict]) -> list[BaseException | None]:
        seen.append(bodies)
        return [None] * len(bodies)

    assert consumers.sqs_batch_at_once("f", event, handle_batch) == {"batchItemFailures": [{"itemIdentifier": "m0"}]}
    assert seen == [[{"n": 1}]]

    def broken(bodies: list[dict]) -> list[BaseException | None]:
        raise RuntimeError("down")

    from aws_lambda_powertools.utilities.batch.exceptions import BatchProcessingError

    with pytest.raises(BatchProcessingError):  # every record failed: the batch goes back whole, as with sqs_batch
        consumers.sqs_batch_at_once("f", _event([{"n": 0}, {"n": 1}]), broken)


def test_work_runs_concurrently_within_the_callers_budget():
    import threading

    inside = threading.Barrier(4, timeout=5)  # all four must be running at once to pass it
    budgets: list[float | None] = []

    def piece(n: int) -> None:
        inside.wait()
        budgets.append(deadline.remaining_s())
        if n == 2:
            raise ValueError("one fails")

    with deadline.budget(5.0):
        outcomes = consumers.concurrently([lambda n=n: piece(n) for n in range(4)], threads=4)
    assert [type(o).__name__ if o else None for o in outcomes] == [None, None, "ValueError", None]
    assert len(budgets) == 4 and all(b is not None and 0 < b <= 5.0 for b in budgets)
