"""Webhook deliveries per second from one worker to a local receiver that answers in 50 ms.

    .venv/bin/python bench/webhook_bench.py [--events 200]

AWS is moto in process; the worker is the `deliver_webhook` consumer Chalice registered, driven one
message at a time by devtools.workers.WorkerRunner (as one Lambda instance with batch size 1 would be).
Each delivery: read the delivery and event, derive the app key, sign, resolve and check the URL, POST,
record the attempt. Prints Markdown for docs/performance.md.
"""

from __future__ import annotations

import argparse
import statistics
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import local_env
from instrument import percentile

local_env.use(DOMPET_WEBHOOK_ALLOWLIST="127.0.0.1/32")


class SlowReceiver(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        time.sleep(0.05)
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=200)
    args = parser.parse_args()

    from moto import mock_aws

    from devtools import bootstrap

    server = ThreadingHTTPServer(("127.0.0.1", 0), SlowReceiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    with mock_aws():
        bootstrap.create_resources("bench", "us-east-1")
        bootstrap.initialise()
        from app import app
        from chalicelib.platform import outbox, unit_of_work
        from chalicelib.platform.unit_of_work import Event, Plan
        from chalicelib.tenancy import service as tenancy
        from chalicelib.webhooks import store
        from devtools.workers import WorkerRunner

        tenant = tenancy.create_tenant("Bench")
        store.put(tenant.appId, f"http://127.0.0.1:{server.server_address[1]}/hook", "2026-11-22T00:00:00.000Z")
        ids = [
            unit_of_work.commit(Plan(event=Event(tenant.appId, "webhook.test", f"bench-{n}", {"n": n}))).delivery_id
            for n in range(args.events)
        ]
        runner = WorkerRunner(app, region="us-east-1", poll_wait_s=0)
        (source,) = [q for q in runner.queues if q.name == "deliver_webhook"]
        started = time.perf_counter()
        while sum(1 for i in ids if outbox.get_delivery(str(i))["status"] == "delivered") < len(ids):  # type: ignore[index]
            for _ in range(50):
                runner.poll_once(source)
        elapsed = time.perf_counter() - started
        durations = [
            outbox.get_delivery(str(i))["log"][0]["durationMs"]  # type: ignore[index]
            for i in ids
        ]
    server.shutdown()
    per_delivery = [float(d) for d in durations]
    print("| measure | value |\n|---|---|")
    print(f"| deliveries | {len(ids)} |")
    print(f"| deliveries per second (one worker, sequential) | {len(ids) / elapsed:.1f} |")
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
