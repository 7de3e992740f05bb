"""One delivery attempt: sign, POST, record, and decide what comes next.

The request: `POST <url>` with `Content-Type: application/json`, `X-Service-Event-Id`
(the event id), `X-Service-Timestamp` (Unix seconds) and `X-Service-Signature`:
base64 Ed25519 over `{id}.{timestamp}.{raw body}` with the app's key (keys.py).
The host is resolved and checked again (platform/egress.py) and the connection goes
to a checked address, so DNS rebinding cannot reach an internal one; redirects are
not followed; each attempt has ATTEMPT_TIMEOUT_S.

Outcome: a 2xx is delivered. Network errors, 5xx, 408 and 429 are retried after the
next delay of the schedule (`DOMPET_WEBHOOK_RETRY_SCHEDULE_S`, ±20 % jitter); any
other status fails at once. After the last attempt the delivery is failed and its
message goes to the queue's dead-letter queue. Every attempt is appended to `log`.

Each attempt first claims the delivery (a conditional write with a lease), so two
messages for one delivery (the sweeper re-queued it, SQS delivered twice) never
produce two attempts at once, and only the claimant records the outcome.
"""

from __future__ import annotations

import base64
import http.client
import random
import socket
import ssl
import time
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from chalicelib.platform import aws, egress
from chalicelib.platform.clock import iso
from chalicelib.platform.logging import logger
from chalicelib.platform.settings import load_settings
from chalicelib.webhooks import keys, outbox

ATTEMPT_TIMEOUT_S = 10  # per connect and per read; the function's own timeout (60 s) is above a whole attempt
CLAIM_S = 120  # an attempt's lease; a worker that died frees the delivery after it
MAX_RESPONSE_READ = 4096
RETRYABLE = {408, 429}
USER_AGENT = "Dompet-Webhooks/1"


def sign_headers(app_id: str, event_id: str, body: bytes, timestamp: int | None = None) -> dict[str, str]:
    timestamp = int(time.time()) if timestamp is None else timestamp
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
    wait = (
        datetime.fromisoformat(delivery["nextAttemptAt"].replace("Z", "+00:00")) - datetime.now(UTC)
    ).total_seconds()
    if wait > 1:
        outbox.enqueue(delivery_id, min(int(wait), 900))  # not due yet (SQS delays are at most 15 min)
        return
    event = outbox.get_event(delivery["eventId"])
    if event is None:
        return
    claim = _claim(delivery_id)
    if claim is None:
        return  # another worker has it (a second message for the same delivery): drop this one
    body = event["body"].encode()
    started = time.monotonic()
    try:
        status, error = _post(delivery["url"], delivery["appId"], delivery["eventId"], body)
    except Exception as exc:  # noqa: BLE001 - whatever went wrong is recorded as a failed attempt, never a crash loop
        status, error = None, type(exc).__name__
    attempts = int(delivery["attempts"]) + 1
    schedule = load_settings().webhook_retry_delays
    now = datetime.now(UTC)
    entry = {
        "attempt": attempts,
        "at": iso(now),
        "responseStatus": status,
        "error": error,
        "durationMs": int((time.monotonic() - started) * 1000),
    }
    update: dict[str, Any] = {
        "attempts": attempts,
        "lastAttemptAt": iso(now),
        "lastResponseStatus": status,
        "lastError": error,
    }
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
    _record(delivery_id, update, entry, keep_due=outcome == "retry", claim=claim)
    if outcome == "retry":
        outbox.enqueue(delivery_id, min(int(delay), 900))
    elif outcome == "failed":
        _dead_letter(delivery_id)
    logger.info(
        "webhook attempt", extra={"deliveryId": delivery_id, "attempt": attempts, "outcome": outcome, "status": status}
    )


def retry(delivery_id: str) -> bool:
    """Make a failed delivery pending again, due now (POST .../retry); False if it is not failed."""
    table = aws.table(outbox.TABLE)
    now = iso(datetime.now(UTC))
    try:
        table.update_item(
            Key={"pk": f"DELIVERY#{delivery_id}", "sk": "DELIVERY"},
            UpdateExpression="SET #s = :pending, attempts = :zero, nextAttemptAt = :now, duePk = :due, dueAt = :now "
            "REMOVE claimToken, claimUntil",
            ConditionExpression="#s = :failed",
            ExpressionAttributeNames={"#s": "status"},
            ExpressionAttributeValues={
                ":pending": "pending",
                ":zero": 0,
                ":now": now,
                ":due": outbox.DUE,
                ":failed": "failed",
            },
        )
    except table.meta.client.exceptions.ConditionalCheckFailedException:
        return False
    outbox.enqueue(delivery_id)
    return True


def _claim(delivery_id: str) -> str | None:
    """Take the delivery for one attempt (a lease of CLAIM_S); None if someone else holds it."""
    table = aws.table(outbox.TABLE)
    token = uuid.uuid4().hex
    now = datetime.now(UTC)
    until = iso(now + timedelta(seconds=CLAIM_S))
    try:
        table.update_item(
            Key={"pk": f"DELIVERY#{delivery_id}", "sk": "DELIVERY"},
            # dueAt moves past the lease, so the sweeper does not queue it while the attempt runs.
            UpdateExpression="SET claimToken = :t, claimUntil = :until, dueAt = :until",
            ConditionExpression="#s = :pending AND (attribute_not_exists(claimToken) OR claimUntil < :now)",
            ExpressionAttributeNames={"#s": "status"},
            ExpressionAttributeValues={":t": token, ":until": until, ":now": iso(now), ":pending": "pending"},
        )
    except table.meta.client.exceptions.ConditionalCheckFailedException:
        return None
    return token


def _record(delivery_id: str, update: dict[str, Any], entry: dict[str, Any], keep_due: bool, claim: str) -> None:
    sets = {k: v for k, v in update.items() if v is not None}
    removes = [k for k, v in update.items() if v is None] + ["claimToken", "claimUntil"]
    if keep_due:
        sets["dueAt"] = update["nextAttemptAt"]
    else:
        removes += ["duePk", "dueAt"]
    expression = "SET " + ", ".join(f"#{k} = :{k}" for k in sets) + ", #log = list_append(#log, :entry)"
    if removes:
        expression += " REMOVE " + ", ".join(f"#{k}" for k in removes)
    names = {f"#{k}": k for k in [*sets, *removes, "log"]}
    values = {f":{k}": v for k, v in sets.items()}
    values[":entry"] = [entry]
    values[":claim"] = claim
    aws.table(outbox.TABLE).update_item(
        Key={"pk": f"DELIVERY#{delivery_id}", "sk": "DELIVERY"},
        UpdateExpression=expression,
        ConditionExpression="claimToken = :claim",  # only the attempt that holds the delivery records it
        ExpressionAttributeNames=names,
        ExpressionAttributeValues=values,
    )


def _dead_letter(delivery_id: str) -> None:
    aws.send_message(outbox.QUEUE, {"deliveryId": delivery_id, "reason": "failed"}, dead_letter=True)


def _post(url: str, app_id: str, event_id: str, body: bytes) -> tuple[int | None, str | None]:
    try:
        target = egress.check(url)  # again: the DNS answer may have changed since PUT
    except egress.UrlRefused as exc:
        return None, f"refused: {exc.reason}"
    headers = {**sign_headers(app_id, event_id, body), "Host": _host_header(target)}
    address = str(target.addresses[0])
    try:
        connection = _connection(target, address)
        try:
            connection.request("POST", target.path, body=body, headers=headers)
            response = connection.getresponse()
            response.read(MAX_RESPONSE_READ)
            return response.status, None if response.status < 400 else f"HTTP {response.status}"
        finally:
            connection.close()
    except (OSError, http.client.HTTPException, ssl.SSLError) as exc:
        return None, type(exc).__name__


def _connection(target: egress.Target, address: str) -> http.client.HTTPConnection:
    if target.scheme == "http":
        return http.client.HTTPConnection(address, target.port, timeout=ATTEMPT_TIMEOUT_S)
    return _PinnedHTTPSConnection(target.host, address, target.port)


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    """HTTPS to a checked address, with the certificate checked for the URL's host name."""

    def __init__(self, host: str, address: str, port: int) -> None:
        super().__init__(host, port, timeout=ATTEMPT_TIMEOUT_S, context=ssl.create_default_context())
        self._address = address

    def connect(self) -> None:
        sock = socket.create_connection((self._address, self.port), self.timeout)
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)  # type: ignore[attr-defined]


def _host_header(target: egress.Target) -> str:
    default = 443 if target.scheme == "https" else 80
    host = f"[{target.host}]" if ":" in target.host else target.host
    return host if target.port == default else f"{host}:{target.port}"
