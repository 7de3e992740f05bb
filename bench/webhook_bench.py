"""Webhook deliveries per second from one worker to a local receiver that answers in 50 ms.

    .venv/bin/python bench/webhook_bench.py [--events 200]

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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=200)
    args = parser.parse_args()

    from moto import mock_aws

    from devtools import bootstrap

    received = multiprocessing.Value("i", 0)
    port = multiprocessing.Value("i", 0)
    receiver = multiprocessing.Process(target=_receive, args=(received, port), daemon=True)
    receiver.start()
    while not port.value:
        time.sleep(0.05)
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
