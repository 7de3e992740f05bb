"""One delivery attempt: one total deadline, attempts counted when claimed, a bounded inline log."""

from __future__ import annotations

import socket
import threading
import time
import uuid

import pytest

from chalicelib.platform import aws, clock, settings, unit_of_work
from chalicelib.platform.unit_of_work import Event, Plan
from chalicelib.webhooks import attempts, deliveries, store
from chalicelib.webhooks import settings as webhook_settings


@pytest.fixture
def trickling_receiver():
    """Answers a byte every 0.2 s, forever: per-read timeouts never fire."""
    server = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            with conn:
                conn.recv(65536)
                for byte in b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n" + b"x" * 1000:
                    if stop.is_set():
                        return
                    try:
                        conn.sendall(bytes([byte]))
                    except OSError:
                        break
                    time.sleep(0.2)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    server.close()


@pytest.fixture
def local_receivers(monkeypatch):
    monkeypatch.setenv("DOMPET_WEBHOOK_ALLOWLIST", "127.0.0.1/32")
    settings.load_settings.cache_clear()
    yield
    settings.load_settings.cache_clear()


def test_a_trickling_receiver_is_cut_off_at_the_attempts_deadline(
    aws_env, tenant, local_receivers, trickling_receiver, monkeypatch
):
    monkeypatch.setattr(attempts, "ATTEMPT_TIMEOUT_S", 1.0)
    started = time.monotonic()
    status, error = attempts._post(f"http://127.0.0.1:{trickling_receiver}/hook", tenant.appId, "evt", b"{}")
    elapsed = time.monotonic() - started
    assert (status, error) == (None, "TimeoutError")
    assert elapsed < 2.5  # one deadline for the whole attempt, not one per read


def _pending_delivery(tenant) -> str:
    webhook_settings.put(tenant.appId, "https://hooks.example.com/x", clock.iso_now())
    emitted = unit_of_work.commit(Plan(event=Event(tenant.appId, "webhook.test", str(uuid.uuid4()), {})))
    assert emitted.delivery_id
    return emitted.delivery_id


def test_attempts_are_counted_when_claimed_so_dead_workers_cannot_loop_forever(aws_env, tenant, monkeypatch):
    """The old attempt was counted only after the POST returned: a worker killed mid-attempt never counted."""
    delivery_id = _pending_delivery(tenant)
    monkeypatch.setattr(deliveries, "enqueue", lambda *a, **k: None)
    posted = []
    monkeypatch.setattr(attempts, "_post", lambda *a: posted.append(1) or (None, "TimeoutError"))
    allowed = len(settings.load_settings().webhook_retry_delays) + 1
    try:
        for n in range(1, allowed + 1):  # every attempt claimed, then its worker "dies" (nothing recorded)
            claimed = attempts._claim(deliveries.read(delivery_id))
            assert claimed is not None and claimed.attempts == n
            clock.travel(deliveries.CLAIM_S + 1)
        attempts.deliver(delivery_id)  # the next message finds the attempts used up
    finally:
        clock.reset()
    item = deliveries.get(delivery_id)
    assert item["status"] == "failed" and posted == []


def test_the_inline_log_is_capped_and_every_attempt_kept_apart(aws_env, tenant, monkeypatch):
    delivery_id = _pending_delivery(tenant)
    monkeypatch.setattr(deliveries, "enqueue", lambda *a, **k: None)
    monkeypatch.setattr(attempts, "_post", lambda *a: (503, "HTTP 503"))
    monkeypatch.setenv("DOMPET_WEBHOOK_RETRY_SCHEDULE_S", ",".join(["1"] * 14))
    settings.load_settings.cache_clear()
    try:
        for _ in range(15):
            clock.travel(5)
            attempts.deliver(delivery_id)
    finally:
        clock.reset()
        settings.load_settings.cache_clear()
    item = deliveries.get(delivery_id)
    assert item["status"] == "failed" and int(item["attempts"]) == 15
    assert [int(e["attempt"]) for e in item["log"]] == list(range(6, 16))
    from boto3.dynamodb.conditions import Key

    kept = aws.table(store.TABLE).query(
        KeyConditionExpression=Key("pk").eq(f"DELIVERY#{delivery_id}") & Key("sk").begins_with("ATTEMPT#")
    )["Items"]
    assert len(kept) == 15
