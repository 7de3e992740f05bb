"""Local worker runner: what Lambda's event sources do on AWS, done against moto.

It reads the event sources the Chalice app registered (SQS queues, schedules),
long-polls each queue and calls the very handler function Lambda would call with
a Lambda-shaped event, deleting messages only when the handler succeeded (or
those not listed in a partial-batch response). A failed message becomes visible
again after the queue's visibility timeout and moves to its dead-letter queue
after `maxReceiveCount` receives, as on AWS. Rate schedules fire every period
(first after one period, as on AWS); cron schedules are not run locally but can
be invoked by hand:

    python -m devtools.workers invoke rotate_signing_keys

As on Lambda, every queue consumer and every schedule runs on its own: each has
its own thread (a lane), so a slow one (the aux-pool refill searches primes for
minutes) never holds up another (the deposit watcher). Threads are enough: the
CPU-bound work is Rust (dompet_mpc), which releases the GIL while it computes.
Each invocation gets its function's timeout from chalicelib/platform/resources.py
(the context's remaining time); one that runs past it is reported as timed out
and its batch is left to the queue, like a Lambda timeout. A Python thread cannot
be killed, so its lane starts nothing more until the overrunning call returns.
"""

from __future__ import annotations

import functools
import json
import logging
import re
import sys
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from chalicelib.platform import priority, resources
from chalicelib.platform.invocation import running_as

log = logging.getLogger("dompet.workers")

_RATE = re.compile(r"^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$")
_SECONDS = {"minute": 60, "hour": 3600, "day": 86_400}
DEFAULT_TIMEOUT_S = 60.0  # a handler that resources.py does not define (test apps)


@dataclass
class LocalContext:
    """The parts of the Lambda context object handlers use."""

    function_name: str
    aws_request_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    memory_limit_in_mb: int = 512
    deadline: float = field(default_factory=lambda: time.monotonic() + 900)

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self.deadline - time.monotonic()) * 1000))


class InvocationTimeoutError(Exception):
    """The handler ran past its function's timeout (Lambda would have stopped it)."""


def rate_seconds(expression: Any) -> int | None:
    """Seconds between runs of a rate() schedule; None for cron()."""
    text = expression.to_string() if hasattr(expression, "to_string") else str(expression)
    match = _RATE.match(text)
    if not match:
        return None
    return int(match.group(1)) * _SECONDS[match.group(2).rstrip("s")]


def scheduled_event(region: str) -> dict[str, Any]:
    return {
        "version": "0",
        "id": str(uuid.uuid4()),
        "detail-type": "Scheduled Event",
        "source": "aws.events",
        "account": "123456789012",
        "time": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "region": region,
        "resources": [],
        "detail": {},
    }


class WorkerRunner:
    def __init__(
        self,
        app: Any,
        region: str,
        poll_wait_s: int = 1,
        periods: dict[str, float] | None = None,
        timeouts: dict[str, float] | None = None,
        skipped: dict[str, str] | None = None,
    ) -> None:
        """`periods`: seconds between runs of named schedules, instead of their rate (e.g. the deposit watcher
        every few seconds locally, where EventBridge's one-minute minimum does not apply). `timeouts`: seconds
        per named function instead of its `timeout_s` in resources.py (tests). `skipped`: schedules not run here,
        each with the reason `describe` gives."""
        from chalice.app import ScheduledEventConfig, SQSEventConfig

        self.periods = periods or {}
        self.timeouts = timeouts or {}
        self.region = region
        self.poll_wait_s = poll_wait_s
        self.app = app
        self.queues = [s for s in app.event_sources if isinstance(s, SQSEventConfig)]
        self.skipped = skipped or {}
        scheduled = [s for s in app.event_sources if isinstance(s, ScheduledEventConfig)]
        self.schedules = [s for s in scheduled if s.name not in self.skipped]
        self._next_run: dict[str, float] = {}
        self._overrunning: dict[str, threading.Thread] = {}
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    @functools.cached_property
    def _sqs(self) -> Any:
        import boto3

        return boto3.session.Session(region_name=self.region).client("sqs")

    @functools.cache  # noqa: B019 - one runner per process; a queue's URL and ARN never change
    def _queue(self, name: str) -> tuple[str, str]:
        url = self._sqs.get_queue_url(QueueName=name)["QueueUrl"]
        arn = self._sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        return url, arn

    def poll_once(self, source: Any) -> int:
        """Deliver one batch from the source's queue; returns how many messages were handed over."""
        sqs = self._sqs
        url, arn = self._queue(source.queue)
        # Lambda's event source mapping polls and deletes with the consumer's role, whoever calls this.
        with running_as(source.name):
            messages = sqs.receive_message(
                QueueUrl=url,
                MaxNumberOfMessages=min(10, source.batch_size),
                WaitTimeSeconds=self.poll_wait_s,
                AttributeNames=["All"],
                MessageAttributeNames=["All"],
            ).get("Messages", [])
        if not messages:
            return 0
        event = {
            "Records": [
                {
                    "messageId": m["MessageId"],
                    "receiptHandle": m["ReceiptHandle"],
                    "body": m["Body"],
                    "attributes": m.get("Attributes", {}),
                    "messageAttributes": m.get("MessageAttributes", {}),
                    "md5OfBody": m.get("MD5OfBody", ""),
                    "eventSource": "aws:sqs",
                    "eventSourceARN": arn,
                    "awsRegion": self.region,
                }
                for m in messages
            ]
        }
        try:
            result = self.invoke(source, event)
        except Exception as exc:  # noqa: BLE001 - as on Lambda: the batch is retried, then dead-lettered
            log.warning("%s failed (%s); the batch will be retried", source.name, type(exc).__name__)
            return len(messages)
        failed = (
            {f["itemIdentifier"] for f in (result or {}).get("batchItemFailures", [])}
            if isinstance(result, dict)
            else set()
        )
        done = [
            {"Id": str(n), "ReceiptHandle": m["ReceiptHandle"]}
            for n, m in enumerate(messages)
            if m["MessageId"] not in failed
        ]
        if done:
            with running_as(source.name):  # as the event source mapping does: one DeleteMessageBatch
                sqs.delete_message_batch(QueueUrl=url, Entries=done)
        return len(messages)

    def invoke_scheduled(self, source: Any) -> None:
        self.invoke(source, scheduled_event(self.region))

    def invoke(self, source: Any, event: dict[str, Any]) -> Any:
        """One invocation of the source's function, as Lambda makes it: in its own thread, with a context whose
        remaining time is the function's timeout; its answer, or InvocationTimeoutError past that timeout."""
        timeout_s = self.timeout_s(source.name)
        context = LocalContext(
            source.name, memory_limit_in_mb=self._memory_mb(source.name), deadline=time.monotonic() + timeout_s
        )
        outcome: dict[str, Any] = {}
        background = self._background(source.name)

        def call() -> None:
            if background:  # on one machine with the API: requests first
                priority.lower_current_thread()
            try:
                outcome["result"] = self._handler(source)(event, context)
            except Exception as exc:  # noqa: BLE001 - handed to the caller's thread, as Lambda reports it
                outcome["error"] = exc

        thread = threading.Thread(target=call, name=f"invocation:{source.name}", daemon=True)
        thread.start()
        thread.join(timeout_s)
        if thread.is_alive():
            self._overrunning[source.name] = thread
            log.warning("%s timed out after %.0f s", source.name, timeout_s)
            raise InvocationTimeoutError(source.name)
        if "error" in outcome:
            raise outcome["error"]
        return outcome.get("result")

    def timeout_s(self, name: str) -> float:
        if name in self.timeouts:
            return self.timeouts[name]
        try:
            return float(resources.function(name).timeout_s)
        except KeyError:
            return DEFAULT_TIMEOUT_S

    @staticmethod
    def _background(name: str) -> bool:
        try:
            return resources.function(name).background_concurrency is not None
        except KeyError:
            return False

    @staticmethod
    def _memory_mb(name: str) -> int:
        try:
            return resources.function(name).memory_mb
        except KeyError:
            return 512

    def _handler(self, source: Any) -> Callable[[dict[str, Any], Any], Any]:
        # The wrapped handler Chalice registered: the object Lambda's handler string resolves to.
        handler: Callable[[dict[str, Any], Any], Any] = self.app.handler_map[source.name]
        return handler

    def period_s(self, source: Any) -> float | None:
        return self.periods.get(source.name) or rate_seconds(source.schedule_expression)

    def due(self, source: Any, now: float) -> bool:
        """Whether the schedule fires at `now` (then its next run is one period later; the first run is one
        period after the runner first asked, as on AWS)."""
        period = self.period_s(source)
        if period is None:
            return False
        due = self._next_run.setdefault(source.name, now + period)
        if now < due:
            return False
        self._next_run[source.name] = now + period
        return True

    def run_due_schedules(self, now: float) -> list[str]:
        """Run, one after the other, the schedules due at `now` (tests; the lanes run each on its own)."""
        ran = []
        for source in self.schedules:
            if self.due(source, now) and self._run_scheduled(source):
                ran.append(source.name)
        return ran

    def _run_scheduled(self, source: Any) -> bool:
        try:
            self.invoke_scheduled(source)
            return True
        except Exception as exc:  # noqa: BLE001 - a failed run is retried next period, as on AWS
            log.warning("%s failed (%s)", source.name, type(exc).__name__)
            return False

    def start(self) -> None:
        for queue in self.queues:
            self._threads.append(self._loop(f"sqs:{queue.name}", queue, functools.partial(self.poll_once, queue)))
        for schedule in self.schedules:
            if self.period_s(schedule) is not None:
                self._threads.append(
                    self._loop(f"schedule:{schedule.name}", schedule, functools.partial(self._tick, schedule))
                )

    def _tick(self, source: Any) -> None:
        if self.due(source, time.time()):
            self._run_scheduled(source)
        self._stop.wait(min(1.0, self.period_s(source) or 1.0))

    def _loop(self, name: str, source: Any, step: Callable[[], Any]) -> threading.Thread:
        def run() -> None:
            while not self._stop.is_set():
                overrunning = self._overrunning.get(source.name)
                if overrunning is not None and overrunning.is_alive():
                    overrunning.join(1)  # still in the call that timed out: nothing new before it returns
                    continue
                try:
                    step()
                except Exception as exc:  # noqa: BLE001 - keep the loop alive (e.g. moto restarting)
                    log.warning("worker %s: %s", name, type(exc).__name__)
                    self._stop.wait(1)

        thread = threading.Thread(target=run, name=name, daemon=True)
        thread.start()
        return thread

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=self.poll_wait_s + 5)

    def describe(self) -> list[str]:
        lines = [f"sqs {s.queue} -> {s.handler_string} (timeout {self.timeout_s(s.name):.0f} s)" for s in self.queues]
        for s in self.schedules:
            expression = s.schedule_expression
            text = expression.to_string() if hasattr(expression, "to_string") else str(expression)
            runs = f"timeout {self.timeout_s(s.name):.0f} s" if rate_seconds(expression) else "run by hand"
            lines.append(f"{text} -> {s.handler_string} ({runs})")
        lines += [f"{name}: not run here ({why})" for name, why in self.skipped.items()]
        return lines


def main(argv: list[str]) -> int:
    """`invoke NAME`: run one scheduled function now (against AWS_ENDPOINT_URL, e.g. the local stack)."""
    if len(argv) != 2 or argv[0] != "invoke":
        print("usage: python -m devtools.workers invoke FUNCTION_NAME", file=sys.stderr)
        return 2
    from app import app

    runner = WorkerRunner(app, region=_region())
    source = next((s for s in runner.schedules if s.name == argv[1]), None)
    if source is None:
        print(f"no scheduled function {argv[1]!r}; known: {[s.name for s in runner.schedules]}", file=sys.stderr)
        return 1
    runner.invoke_scheduled(source)
    print(json.dumps({"invoked": source.name}))
    return 0


def _region() -> str:
    from chalicelib.platform.settings import load_settings

    return load_settings().region


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
