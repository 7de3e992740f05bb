"""Webhook attempts end within their one deadline wherever the receiver stalls (DNS, TCP, TLS), leave time to
record their outcome, and a delivery never stays pending forever."""

from __future__ import annotations

import socket
import threading
import time
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from boto3.dynamodb.conditions import Key

from chalicelib.platform import aws, clock, deadline, egress, settings, unit_of_work
from chalicelib.platform.unit_of_work import Event, Plan
from chalicelib.webhooks import attempts, deliveries, store
from chalicelib.webhooks import settings as webhook_settings


@pytest.fixture
def local_receivers(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    # 192.0.2.0/24 (TEST-NET-1) stands for a public address that never answers.
    monkeypatch.setenv("DOMPET_WEBHOOK_ALLOWLIST", "127.0.0.1/32,192.0.2.0/24")
    settings.load_settings.cache_clear()
    yield
    settings.load_settings.cache_clear()


def _trickler(prefix: bytes, stop_after_s: float) -> Iterator[int]:
    """A server that sends `prefix` then one byte every 0.2 s (each read sees progress), for `stop_after_s`."""
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
                conn.settimeout(0.2)
                ends = time.monotonic() + stop_after_s
                try:
                    conn.sendall(prefix)
                    while not stop.is_set() and time.monotonic() < ends:
                        conn.sendall(b"\x00")
                        time.sleep(0.2)
                except OSError:
                    continue

    threading.Thread(target=serve, daemon=True).start()
    yield server.getsockname()[1]
    stop.set()
    server.close()


@pytest.fixture
def tls_trickler() -> Iterator[int]:
    # A TLS handshake record header announcing 16 KB, then the record a byte at a time.
    yield from _trickler(b"\x16\x03\x03\x40\x00", stop_after_s=6)


@pytest.fixture
def http_trickler() -> Iterator[int]:
    yield from _trickler(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n", stop_after_s=30)


@pytest.fixture
def ok_receiver() -> Iterator[int]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["Content-Length"]))
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1]
    server.shutdown()


def _answers(monkeypatch: pytest.MonkeyPatch, ips: list[str], delay_s: float = 0.0) -> None:
    real = socket.getaddrinfo

    def getaddrinfo(host, port, *args, **kwargs):  # type: ignore[no-untyped-def]
        if host.replace(".", "").isdigit():
            return real(host, port, *args, **kwargs)  # an address (connecting to a checked one)
        time.sleep(delay_s)
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (ip, port)) for ip in ips]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


def test_a_tls_handshake_that_trickles_is_cut_off_at_the_deadline(aws_env, tenant, local_receivers, tls_trickler):
    """The deadline used to start after connect + TLS: a handshake fed a byte at a time ran on and on."""
    original = attempts.ATTEMPT_TIMEOUT_S
    attempts.ATTEMPT_TIMEOUT_S = 1
    try:
        started = time.monotonic()
        status, error = attempts._post(f"https://127.0.0.1:{tls_trickler}/hook", tenant.appId, "evt", b"{}")
    finally:
        attempts.ATTEMPT_TIMEOUT_S = original
    assert status is None and error == "TimeoutError"
    assert time.monotonic() - started < 2.0


def test_a_slow_dns_answer_counts_against_the_attempts_deadline(aws_env, tenant, local_receivers, monkeypatch):
    _answers(monkeypatch, ["127.0.0.1"], delay_s=3)
    monkeypatch.setattr(attempts, "ATTEMPT_TIMEOUT_S", 1)
    started = time.monotonic()
    status, error = attempts._post("http://slow-dns.example.com:9/hook", tenant.appId, "evt", b"{}")
    assert status is None and error
    assert time.monotonic() - started < 2.0


def test_a_slow_dns_answer_is_refused_when_saving_the_url(monkeypatch):
    _answers(monkeypatch, ["93.184.215.14"], delay_s=3)
    started = time.monotonic()
    with pytest.raises(egress.UrlRefused) as refused:
        egress.allowed_target("https://slow-dns.example.com/hook", timeout_s=0.5)
    assert refused.value.code == egress.UNRESOLVABLE
    assert time.monotonic() - started < 1.5


def test_each_address_is_tried_and_a_silent_one_gets_only_its_share(
    aws_env, tenant, local_receivers, ok_receiver, monkeypatch
):
    """The first address used to get the whole deadline: one silent address failed every attempt."""
    _answers(monkeypatch, ["192.0.2.1", "127.0.0.1"])
    real = socket.create_connection
    tried = []

    def create_connection(address, timeout=None, *args, **kwargs):  # type: ignore[no-untyped-def]
        tried.append(address[0])
        if address[0] == "192.0.2.1":  # a black hole: nothing answers until the timeout
            time.sleep(timeout)
            raise TimeoutError("timed out")
        return real(address, timeout, *args, **kwargs)

    monkeypatch.setattr(socket, "create_connection", create_connection)
    monkeypatch.setattr(attempts, "ATTEMPT_TIMEOUT_S", 2)
    started = time.monotonic()
    status, error = attempts._post(f"http://hooks.example.com:{ok_receiver}/hook", tenant.appId, "evt", b"{}")
    assert (status, error) == (200, None)
    assert tried == ["192.0.2.1", "127.0.0.1"]
    assert time.monotonic() - started < 2.0


def _pending_delivery(tenant, monkeypatch: pytest.MonkeyPatch, url: str = "https://hooks.example.com/x") -> str:
    monkeypatch.setattr(deliveries, "enqueue", lambda *a, **k: None)
    webhook_settings.put(tenant.appId, url, clock.iso_now())
    emitted = unit_of_work.commit(Plan(event=Event(tenant.appId, "webhook.test", str(uuid.uuid4()), {})))
    assert emitted.delivery_id
    return emitted.delivery_id


def test_an_attempt_leaves_time_to_record_its_outcome(aws_env, tenant, local_receivers, http_trickler, monkeypatch):
    """The attempt used to take everything left of the budget; recording it then failed with DEADLINE_EXCEEDED
    and the attempt was lost (claimed, counted, never recorded)."""
    delivery_id = _pending_delivery(tenant, monkeypatch, f"http://127.0.0.1:{http_trickler}/hook")
    monkeypatch.setattr(attempts, "MIN_ATTEMPT_S", 0.5, raising=False)
    monkeypatch.setattr(attempts, "RECORD_RESERVE_S", 1.0, raising=False)
    with deadline.budget(3 + deadline.RESERVE_S):  # 3 s: a 2 s attempt, 1 s to record it
        attempts.deliver(delivery_id)
    item = deliveries.get(delivery_id)
    assert item["status"] == "pending" and int(item["attempts"]) == 1
    assert item["lastError"] == "TimeoutError" and [int(e["attempt"]) for e in item["log"]] == [1]


def test_without_time_for_an_attempt_the_delivery_goes_back_to_the_queue_unclaimed(aws_env, tenant, monkeypatch):
    delivery_id = _pending_delivery(tenant, monkeypatch)
    queued: list[str] = []
    monkeypatch.setattr(deliveries, "enqueue", lambda d, delay_s=0: queued.append(d))
    monkeypatch.setattr(attempts, "_post", lambda *a, **k: pytest.fail("no time for an attempt"))
    with deadline.budget(2 + deadline.RESERVE_S):
        attempts.deliver(delivery_id)
    item = deliveries.get(delivery_id)
    assert int(item["attempts"]) == 0 and "claimToken" not in item and queued == [delivery_id]


def test_used_up_attempts_fail_the_delivery_without_a_phantom_attempt(aws_env, tenant, monkeypatch):
    delivery_id = _pending_delivery(tenant, monkeypatch)
    dead: list[str] = []
    monkeypatch.setattr(attempts, "_dead_letter", dead.append)
    monkeypatch.setattr(attempts, "_post", lambda *a, **k: pytest.fail("no attempt is left"))
    allowed = len(settings.load_settings().webhook_retry_delays) + 1
    for _ in range(allowed):  # every attempt claimed, then its worker died
        assert attempts._claim(deliveries.read(delivery_id)) is not None
        clock.travel(deliveries.CLAIM_S + 1)
    attempts.deliver(delivery_id)
    item = deliveries.get(delivery_id)
    assert item["status"] == "failed" and int(item["attempts"]) == allowed
    assert "duePk" not in item and item["lastError"].startswith("attempts exhausted") and dead == [delivery_id]
    assert deliveries.sweep() == 0


def test_a_delivery_whose_event_is_missing_fails_instead_of_waiting_forever(aws_env, tenant, monkeypatch):
    delivery_id = _pending_delivery(tenant, monkeypatch)
    item = deliveries.get(delivery_id)
    aws.table(store.TABLE).delete_item(Key={"pk": f"EVENT#{item['eventId']}", "sk": "EVENT"})
    monkeypatch.setattr(attempts, "_dead_letter", lambda d: None)
    attempts.deliver(delivery_id)
    item = deliveries.get(delivery_id)
    assert item["status"] == "failed" and "duePk" not in item
    clock.travel(3600)
    assert deliveries.sweep() == 0  # the sweeper used to queue it every 5 minutes, forever


def test_an_attempt_whose_claim_was_taken_over_records_nothing_and_does_not_crash(aws_env, tenant, monkeypatch):
    delivery_id = _pending_delivery(tenant, monkeypatch)

    def slow_post(*args: object, **kwargs: object) -> tuple[int, None]:
        clock.travel(deliveries.CLAIM_S + 1)  # this worker stalled past its lease...
        assert attempts._claim(deliveries.read(delivery_id)) is not None  # ...and another one took the delivery
        return 200, None

    monkeypatch.setattr(attempts, "_post", slow_post)
    attempts.deliver(delivery_id)
    item = deliveries.get(delivery_id)
    assert item["status"] == "pending" and int(item["attempts"]) == 2 and item["log"] == []


def test_attempts_of_a_delivery_retried_by_hand_keep_their_own_items(aws_env, tenant, monkeypatch):
    """Attempt items were keyed by the attempt number, which a manual retry starts again from 1."""
    delivery_id = _pending_delivery(tenant, monkeypatch)
    monkeypatch.setattr(attempts, "_dead_letter", lambda d: None)
    monkeypatch.setattr(attempts, "_post", lambda *a, **k: (404, "HTTP 404"))
    attempts.deliver(delivery_id)
    failed = deliveries.read(delivery_id)
    assert failed is not None and deliveries.retry(failed, failed.url)
    clock.travel(1)
    attempts.deliver(delivery_id)
    item = deliveries.get(delivery_id)
    assert item["status"] == "failed" and int(item["attempts"]) == 1
    kept = aws.table(store.TABLE).query(
        KeyConditionExpression=Key("pk").eq(f"DELIVERY#{delivery_id}") & Key("sk").begins_with("ATTEMPT#")
    )["Items"]
    assert len(kept) == 2


def test_the_sweeper_drops_a_finished_delivery_left_in_the_due_index(aws_env, tenant, monkeypatch):
    """Such an item was read (and skipped) by every sweep, forever, taking room in its page of 100."""
    delivery_id = _pending_delivery(tenant, monkeypatch)
    aws.table(store.TABLE).update_item(
        Key={"pk": f"DELIVERY#{delivery_id}", "sk": "DELIVERY"},
        UpdateExpression="SET #s = :d",
        ExpressionAttributeNames={"#s": "status"},
        ExpressionAttributeValues={":d": "delivered"},
    )
    assert deliveries.sweep() == 0
    item = deliveries.get(delivery_id)
    assert item["status"] == "delivered" and "duePk" not in item and "dueAt" not in item
