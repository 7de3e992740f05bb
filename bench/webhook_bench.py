"""Webhook deliveries per second from one worker to a local receiver that answers in 50 ms.

    .venv/bin/python bench/webhook_bench.py [--events 200]
    .venv/bin/python bench/webhook_bench.py --writes 200
    .venv/bin/python bench/webhook_bench.py --over-http [--events 300] [--callers 6]

`--writes`: `POST /api/v1/webhooks/test` (a single-event write: the app's settings checked, the event, its delivery
and the outbox in one transaction) through the real route in process (Chalice's test client, moto in process),
one after another; its answer time p50 / p95.

`--over-http`: against a stack of its own (bench/engine_bench.py, `started_stack`: `make dev` with its workers),
`--callers` threads call `POST /api/v1/webhooks/test` over HTTP until `--events` are queued, while the stack's one
`deliver_webhook` worker delivers to the receiver; the clock runs from the first call until the receiver has them
all. Deliveries per second, and the calls' answer times.

AWS is moto in process; the worker is the `deliver_webhook` consumer Chalice registered, driven batch after batch
(10 messages, the event source's batch size) by devtools.workers.WorkerRunner, as one Lambda instance is. Each
batch: its deliveries and events in two batch reads, then every delivery at once: claim, derive the app key,
sign, resolve and check the URL, POST over the pooled transport, record the attempt. The clock stops when the
receiver has every delivery and the queue is empty; the records are checked after it. Prints Markdown for
docs/performance.md.
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import local_env
from instrument import percentile

local_env.use(DOMPET_WEBHOOK_ALLOWLIST="127.0.0.1/32")


class SlowReceiver(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as receivers behind a load balancer answer
    received: Any = None  # a shared counter (the receiver is another process, as it is another machine)

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        time.sleep(0.05)
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()
        with SlowReceiver.received.get_lock():
            SlowReceiver.received.value += 1

    def log_message(self, *args: object) -> None:
        pass


def _receive(received: Any, port: Any) -> None:
    SlowReceiver.received = received
    server = ThreadingHTTPServer(("127.0.0.1", 0), SlowReceiver)
    port.value = server.server_address[1]
    server.serve_forever()


_stamps = {"last": 0}
_stamp_lock = threading.Lock()


def _timestamp() -> str:
    """A request timestamp no other request of this bench has: the same signed request twice is a replay (401)."""
    from datetime import UTC, datetime

    with _stamp_lock:
        ms = _stamps["last"] = max(int(time.time() * 1000), _stamps["last"] + 1)
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _start_receiver() -> tuple[Any, Any, multiprocessing.Process]:
    """The 50 ms receiver in a process of its own: its delivery counter, its port and the process."""
    received = multiprocessing.Value("i", 0)
    port = multiprocessing.Value("i", 0)
    receiver = multiprocessing.Process(target=_receive, args=(received, port), daemon=True)
    receiver.start()
    while not port.value:
        time.sleep(0.05)
    return received, port, receiver


def _signed(app_id: str, secret: str, method: str, url: str, body: bytes = b"") -> dict[str, str]:
    from tests.support.scripts import dompet_sign

    headers: dict[str, str] = dompet_sign.signed_headers(app_id, secret, method, url, body, timestamp=_timestamp())
    if body:
        headers["Content-Type"] = "application/json"
    return headers


def writes(count: int) -> None:
    from chalice.test import Client
    from moto import mock_aws

    from devtools import bootstrap

    with mock_aws():
        bootstrap.create_resources("bench", "us-east-1")
        bootstrap.initialise()
        from app import app
        from chalicelib.tenancy import service as tenancy
        from chalicelib.webhooks import settings as webhook_settings

        tenant = tenancy.create_tenant("Bench")
        webhook_settings.put(tenant.appId, "http://127.0.0.1:9/hook", "2026-11-22T00:00:00.000Z")
        path = "/api/v1/webhooks/test"

        def write() -> float:
            headers = _signed(tenant.appId, tenant.appSecret, "POST", f"http://x{path}")
            started = time.perf_counter()
            answer = client.http.post(path, headers=headers)
            assert answer.status_code == 200, answer.body
            return (time.perf_counter() - started) * 1000

        with Client(app) as client:
            for _ in range(10):
                write()  # warm: the first calls build the models and the clients
            ms = [write() for _ in range(count)]
    print("| measure | value |\n|---|---|")
    print(
        f"| `POST /api/v1/webhooks/test` in process, {count} one after another, p50 / p95 ms | "
        f"{statistics.median(ms):.1f} / {percentile(ms, 0.95):.1f} |"
    )


def over_http(events: int, callers: int) -> None:
    import json
    import urllib.request
    from concurrent.futures import ThreadPoolExecutor

    from engine_bench import started_stack

    received, port, receiver = _start_receiver()
    try:
        with started_stack({}, aux_sets=1, prefix="webhook-bench-") as (info, _state, _cpu):
            api, app_id, secret = info["apiUrl"], info["demo"]["appId"], info["demo"]["appSecret"]

            def call(method: str, path: str, body: bytes = b"") -> tuple[int, float]:
                headers = _signed(app_id, secret, method, api + path, body)
                request = urllib.request.Request(api + path, data=body or None, headers=headers, method=method)
                started = time.perf_counter()
                with urllib.request.urlopen(request, timeout=30) as answer:
                    answer.read()
                    return answer.status, (time.perf_counter() - started) * 1000

            url = f"http://127.0.0.1:{port.value}/hook"
            assert call("PUT", "/api/v1/webhooks/settings", json.dumps({"url": url}).encode())[0] == 200
            started = time.perf_counter()
            with ThreadPoolExecutor(callers) as pool:
                answers = list(pool.map(lambda _: call("POST", "/api/v1/webhooks/test"), range(events)))
            queued_s = time.perf_counter() - started
            deadline = time.monotonic() + 300
            while received.value < events and time.monotonic() < deadline:
                time.sleep(0.02)
            elapsed = time.perf_counter() - started
    finally:
        receiver.terminate()
    ms = [answer_ms for status, answer_ms in answers if status == 200]
    print("| measure | value |\n|---|---|")
    print(f"| events queued over HTTP by {callers} callers | {len(ms)} of {events} in {queued_s:.1f} s |")
    print(f"| their answers p50 / p95 ms | {statistics.median(ms):.0f} / {percentile(ms, 0.95):.0f} |")
    print(f"| delivered to the 50 ms receiver | {received.value} in {elapsed:.1f} s |")
    print(f"| deliveries per second (first call to last delivery) | {received.value / elapsed:.1f} |")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=200)
    parser.add_argument("--writes", type=int, default=0, help="time this many test-event writes in process")
    parser.add_argument("--over-http", action="store_true", help="deliveries against a stack of its own")
    parser.add_argument("--callers", type=int, default=6)
    args = parser.parse_args()
    if args.writes:
        writes(args.writes)
        return
    if args.over_http:
        over_http(args.events, args.callers)
        return

    from moto import mock_aws

    from devtools import bootstrap

    received, port, receiver = _start_receiver()
    with mock_aws():
        bootstrap.create_resources("bench", "us-east-1")
        bootstrap.initialise()
        from app import app
        from chalicelib.platform import unit_of_work
        from chalicelib.platform.unit_of_work import Event, Plan
        from chalicelib.tenancy import service as tenancy
        from chalicelib.webhooks import deliveries
        from chalicelib.webhooks import settings as webhook_settings
        from devtools.workers import WorkerRunner

        tenant = tenancy.create_tenant("Bench")
        webhook_settings.put(tenant.appId, f"http://127.0.0.1:{port.value}/hook", "2026-11-22T00:00:00.000Z")
        ids = [
            unit_of_work.commit(Plan(event=Event(tenant.appId, "webhook.test", f"bench-{n}", {"n": n}))).delivery_id
            for n in range(args.events)
        ]
        runner = WorkerRunner(app, region="us-east-1", poll_wait_s=0)
        (source,) = [q for q in runner.queues if q.name == "deliver_webhook"]
        started = time.perf_counter()
        while received.value < len(ids) or runner.poll_once(source):
            runner.poll_once(source)
        elapsed = time.perf_counter() - started
        records = [deliveries.get(str(i)) for i in ids]
        assert all(r is not None and r["status"] == "delivered" for r in records), "every delivery delivered"
        durations = [r["log"][0]["durationMs"] for r in records if r is not None]
    receiver.terminate()
    per_delivery = [float(d) for d in durations]
    print("| measure | value |\n|---|---|")
    print(f"| deliveries | {len(ids)} |")
    print(f"| deliveries per second (one worker, batches of 10 at once) | {len(ids) / elapsed:.1f} |")
    print(
        f"| attempt duration p50 / p95 ms (sign + POST incl. 50 ms receiver) | "
        f"{statistics.median(per_delivery):.1f} / {percentile(per_delivery, 0.95):.1f} |"
    )
    print(
        f"| whole worker step per delivery ms (SQS receive, DynamoDB reads/writes, delete) | "
        f"{elapsed * 1000 / len(ids):.1f} |"
    )


if __name__ == "__main__":
    main()
