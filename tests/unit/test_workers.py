"""The local worker runner hands SQS messages and schedules to the handlers Lambda would call."""

from __future__ import annotations

import json
import threading

import boto3
from chalice import Chalice, Rate

from chalicelib.platform import priority, resources
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


def test_a_skipped_schedule_never_runs_and_says_why():
    ticks.clear()
    runner = WorkerRunner(worker_app, region="us-east-1", skipped={"every_five_minutes": "not here"})
    assert runner.run_due_schedules(1000.0 + 300) == [] and ticks == []
    assert "every_five_minutes: not run here (not here)" in runner.describe()


def test_the_local_stack_leaves_the_safe_prime_refill_to_its_filler():
    from app import app
    from devtools.devstack import LOCAL_PERIODS, LOCAL_SKIPPED

    runner = WorkerRunner(app, region="us-east-1", periods=LOCAL_PERIODS, skipped=LOCAL_SKIPPED)
    assert "refill_aux_pool" not in {s.name for s in runner.schedules}
    assert "watch_deposits" in {s.name for s in runner.schedules}


def test_rate_parsing():
    assert rate_seconds(Rate(1, unit=Rate.DAYS)) == 86_400
    assert rate_seconds("rate(3 hours)") == 3 * 3600
    assert rate_seconds("cron(0 12 * * ? *)") is None


def test_the_service_registers_its_signing_key_rotation(aws_env):
    from app import app
    from chalicelib.auth import jwt_keys as keys

    runner = WorkerRunner(app, region="us-east-1")
    rotation = next(s for s in runner.schedules if s.name == "rotate_signing_keys")
    assert rate_seconds(rotation.schedule_expression) == 86_400
    before = keys.load(refresh=True).current().kid
    runner.invoke_scheduled(rotation)  # the real handler, as Lambda calls it
    assert keys.load(refresh=True).current().kid == before  # not due yet: unchanged, still valid


def test_webhook_keys_rotate_on_their_own_schedule(aws_env):
    from app import app
    from chalicelib.webhooks import signing_keys as webhook_keys

    runner = WorkerRunner(app, region="us-east-1")
    rotation = next(s for s in runner.schedules if s.name == "rotate_webhook_keys")
    assert rate_seconds(rotation.schedule_expression) == 86_400
    jwt_rotation = next(s for s in runner.schedules if s.name == "rotate_signing_keys")
    before = webhook_keys.current().kid
    runner.invoke_scheduled(jwt_rotation)
    runner.invoke_scheduled(rotation)  # the real handler, as Lambda calls it
    webhook_keys.forget()
    assert webhook_keys.current().kid == before  # not due yet: unchanged


# Two schedules named like the service's: the aux-pool refill (the real prime search, minutes on Lambda) and
# the deposit watcher (every few seconds locally). Their timeouts come from resources.py by name.
lanes_app = Chalice("worker-lanes-test")
refill_started = threading.Event()
refill_release = threading.Event()
refill_done = threading.Event()
watcher_steps: list[int] = []
watcher_stepped = threading.Event()
remaining_ms: dict[str, int] = {}


@lanes_app.schedule(Rate(15, unit=Rate.MINUTES))
def refill_aux_pool(event):
    import hashlib

    remaining_ms["refill_aux_pool"] = event.context.get_remaining_time_in_millis()
    refill_started.set()
    try:
        # CPU-bound work outside the GIL, as the prime search's Rust is, in short steps: the test ends it soon
        # after it lets go (one real prime search takes a minute and cannot be interrupted).
        while not refill_release.is_set():
            hashlib.pbkdf2_hmac("sha256", b"refill", b"salt", 100_000)
    finally:
        refill_done.set()


@lanes_app.schedule(Rate(1, unit=Rate.MINUTES))
def watch_deposits(event):
    remaining_ms["watch_deposits"] = event.context.get_remaining_time_in_millis()
    if refill_started.is_set() and not refill_done.is_set():
        watcher_steps.append(len(watcher_steps))
        if len(watcher_steps) >= 3:
            watcher_stepped.set()


def test_the_watcher_keeps_stepping_while_a_refill_runs():
    """Each schedule runs on its own, as on Lambda: while the refill is busy finding primes, the watcher steps
    again and again (on one shared thread it waited for the whole refill)."""
    for flag in (refill_started, refill_release, refill_done, watcher_stepped):
        flag.clear()
    watcher_steps.clear()
    runner = WorkerRunner(lanes_app, region="us-east-1", periods={"refill_aux_pool": 0.01, "watch_deposits": 0.01})
    runner.start()
    try:
        assert refill_started.wait(60)
        assert watcher_stepped.wait(120), "the deposit watcher stalled behind the refill"
        assert not refill_done.is_set()
    finally:
        refill_release.set()
        assert refill_done.wait(300)
        runner.stop()
    assert len(watcher_steps) >= 3
    # Each invocation had its own function's timeout (resources.py), as Lambda gives it.
    assert 890_000 < remaining_ms["refill_aux_pool"] <= resources.function("refill_aux_pool").timeout_s * 1000
    assert 50_000 < remaining_ms["watch_deposits"] <= resources.function("watch_deposits").timeout_s * 1000


hang_release = threading.Event()


@worker_app.on_sqs_message(queue="slow", batch_size=1)
def handle_slow(event):
    for record in event:
        if record.body == "hang":
            hang_release.wait(60)
        received.append(record.body)


def test_a_consumer_past_its_timeout_leaves_its_batch_to_the_queue_and_its_lane_waits(aws_env):
    """Past the function's timeout the invocation counts as failed (Lambda would have stopped it): nothing is
    deleted, and the lane starts no second call while the first is still running."""
    received.clear()
    hang_release.clear()
    sqs = boto3.client("sqs", region_name="us-east-1")
    url, _ = _queue(sqs, "slow", max_receives=5)
    sqs.send_message(QueueUrl=url, MessageBody="hang")
    runner = WorkerRunner(worker_app, region="us-east-1", poll_wait_s=0, timeouts={"handle_slow": 0.2})
    try:
        assert runner.poll_once(_source(runner, "handle_slow")) == 1  # returns at the timeout, the call hangs on
        assert received == []
        assert runner._overrunning["handle_slow"].is_alive()
    finally:
        hang_release.set()
    runner._overrunning["handle_slow"].join(10)
    assert received == ["hang"]  # it did finish late, but its message was not deleted: it is delivered again
    again = sqs.receive_message(QueueUrl=url).get("Messages", [])
    assert [m["Body"] for m in again] == ["hang"]


def test_every_event_source_of_the_service_has_its_function_timeout():
    from app import app

    runner = WorkerRunner(app, region="us-east-1")
    for source in runner.queues + runner.schedules:
        assert runner.timeout_s(source.name) == resources.function(source.name).timeout_s


priority_app = Chalice("priority-test")
lowered: dict[str, bool] = {}


@priority_app.schedule(Rate(1, unit=Rate.MINUTES), name="refill_presignatures")
def background_job(event):
    lowered["refill_presignatures"] = priority.current_thread_lowered()


@priority_app.schedule(Rate(1, unit=Rate.MINUTES), name="watch_deposits")
def request_side_job(event):
    lowered["watch_deposits"] = priority.current_thread_lowered()


def test_background_functions_run_below_the_apis_priority(monkeypatch):
    """On the local stack the functions are threads beside the API: a refill (background in resources.py) runs
    niced, and so does a party it calls in process; the watcher and the API run at the normal priority."""
    from chalicelib.mpc import remote

    lowered.clear()
    runner = WorkerRunner(priority_app, region="us-east-1")
    for source in runner.schedules:
        runner.invoke_scheduled(source)
    assert lowered == {"refill_presignatures": True, "watch_deposits": False}
    assert not priority.current_thread_lowered()

    calls: dict[str, bool] = {}

    def party(_body):
        return {"lowered": priority.current_thread_lowered()}

    monkeypatch.setattr(remote, "_handlers", lambda: {"cosigner": party})
    calls["api"] = remote.call("cosigner", {}).result(10)["lowered"]

    def from_background() -> None:
        priority.lower_current_thread()
        calls["refill"] = remote.call("cosigner", {}).result(10)["lowered"]

    thread = threading.Thread(target=from_background)
    thread.start()
    thread.join(10)
    assert calls == {"api": False, "refill": True}
