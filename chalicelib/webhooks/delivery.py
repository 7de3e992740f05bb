"""One delivery attempt: sign, POST, record, and decide what comes next.

The request: `POST <url>` with `Content-Type: application/json`, `X-Service-Event-Id`
(the event id), `X-Service-Timestamp` (Unix seconds) and `X-Service-Signature`:
base64 Ed25519 over `{id}.{timestamp}.{raw body}` with the app's key (keys.py).
The host is resolved and checked again (platform/egress.py) and the connection goes
to a checked address, so DNS rebinding cannot reach an internal one; redirects are
not followed. Each attempt has ONE deadline, ATTEMPT_TIMEOUT_S for connect, TLS, send
and read together (cut to what is left of the invocation's budget): a receiver that
trickles bytes is cut off when it passes. The host's checked addresses are tried in
turn until one accepts the connection (nothing is sent twice: once a connection is
made, its outcome is the attempt's).

Outcome: a 2xx is delivered. Network errors, 5xx, 408 and 429 are retried after the
next delay of the schedule (`DOMPET_WEBHOOK_RETRY_SCHEDULE_S`, ±20 % jitter); any
other status fails at once. After the last attempt the delivery is failed and its
message goes to the queue's dead-letter queue. Every attempt is stored as its own item
(`ATTEMPT#<n>` beside the delivery); the delivery keeps the last LOG_KEPT in `log`, so it
never grows towards DynamoDB's 400 KB item limit.

Each attempt first claims the delivery (a conditional write with a lease) and is counted
in that same write, so two messages for one delivery (the sweeper re-queued it, SQS
delivered twice) never produce two attempts at once, only the claimant records the
outcome, and an attempt whose worker died still counts: a delivery whose receiver keeps
a worker busy until it is killed runs out of attempts instead of looping forever.
"""

from __future__ import annotations

import base64
import contextlib
import http.client
import random
import socket
import ssl
import threading
import uuid
from datetime import timedelta
from typing import Any

from chalicelib.platform import aws, clock, deadline, egress
from chalicelib.platform.clock import iso
from chalicelib.platform.logging import logger
from chalicelib.platform.settings import load_settings
from chalicelib.webhooks import keys, outbox

ATTEMPT_TIMEOUT_S = 10  # the whole attempt: connect + TLS + send + read
CLAIM_S = 120  # an attempt's lease; a worker that died frees the delivery after it
LOG_KEPT = 10  # attempts kept inline on the delivery; every attempt also has its own item
MAX_RESPONSE_READ = 4096
RETRYABLE = {408, 429}
USER_AGENT = "Dompet-Webhooks/1"


def sign_headers(app_id: str, event_id: str, body: bytes, timestamp: int | None = None) -> dict[str, str]:
    timestamp = clock.epoch() if timestamp is None else timestamp
    key = keys.app_key(app_id)
    signature = key.sign(f"{event_id}.{timestamp}.".encode() + body)
    return {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "X-Service-Event-Id": event_id,
        "X-Service-Timestamp": str(timestamp),
        "X-Service-Signature": base64.b64encode(signature).decode(),
        "X-Service-Key-Id": key.key_id,
    }


def deliver(delivery_id: str) -> None:
    """The SQS handler's work for one message."""
    delivery = outbox.get_delivery(delivery_id)
    if delivery is None or delivery["status"] != "pending":
        return
    wait = (clock.parse_iso(delivery["nextAttemptAt"]) - clock.now()).total_seconds()
    if wait > 1:
        outbox.enqueue(delivery_id, min(int(wait), 900))  # not due yet (SQS delays are at most 15 min)
        return
    event = outbox.get_event(delivery["eventId"])
    if event is None:
        return
    claimed = _claim(delivery_id)
    if claimed is None:
        return  # another worker has it (a second message for the same delivery): drop this one
    claim, attempts = claimed
    schedule = load_settings().webhook_retry_delays
    status: int | None
    error: str | None
    started = clock.monotonic()
    if attempts > len(schedule) + 1:  # earlier attempts were claimed and never recorded (their worker died)
        status, error = None, "attempts exhausted (an attempt did not finish)"
    else:
        try:
            status, error = _post(delivery["url"], delivery["appId"], delivery["eventId"], event["body"].encode())
        except Exception as exc:  # noqa: BLE001 - whatever went wrong is recorded as a failed attempt, never a crash loop
            status, error = None, type(exc).__name__
    now = clock.now()
    entry = {
        "attempt": attempts,
        "at": iso(now),
        "responseStatus": status,
        "error": error,
        "durationMs": int((clock.monotonic() - started) * 1000),
    }
    update: dict[str, Any] = {"lastAttemptAt": iso(now), "lastResponseStatus": status, "lastError": error}
    if status is not None and 200 <= status < 300:
        update.update(status="delivered", deliveredAt=iso(now), nextAttemptAt=None)
        outcome = "delivered"
    elif (status is None or status >= 500 or status in RETRYABLE) and attempts <= len(schedule):
        delay = schedule[attempts - 1] * random.uniform(0.8, 1.2)  # noqa: S311 - jitter, not security
        update["nextAttemptAt"] = iso(now + timedelta(seconds=delay))
        outcome = "retry"
    else:
        update.update(status="failed", nextAttemptAt=None)
        outcome = "failed"
    log = [*delivery.get("log", []), entry][-LOG_KEPT:]
    _record(delivery_id, update, entry, log, keep_due=outcome == "retry", claim=claim)
    if outcome == "retry":
        outbox.enqueue(delivery_id, min(int(delay), 900))
    elif outcome == "failed":
        _dead_letter(delivery_id)
    logger.info(
        "webhook attempt", extra={"deliveryId": delivery_id, "attempt": attempts, "outcome": outcome, "status": status}
    )


def retry(delivery_id: str) -> bool:
    """Make a failed delivery pending again, due now (POST .../retry); False if it is not failed."""
    now = clock.iso_now()
    again = aws.update(
        "delivery",
        outbox.TABLE,
        _key(delivery_id),
        aws.Changes(
            set={"status": "pending", "attempts": 0, "nextAttemptAt": now, "duePk": outbox.DUE, "dueAt": now},
            remove=["claimToken", "claimUntil"],
        ),
        aws.Condition("#s = :failed", {"#s": "status"}, {":failed": "failed"}),
    )
    try:
        aws.write(again)
    except aws.ConditionFailedError:
        return False
    outbox.enqueue(delivery_id)
    return True


def _key(delivery_id: str) -> dict[str, str]:
    return {"pk": f"DELIVERY#{delivery_id}", "sk": "DELIVERY"}


def _claim(delivery_id: str) -> tuple[str, int] | None:
    """Take the delivery for one attempt (a lease of CLAIM_S) and count the attempt; None if someone else
    holds it. Returns the claim token and the attempt's number."""
    token = uuid.uuid4().hex
    now = clock.now()
    until = iso(now + timedelta(seconds=CLAIM_S))
    take = aws.update(
        "delivery",
        outbox.TABLE,
        _key(delivery_id),
        # dueAt moves past the lease, so the sweeper does not queue it while the attempt runs.
        aws.Changes(set={"claimToken": token, "claimUntil": until, "dueAt": until}, add={"attempts": 1}),
        aws.Condition(
            "#s = :pending AND (attribute_not_exists(claimToken) OR claimUntil < :now)",
            {"#s": "status"},
            {":now": iso(now), ":pending": "pending"},
        ),
    )
    try:
        claimed = aws.write(take, return_new=True)
    except aws.ConditionFailedError:
        return None
    return token, int((claimed or {}).get("attempts", 1))


def _record(
    delivery_id: str, update: dict[str, Any], entry: dict[str, Any], log: list[Any], keep_due: bool, claim: str
) -> None:
    sets = {k: v for k, v in update.items() if v is not None}
    removes = [k for k, v in update.items() if v is None] + ["claimToken", "claimUntil"]
    sets["log"] = log
    if keep_due:
        sets["dueAt"] = update["nextAttemptAt"]
    else:
        removes += ["duePk", "dueAt"]
    only_the_claimant = aws.Condition("claimToken = :claim", values={":claim": claim})
    attempt_item = {"pk": f"DELIVERY#{delivery_id}", "sk": f"ATTEMPT#{int(entry['attempt']):06d}", **entry}
    aws.transact(
        [
            aws.update(
                "delivery", outbox.TABLE, _key(delivery_id), aws.Changes(set=sets, remove=removes), only_the_claimant
            ),
            aws.put("attempt", outbox.TABLE, attempt_item, condition=None),
        ]
    )


def _dead_letter(delivery_id: str) -> None:
    aws.send_message(outbox.QUEUE, {"deliveryId": delivery_id, "reason": "failed"}, dead_letter=True)


def _post(url: str, app_id: str, event_id: str, body: bytes) -> tuple[int | None, str | None]:
    try:
        target = egress.check(url)  # again: the DNS answer may have changed since PUT
    except egress.UrlRefused as exc:
        return None, f"refused: {exc.reason}"
    headers = {**sign_headers(app_id, event_id, body), "Host": _host_header(target)}
    ends_at = clock.monotonic() + deadline.timeout_s(ATTEMPT_TIMEOUT_S, "webhook attempt")
    try:
        connection = _connect(target, ends_at)
    except (OSError, ssl.SSLError) as exc:
        return None, type(exc).__name__
    # The one deadline of the attempt: a watchdog closes the socket when it passes, whatever the receiver does.
    watchdog = threading.Timer(max(0.0, ends_at - clock.monotonic()), _cut, args=(connection,))
    watchdog.start()
    try:
        connection.request("POST", target.path, body=body, headers=headers)
        response = connection.getresponse()
        response.read(MAX_RESPONSE_READ)
        if clock.monotonic() > ends_at:
            return None, "TimeoutError"
        return response.status, None if response.status < 400 else f"HTTP {response.status}"
    except (OSError, http.client.HTTPException, ssl.SSLError, ValueError) as exc:
        return None, "TimeoutError" if clock.monotonic() >= ends_at else type(exc).__name__
    finally:
        watchdog.cancel()
        connection.close()


def _cut(connection: http.client.HTTPConnection) -> None:
    sock = connection.sock
    if sock is not None:
        with contextlib.suppress(OSError):  # already closed
            sock.shutdown(socket.SHUT_RDWR)
        sock.close()


def _connect(target: egress.Target, ends_at: float) -> http.client.HTTPConnection:
    """A connection to the first checked address that accepts one (TLS included), within the deadline."""
    failure: Exception = OSError("no address")
    for address in target.addresses:
        left = ends_at - clock.monotonic()
        if left <= 0:
            raise TimeoutError("attempt deadline passed while connecting")
        connection: http.client.HTTPConnection = (
            http.client.HTTPConnection(str(address), target.port, timeout=left)
            if target.scheme == "http"
            else _PinnedHTTPSConnection(target.host, str(address), target.port, left)
        )
        try:
            connection.connect()
            return connection
        except (OSError, ssl.SSLError) as exc:
            connection.close()
            failure = exc
    raise failure


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    """HTTPS to a checked address, with the certificate checked for the URL's host name."""

    def __init__(self, host: str, address: str, port: int, timeout_s: float) -> None:
        super().__init__(host, port, timeout=timeout_s, context=ssl.create_default_context())
        self._address = address

    def connect(self) -> None:
        sock = socket.create_connection((self._address, self.port), self.timeout)
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)  # type: ignore[attr-defined]


def _host_header(target: egress.Target) -> str:
    default = 443 if target.scheme == "https" else 80
    host = f"[{target.host}]" if ":" in target.host else target.host
    return host if target.port == default else f"{host}:{target.port}"
