"""The local worker runner hands SQS messages and schedules to the handlers Lambda would call."""

from __future__ import annotations

import json

import boto3
from chalice import Chalice, Rate

from devtools.workers import WorkerRunner, rate_seconds

received: list[str] = []
ticks: list[str] = []

worker_app = Chalice("workers-test")


@worker_app.on_sqs_message(queue="jobs", batch_size=5)
def handle_jobs(event):
    for record in event:
        if record.body == "poison":
            raise ValueError("cannot process")
        received.append(record.body)


@worker_app.on_sqs_message(queue="partial", batch_size=5)
def handle_partial(event):
    failures = [{"itemIdentifier": r.to_dict()["messageId"]} for r in event if r.body == "bad"]
    received.extend(r.body for r in event if r.body != "bad")
    return {"batchItemFailures": failures}


@worker_app.schedule(Rate(5, unit=Rate.MINUTES))
def every_five_minutes(event):
    ticks.append(event.to_dict()["detail-type"])


def _queue(sqs, name, max_receives=2):
    dlq = sqs.create_queue(QueueName=f"{name}-dlq")["QueueUrl"]
    dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    url = sqs.create_queue(
        QueueName=name,
        Attributes={
            "VisibilityTimeout": "0",
            "RedrivePolicy": json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": max_receives}),
        },
    )["QueueUrl"]
    return url, dlq


def _source(runner, name):
    return next(s for s in runner.queues if s.name == name)


def _count(sqs, url):
    return int(
        sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["ApproximateNumberOfMessages"])["Attributes"][
            "ApproximateNumberOfMessages"
        ]
    )


def test_messages_reach_the_handler_and_are_deleted(aws_env):
    received.clear()
    sqs = boto3.client("sqs", region_name="us-east-1")
    url, _ = _queue(sqs, "jobs")
    sqs.send_message(QueueUrl=url, MessageBody="one")
    sqs.send_message(QueueUrl=url, MessageBody="two")
    runner = WorkerRunner(worker_app, region="us-east-1", poll_wait_s=0)
    assert runner.poll_once(_source(runner, "handle_jobs")) == 2
    assert sorted(received) == ["one", "two"]
    assert _count(sqs, url) == 0


def test_a_failing_message_is_retried_then_dead_lettered(aws_env):
    received.clear()
    sqs = boto3.client("sqs", region_name="us-east-1")
    url, dlq = _queue(sqs, "jobs", max_receives=2)
    sqs.send_message(QueueUrl=url, MessageBody="poison")
    runner = WorkerRunner(worker_app, region="us-east-1", poll_wait_s=0)
    source = _source(runner, "handle_jobs")
    assert runner.poll_once(source) == 1
    assert runner.poll_once(source) == 1
    assert runner.poll_once(source) == 0
    moved = sqs.receive_message(QueueUrl=dlq).get("Messages", [])
    assert [m["Body"] for m in moved] == ["poison"]


def test_partial_batch_failures_keep_only_the_failed_messages(aws_env):
    received.clear()
    sqs = boto3.client("sqs", region_name="us-east-1")
    url, _ = _queue(sqs, "partial", max_receives=5)
    for body in ("good", "bad"):
        sqs.send_message(QueueUrl=url, MessageBody=body)
    runner = WorkerRunner(worker_app, region="us-east-1", poll_wait_s=0)
    runner.poll_once(_source(runner, "handle_partial"))
    assert received == ["good"]
    left = sqs.receive_message(QueueUrl=url).get("Messages", [])
    assert [m["Body"] for m in left] == ["bad"]


def test_rate_schedules_fire_once_per_period():
    ticks.clear()
    runner = WorkerRunner(worker_app, region="us-east-1")
    assert runner.run_due_schedules(1000.0) == []  # first run one period later, as on AWS
    assert runner.run_due_schedules(1000.0 + 299) == []
    assert runner.run_due_schedules(1000.0 + 300) == ["every_five_minutes"]
    assert runner.run_due_schedules(1000.0 + 301) == []
    assert ticks == ["Scheduled Event"]


def test_rate_parsing():
    assert rate_seconds(Rate(1, unit=Rate.DAYS)) == 86_400
    assert rate_seconds("rate(3 hours)") == 3 * 3600
    assert rate_seconds("cron(0 12 * * ? *)") is None


def test_the_service_registers_its_signing_key_rotation(aws_env):
    from app import app
    from chalicelib.auth import keys

    runner = WorkerRunner(app, region="us-east-1")
    rotation = next(s for s in runner.schedules if s.name == "rotate_signing_keys")
    assert rate_seconds(rotation.schedule_expression) == 86_400
    before = keys.load(refresh=True).current().kid
    runner.invoke_scheduled(rotation)  # the real handler, as Lambda calls it
    assert keys.load(refresh=True).current().kid == before  # not due yet: unchanged, still valid


def test_webhook_keys_rotate_on_their_own_schedule(aws_env):
    from app import app
    from chalicelib.webhooks import keys as webhook_keys

    runner = WorkerRunner(app, region="us-east-1")
    rotation = next(s for s in runner.schedules if s.name == "rotate_webhook_keys")
    assert rate_seconds(rotation.schedule_expression) == 86_400
    jwt_rotation = next(s for s in runner.schedules if s.name == "rotate_signing_keys")
    before = webhook_keys.current().kid
    runner.invoke_scheduled(jwt_rotation)
    runner.invoke_scheduled(rotation)  # the real handler, as Lambda calls it
    webhook_keys.forget()
    assert webhook_keys.current().kid == before  # not due yet: unchanged
