"""The delivery consumer takes a batch at once: its deliveries are attempted concurrently over kept-alive
connections, and one failing receiver or record never holds back or re-delivers the others."""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from chalicelib.platform import pinned_http, settings, unit_of_work
from chalicelib.platform.unit_of_work import Event, Plan
from chalicelib.webhooks import attempts, deliveries
from chalicelib.webhooks import settings as webhook_settings


class Receiver:
    """HTTP/1.1; answers 500 to the events named in `failing`, 200 to the others after `delay_s`; notes the
    highest number of requests it was answering at once and the connections they came on."""

    def __init__(self) -> None:
        self.failing: set[str] = set()
        self.delay_s = 0.2
        self.in_flight = 0
        self.most_at_once = 0
        self.connections: set[int] = set()
        self.received: list[str] = []
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers["Content-Length"]))
                event_id = self.headers["X-Service-Event-Id"]
                with receiver.lock:
                    receiver.in_flight += 1
                    receiver.most_at_once = max(receiver.most_at_once, receiver.in_flight)
                    receiver.connections.add(self.client_address[1])
                    receiver.received.append(event_id)
                time.sleep(receiver.delay_s)
                with receiver.lock:
                    receiver.in_flight -= 1
                self.send_response(500 if event_id in receiver.failing else 200)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()


@pytest.fixture
def receiver(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("DOMPET_WEBHOOK_ALLOWLIST", "127.0.0.1/32")
    settings.load_settings.cache_clear()
    pinned_http._POOL.clear()
    found = Receiver()
    yield found
    found.server.shutdown()
    found.server.server_close()
    pinned_http._POOL.clear()
    settings.load_settings.cache_clear()


def _events(tenant: Any, count: int, prefix: str) -> list[str]:
    return [
        str(unit_of_work.commit(Plan(event=Event(tenant.appId, "webhook.test", f"{prefix}-{n}", {}))).delivery_id)  # type: ignore[union-attr]
        for n in range(count)
    ]


def _runner() -> Any:
    from app import app
    from devtools.workers import WorkerRunner

    runner = WorkerRunner(app, region="us-east-1", poll_wait_s=0)
    (source,) = [q for q in runner.queues if q.name == "deliver_webhook"]
    return runner, source


def test_a_batch_is_attempted_at_once_and_one_failing_receiver_holds_back_no_other(aws_env, tenant, receiver):
    webhook_settings.put(tenant.appId, receiver.url, "2026-11-28T00:00:00.000Z")
    ids = _events(tenant, 10, "batch")
    receiver.failing = {"batch-3"}
    runner, source = _runner()
    assert runner.poll_once(source) == 10
    records = {i: deliveries.get(i) for i in ids}
    statuses = sorted(str(r["status"]) for r in records.values() if r)
    assert statuses == ["delivered"] * 9 + ["pending"]
    [retried] = [r for r in records.values() if r and r["status"] == "pending"]
    assert retried["eventId"] == "batch-3" and retried["attempts"] == 1 and retried["lastResponseStatus"] == 500
    assert receiver.most_at_once >= 5  # attempted concurrently (ten at once when the machine allows)
    assert sorted(receiver.received) == sorted(f"batch-{n}" for n in range(10))  # each sent once

    # The next batch reuses the kept-alive connections instead of opening ten new ones.
    opened = len(receiver.connections)
    _events(tenant, 10, "again")
    assert runner.poll_once(source) == 10
    assert len(receiver.connections) == opened <= 10


def test_a_record_that_fails_is_reported_alone(aws_env, tenant, receiver, monkeypatch):
    webhook_settings.put(tenant.appId, receiver.url, "2026-11-28T00:00:00.000Z")
    ids = _events(tenant, 4, "poison")
    receiver.delay_s = 0
    record = attempts._record

    def flaky_record(claimed: Any, *args: Any, **kwargs: Any) -> bool:
        if claimed.id == ids[1]:
            raise RuntimeError("DynamoDB is down for this one")
        return record(claimed, *args, **kwargs)

    monkeypatch.setattr(attempts, "_record", flaky_record)
    from app import app

    deliver_webhook = app.handler_map["deliver_webhook"]  # as Lambda calls it

    class Context:
        def get_remaining_time_in_millis(self) -> int:
            return 30_000

    records = [
        {"messageId": f"m{n}", "receiptHandle": f"r{n}", "body": f'{{"deliveryId": "{i}"}}', "attributes": {}}
        for n, i in enumerate(ids)
    ] + [{"messageId": "m-bad", "receiptHandle": "r-bad", "body": "{}", "attributes": {}}]
    answer = deliver_webhook({"Records": records}, Context())  # as Lambda calls it
    assert answer == {"batchItemFailures": [{"itemIdentifier": "m1"}, {"itemIdentifier": "m-bad"}]}
    assert [deliveries.get(i)["status"] for i in (ids[0], ids[2], ids[3])] == ["delivered"] * 3  # type: ignore[index]
