"""Webhook delivery end to end: signed requests, the outbox, SQS (moto), a local receiver over HTTP.

The receiver listens on 127.0.0.1 (admitted by DOMPET_WEBHOOK_ALLOWLIST, as in the local stack); the
worker is the delivery consumer Chalice registered, driven by devtools.workers.WorkerRunner.
"""

from __future__ import annotations

import base64
import json
import time
import uuid
from collections.abc import Iterator

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from chalicelib.platform import aws, resources, settings, unit_of_work
from chalicelib.platform.unit_of_work import Event, Plan
from chalicelib.webhooks import deliveries
from tests.support.scripts import ROOT, dompet_sign, verify_script
from tests.support.servers import Receiver

pytestmark = pytest.mark.integration


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    yield r
    r.server.shutdown()


@pytest.fixture
def hooks(api, tenant, receiver, monkeypatch):
    monkeypatch.setenv("DOMPET_WEBHOOK_ALLOWLIST", "127.0.0.1/32")
    monkeypatch.setenv("DOMPET_WEBHOOK_RETRY_SCHEDULE_S", "1,1")  # three attempts, a second apart
    settings.load_settings.cache_clear()
    from app import app
    from devtools.workers import WorkerRunner

    runner = WorkerRunner(app, region="us-east-1", poll_wait_s=0)
    (source,) = [q for q in runner.queues if q.name == "deliver_webhook"]

    def signed(method: str, path: str, body: dict | None = None):
        raw = json.dumps(body).encode() if body is not None else b""
        headers = dompet_sign.signed_headers(tenant.appId, tenant.appSecret, method, f"http://x{path}", raw)
        if body is not None:
            headers["Content-Type"] = "application/json"
        kwargs = {"body": raw} if body is not None else {}
        return getattr(api, method.lower())(path, headers=headers, **kwargs)

    def work(until, timeout_s: float = 30) -> None:
        deadline = time.monotonic() + timeout_s
        while not until():
            assert time.monotonic() < deadline, "the delivery did not settle in time"
            if runner.poll_once(source) == 0:
                time.sleep(0.2)

    assert signed("PUT", "/api/v1/webhooks/settings", {"url": receiver.url}).status_code == 200
    yield {"signed": signed, "work": work, "tenant": tenant}
    settings.load_settings.cache_clear()


def _delivery(delivery_id: str) -> dict:
    record = deliveries.get(delivery_id)
    assert record is not None
    return record


def test_the_test_event_arrives_signed_and_verifies_with_an_independent_library(hooks, receiver):
    queued = hooks["signed"]("POST", "/api/v1/webhooks/test")
    assert queued.status_code == 200, queued.json_body
    event_id, delivery_id = queued.json_body["data"]["id"], queued.json_body["data"]["deliveryId"]
    assert str(uuid.UUID(event_id)) == event_id

    hooks["work"](lambda: _delivery(delivery_id)["status"] == "delivered")
    (got,) = receiver.received
    headers, body = got["headers"], got["body"]
    assert got["path"] == "/hooks/dompet?x=1"
    assert headers["Content-Type"] == "application/json"
    assert headers["X-Service-Event-Id"] == event_id
    envelope = json.loads(body)
    assert set(envelope) == {"apiVersion", "id", "type", "createdAt", "data"}
    assert envelope["apiVersion"] == "2025-06-22" and envelope["id"] == event_id and envelope["type"] == "webhook.test"

    key = hooks["signed"]("GET", "/api/v1/webhooks/public-key").json_body["data"]
    raw_key = base64.b64decode(key["publicKey"])
    assert len(raw_key) == 32 and headers["X-Service-Key-Id"] == key["keyId"]
    signed_content = f"{event_id}.{headers['X-Service-Timestamp']}.".encode() + body
    # `cryptography` (OpenSSL), not the PyNaCl code that signed: raises if the signature is wrong.
    Ed25519PublicKey.from_public_bytes(raw_key).verify(base64.b64decode(headers["X-Service-Signature"]), signed_content)
    assert verify_script.verify(
        key["publicKey"], event_id, headers["X-Service-Timestamp"], body, headers["X-Service-Signature"]
    )
    assert not verify_script.verify(
        key["publicKey"], event_id, headers["X-Service-Timestamp"], body + b" ", headers["X-Service-Signature"]
    )

    record = _delivery(delivery_id)
    assert record["attempts"] == 1 and record["lastResponseStatus"] == 200 and record["deliveredAt"]


def test_the_node_snippet_in_the_docs_verifies_a_real_delivery(hooks, receiver, tmp_path):
    import re
    import subprocess

    snippet = re.search(r"```js\n(.*?)```", (ROOT / "docs" / "webhooks.md").read_text(), re.S).group(1)
    delivery_id = hooks["signed"]("POST", "/api/v1/webhooks/test").json_body["data"]["deliveryId"]
    hooks["work"](lambda: _delivery(delivery_id)["status"] == "delivered")
    (got,) = receiver.received
    key = hooks["signed"]("GET", "/api/v1/webhooks/public-key").json_body["data"]["publicKey"]
    headers = {k.lower(): v for k, v in got["headers"].items()}
    script = tmp_path / "verify.mjs"
    script.write_text(
        snippet
        + "\nconst [key, headers, body] = JSON.parse(process.argv[2]);\n"
        + "const ok = verifyDompet(key, headers, Buffer.from(body, 'base64'));\n"
        + "const bad = verifyDompet(key, headers, Buffer.concat([Buffer.from(body, 'base64'), Buffer.from(' ')]));\n"
        + "console.log(JSON.stringify([ok, bad]));\n"
    )
    arg = json.dumps([key, headers, base64.b64encode(got["body"]).decode()])
    out = subprocess.run(["node", str(script), arg], capture_output=True, text=True, check=True, timeout=30).stdout
    assert json.loads(out) == [True, False]


def test_a_receiver_failing_twice_gets_the_same_event_three_times(hooks, receiver):
    receiver.script = [500, 500]
    delivery_id = hooks["signed"]("POST", "/api/v1/webhooks/test").json_body["data"]["deliveryId"]
    hooks["work"](lambda: _delivery(delivery_id)["status"] != "pending")
    record = _delivery(delivery_id)
    assert record["status"] == "delivered" and record["attempts"] == 3
    assert [a["responseStatus"] for a in record["log"]] == [500, 500, 200]
    ids = {r["headers"]["X-Service-Event-Id"] for r in receiver.received}
    assert len(receiver.received) == 3 and len(ids) == 1


def test_a_404_fails_after_one_attempt_and_is_dead_lettered(hooks, receiver):
    receiver.script = [404]
    delivery_id = hooks["signed"]("POST", "/api/v1/webhooks/test").json_body["data"]["deliveryId"]
    hooks["work"](lambda: _delivery(delivery_id)["status"] != "pending")
    record = _delivery(delivery_id)
    assert record["status"] == "failed" and record["attempts"] == 1 and record["lastResponseStatus"] == 404
    sqs = aws.client("sqs")
    dlq = sqs.get_queue_url(QueueName=resources.dlq_name("test", "webhook-deliveries"))["QueueUrl"]
    (message,) = sqs.receive_message(QueueUrl=dlq, MaxNumberOfMessages=10).get("Messages", [])
    assert json.loads(message["Body"])["deliveryId"] == delivery_id

    # Retry by hand: the same event id again, from attempt 1.
    again = hooks["signed"]("POST", f"/api/v1/webhooks/deliveries/{delivery_id}/retry")
    assert again.status_code == 200 and again.json_body["data"]["status"] == "pending"
    hooks["work"](lambda: _delivery(delivery_id)["status"] == "delivered")
    assert {r["headers"]["X-Service-Event-Id"] for r in receiver.received} == {record["eventId"]}
    time.sleep(1.1)  # a new timestamp: the same signed request again would be refused as a replay
    done = hooks["signed"]("POST", f"/api/v1/webhooks/deliveries/{delivery_id}/retry")
    assert done.status_code == 409 and done.json_body["data"]["code"] == "DELIVERY_NOT_FAILED"


def test_exhausted_retries_fail(hooks, receiver):
    receiver.script = [503, 503, 503]
    delivery_id = hooks["signed"]("POST", "/api/v1/webhooks/test").json_body["data"]["deliveryId"]
    hooks["work"](lambda: _delivery(delivery_id)["status"] != "pending")
    record = _delivery(delivery_id)
    assert record["status"] == "failed" and record["attempts"] == 3
    assert "duePk" not in record


def test_emitting_an_existing_id_is_a_no_op_and_the_sweeper_queues_what_was_not(hooks, receiver, monkeypatch):
    tenant = hooks["tenant"]
    # The queue is unreachable at emit time (as if the process died after the commit).
    monkeypatch.setattr(deliveries, "enqueue", lambda *a, **k: None)
    event_id = f"invoice.expired:{uuid.uuid4()}"
    delivery_id = unit_of_work.commit(
        Plan(event=Event(tenant.appId, "invoice.expired", event_id, {"appId": tenant.appId}))
    ).delivery_id
    again = unit_of_work.commit(Plan(event=Event(tenant.appId, "invoice.expired", event_id, {"appId": tenant.appId})))
    assert again is not None and not again.event_written and again.delivery_id is None
    assert deliveries.entries(tenant.appId).count() == 1
    monkeypatch.undo()
    monkeypatch.setenv("DOMPET_WEBHOOK_ALLOWLIST", "127.0.0.1/32")
    settings.load_settings.cache_clear()

    from app import app
    from devtools.workers import LocalContext, scheduled_event

    sweep = app.handler_map["sweep_webhooks"]
    sweep(scheduled_event("us-east-1"), LocalContext("sweep_webhooks"))
    sweep(scheduled_event("us-east-1"), LocalContext("sweep_webhooks"))  # queued already: not again
    deliveries.enqueue(delivery_id)  # and a duplicate message (SQS is at least once) is dropped by the claim
    hooks["work"](lambda: _delivery(delivery_id)["status"] == "delivered")
    hooks["work"](lambda: _queue_empty(), timeout_s=10)
    assert [json.loads(r["body"])["id"] for r in receiver.received] == [event_id], "delivered exactly once"


def _queue_empty() -> bool:
    sqs = aws.client("sqs")
    url = sqs.get_queue_url(QueueName=resources.queue_name("test", "webhook-deliveries"))["QueueUrl"]
    attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    return all(
        int(attributes[k]) == 0 for k in ("ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible")
    )


def test_the_host_is_resolved_again_at_delivery_time(hooks, receiver, monkeypatch):
    import socket

    tenant = hooks["tenant"]
    # Registered while the name resolved to a public address; now it points inside (DNS rebinding).
    from chalicelib.webhooks import settings as webhook_settings

    webhook_settings.put(tenant.appId, "https://rebind.example.com/hook", "2026-11-22T00:00:00.000Z")
    monkeypatch.setattr(
        socket,
        "getaddrinfo",
        lambda host, port, *a, **k: [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("10.0.0.5", port))],
    )
    delivery_id = unit_of_work.commit(
        Plan(event=Event(tenant.appId, "webhook.test", str(uuid.uuid4()), {}))
    ).delivery_id
    hooks["work"](lambda: _delivery(delivery_id)["attempts"] >= 1)
    record = _delivery(delivery_id)
    assert record["log"][0]["error"].startswith("refused") and record["log"][0]["responseStatus"] is None
    assert receiver.received == []


def test_deliveries_list_paginates(hooks, receiver):
    for n in range(3):
        if n:
            time.sleep(1.1)  # one signed POST per second: the same one again is a replay
        assert hooks["signed"]("POST", "/api/v1/webhooks/test").status_code == 200
    page = hooks["signed"]("GET", "/api/v1/webhooks/deliveries").json_body["data"]
    assert page["pagination"]["limit"] == 20 and page["pagination"]["total"] == 3 and len(page["data"]) == 3
    first = page["data"][0]
    assert {"id", "eventId", "eventType", "url", "status", "attempts", "createdAt"} <= set(first)
    small = hooks["signed"]("GET", "/api/v1/webhooks/deliveries?page=2&limit=2").json_body["data"]
    assert len(small["data"]) == 1 and small["pagination"]["hasPrev"] is True
    too_big = hooks["signed"]("GET", "/api/v1/webhooks/deliveries?limit=101")
    assert too_big.status_code == 400 and too_big.json_body["data"]["code"] == "VALIDATION_ERROR"


def test_test_event_without_settings_is_409(api, tenant):
    raw = b""
    headers = dompet_sign.signed_headers(tenant.appId, tenant.appSecret, "POST", "http://x/api/v1/webhooks/test", raw)
    response = api.post("/api/v1/webhooks/test", headers=headers)
    assert response.status_code == 409 and response.json_body["data"]["code"] == "WEBHOOK_NOT_CONFIGURED"
