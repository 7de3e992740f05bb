"""Attempts: one delivery attempt (sign, POST, record, and decide what comes next), and the attempts' own items.

The request: `POST <url>` with `Content-Type: application/json`, `X-Service-Event-Id`
(the event id), `X-Service-Timestamp` (Unix seconds) and `X-Service-Signature`:
base64 Ed25519 over `{id}.{timestamp}.{raw body}` with the app's key (signing_keys.py).
It goes through platform/pinned_http.py: the host is resolved and checked again
(platform/egress.py) and the connection goes to a checked address, so DNS rebinding
cannot reach an internal one; redirects are not followed; the checked addresses are
tried in turn; nothing is sent twice.

One deadline per attempt. ATTEMPT_TIMEOUT_S covers everything: name resolution,
connect, TLS, send and read, whatever the receiver does. The deadline is also cut to
what is left of the invocation's budget (platform/deadline.py), less RECORD_RESERVE_S
to record the outcome; with less than MIN_ATTEMPT_S available, the delivery is not
claimed but queued again for a fresh invocation, so no attempt is spent on a budget
that was already used up by the batch's earlier records.

Outcome: a 2xx is delivered. Network errors, timeouts, 5xx, 408 and 429 are retried
after the next delay of the schedule (`DOMPET_WEBHOOK_RETRY_SCHEDULE_S`, ±20 % jitter:
a fixed, documented schedule rather than platform/retry.py's backoff, which is for the
service's own short loops); any other status (3xx, other 4xx) fails at once. After the
last attempt the delivery is failed and its message goes to the queue's dead-letter
queue. Every attempt is stored as its own item (pk `DELIVERY#<deliveryId>`, sk
`ATTEMPT#<at>#<n>`, beside the delivery, so a manual retry, which counts from 1 again,
never overwrites an earlier one), in the same transaction as the delivery's move
(deliveries.py); the delivery keeps the last LOG_KEPT in `log`, so it never grows towards
DynamoDB's 400 KB item limit.

Each attempt first claims the delivery (deliveries.claim: a conditional move with a
lease) and is counted in that same write, so two messages for one delivery (the sweeper
re-queued it, SQS delivered twice) never produce two attempts at once, only the claimant
records the outcome, and an attempt whose worker died still counts: a delivery whose attempts were
all claimed is failed without another POST, and one whose event is missing is failed
too, so the sweeper never re-queues a delivery forever.
"""

from __future__ import annotations

import base64
import dataclasses
import functools
import random
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from chalicelib.platform import aws, clock, consumers, deadline, followups, pinned_http, unit_of_work
from chalicelib.platform.clock import iso
from chalicelib.platform.logging import logger
from chalicelib.platform.settings import load_settings
from chalicelib.platform.unit_of_work import Plan
from chalicelib.webhooks import deliveries, events, signing_keys
from chalicelib.webhooks.deliveries import DeliveryRecord
from chalicelib.webhooks.store import TABLE

BATCH_CONCURRENCY = 10  # attempts of one SQS batch (its size) made at once
ATTEMPT_TIMEOUT_S = 10.0  # the whole attempt: resolve + connect + TLS + send + read
MIN_ATTEMPT_S = 5.0  # with less than this available, the delivery is queued again instead of attempted
RECORD_RESERVE_S = 2.0  # kept back from the invocation's budget to record the attempt's outcome
LOG_KEPT = 10  # attempts kept inline on the delivery; every attempt also has its own item
MAX_RESPONSE_READ = 4096
RETRYABLE = {408, 429}
USER_AGENT = "Dompet-Webhooks/1"
EXHAUSTED = "attempts exhausted (an attempt did not finish)"
EVENT_MISSING = "event not found"


def sign_headers(app_id: str, event_id: str, body: bytes, timestamp: int | None = None) -> dict[str, str]:
    timestamp = clock.epoch() if timestamp is None else timestamp
    key = signing_keys.app_key(app_id)
    signature = key.sign(f"{event_id}.{timestamp}.".encode() + body)
    return {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "X-Service-Event-Id": event_id,
        "X-Service-Timestamp": str(timestamp),
        "X-Service-Signature": base64.b64encode(signature).decode(),
        "X-Service-Key-Id": key.key_id,
    }


def deliver_all(delivery_ids: Sequence[str]) -> list[BaseException | None]:
    """The SQS handler's work for one batch: the deliveries and their events read in two batch reads, the ones due
    claimed in one transaction (each alone when another worker holds any), then every claimed delivery attempted
    at once (each with its own deadline and record, as `deliver`); each message's failure or None, in order.
    Deliveries carry no order between them (receivers deduplicate by event id), so one slow receiver never holds
    up the others."""
    found = deliveries.get_many(list(delivery_ids))
    stored = events.get_many(str(item["eventId"]) for item in found.values())
    failures: dict[str, BaseException] = {}
    ready: dict[str, _Ready] = {}
    for delivery_id in dict.fromkeys(delivery_ids):
        item = found.get(delivery_id)
        try:
            record = DeliveryRecord.from_item(item) if item else None
            prepared = _ready(delivery_id, record, stored.get(record.eventId) if record else None)
        except Exception as exc:  # noqa: BLE001 - this message fails alone
            failures[delivery_id] = exc
            continue
        if prepared is not None:
            ready[delivery_id] = prepared
    try:
        claims = _claim_all(ready)
    except Exception as exc:  # noqa: BLE001 - none was claimed: every message goes back to the queue
        failures.update((i, exc) for i in ready)
        claims = {}
    claimed = [i for i in ready if i in claims]
    attempted = consumers.concurrently(
        [functools.partial(_attempt, ready[i], claims[i]) for i in claimed], BATCH_CONCURRENCY
    )
    failures.update((i, exc) for i, exc in zip(claimed, attempted, strict=True) if exc is not None)
    return [failures.get(i) for i in delivery_ids]


@dataclasses.dataclass(frozen=True)
class _Ready:
    """A delivery that is pending, due, has its event and attempts left, and time to make one."""

    delivery: DeliveryRecord
    event: dict[str, Any]
    budget_s: float


def deliver(delivery_id: str) -> None:
    """The work for one message: check, claim, attempt, record."""
    record = deliveries.read(delivery_id)
    if record is None or record.status != "pending":
        return
    ready = _ready(delivery_id, record, events.get(record.eventId))
    if ready is None:
        return
    claimed = _claim(ready.delivery)
    if claimed is not None:  # else another worker has it (a second message for the same delivery): drop this one
        _attempt(ready, claimed)


def _ready(delivery_id: str, record: DeliveryRecord | None, event: dict[str, Any] | None) -> _Ready | None:
    """The delivery when an attempt is to be made now; None when not (not pending; queued again for later;
    given up)."""
    if record is None or record.status != "pending":
        return None
    wait = (clock.parse_iso(str(record.nextAttemptAt)) - clock.now()).total_seconds()
    if wait > 1:
        deliveries.enqueue(delivery_id, followups.capped(wait))  # not due yet: looked at again, at most SQS's delay
        return None
    if event is None:
        _give_up(record, EVENT_MISSING)  # cannot happen (one transaction wrote both); never loop on it
        return None
    if record.attempts >= len(load_settings().webhook_retry_delays) + 1:
        _give_up(record, EXHAUSTED)  # the last attempt was claimed and its worker died
        return None
    budget_s = _attempt_budget_s()
    if budget_s is None:
        logger.info("no time left for a webhook attempt; queued again", extra={"deliveryId": delivery_id})
        deliveries.enqueue(delivery_id)  # unclaimed, so if this fails the sweeper queues it
        return None
    return _Ready(record, event, budget_s)


def _attempt(ready: _Ready, claimed: DeliveryRecord) -> None:
    """One claimed attempt: POST, record the outcome, then queue the retry or dead-letter the failure."""
    event = ready.event
    schedule = load_settings().webhook_retry_delays
    allowed = len(schedule) + 1
    attempts = claimed.attempts
    status: int | None
    error: str | None
    started = clock.monotonic()
    if attempts > allowed:  # a claim made meanwhile used the last attempt
        status, error = None, EXHAUSTED
    else:
        try:
            status, error = _post(claimed.url, claimed.appId, claimed.eventId, event["body"].encode(), ready.budget_s)
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
    delay = 0.0
    if status is not None and 200 <= status < 300:
        to, outcome = "delivered", "delivered"
        update.update(deliveredAt=iso(now), nextAttemptAt=None)
    elif (status is None or status >= 500 or status in RETRYABLE) and attempts <= len(schedule):
        delay = schedule[attempts - 1] * random.uniform(0.8, 1.2)  # noqa: S311 - jitter, not security
        to, outcome = "pending", "retry"
        later = iso(now + timedelta(seconds=delay))
        update.update(nextAttemptAt=later, dueAt=later)  # the sweeper queues it if the retry's message is lost
    else:
        to, outcome = "failed", "failed"
        update["nextAttemptAt"] = None
    update["log"] = [*claimed.log, entry][-LOG_KEPT:]
    if not _record(claimed, to, update, entry):
        return
    if outcome == "retry":
        deliveries.enqueue(claimed.id, followups.capped(delay))
    elif outcome == "failed":
        _dead_letter(claimed.id)
    logger.info(
        "webhook attempt", extra={"deliveryId": claimed.id, "attempt": attempts, "outcome": outcome, "status": status}
    )


def _attempt_budget_s() -> float | None:
    """The attempt's deadline: ATTEMPT_TIMEOUT_S, cut to the invocation's budget less RECORD_RESERVE_S; None when
    that leaves less than MIN_ATTEMPT_S."""
    left = deadline.remaining_s()
    if left is None:
        return ATTEMPT_TIMEOUT_S
    usable = min(ATTEMPT_TIMEOUT_S, left - RECORD_RESERVE_S)
    return usable if usable >= min(MIN_ATTEMPT_S, ATTEMPT_TIMEOUT_S) else None


def _claim(record: DeliveryRecord) -> DeliveryRecord | None:
    """Take the delivery for one attempt and count the attempt (deliveries.claim); None if someone else holds it
    or it moved since it was read. Returns the delivery as claimed."""
    claim = deliveries.claim(record)
    if claim is None:
        return None
    take, claimed = claim
    try:
        aws.write(take)
    except aws.ConditionFailedError:
        return None
    return claimed


def _claim_all(ready: dict[str, _Ready]) -> dict[str, DeliveryRecord]:
    """Claims of several deliveries in one transaction (each attempt counted, as `_claim` does, at the count the
    batch read); when any of them is not claimable (another worker holds it, or it moved), each is claimed on its
    own. Returns each delivery claimed, as claimed."""
    claims = {i: deliveries.claim(r.delivery) for i, r in ready.items()} if len(ready) > 1 else {}
    held = {i: c for i, c in claims.items() if c is not None}
    if not held or len(held) < len(ready):
        return _claim_each(ready)
    # One transaction: its items need distinct names (every move is named after the machine).
    items = [dataclasses.replace(take, name=f"claim-{n}") for n, (take, _) in enumerate(held.values())]
    try:
        aws.transact(items)
    except aws.TransactionCancelledError:
        return _claim_each(ready)
    return {i: claimed for i, (_, claimed) in held.items()}


def _claim_each(ready: dict[str, _Ready]) -> dict[str, DeliveryRecord]:
    return {i: c for i, r in ready.items() if (c := _claim(r.delivery)) is not None}


def _give_up(record: DeliveryRecord, reason: str) -> None:
    """Fail a pending delivery that must not be attempted again (no live claim, attempts as read), and dead-letter
    it; nothing if it changed meanwhile."""
    stop = deliveries.give_up(record, reason)
    if stop is None:
        return  # claimed meanwhile: its new owner decides
    try:
        aws.write(stop)
    except aws.ConditionFailedError:
        return  # claimed, retried or finished meanwhile: its new owner decides
    _dead_letter(record.id)
    logger.warning("webhook delivery failed without an attempt", extra={"deliveryId": record.id, "reason": reason})


def attempt_key(delivery_id: str, at: str, attempt: int) -> dict[str, str]:
    """An attempt's item, keyed by time first: a manual retry numbers its attempts from 1 again, and must not
    overwrite older ones."""
    return {"pk": f"DELIVERY#{delivery_id}", "sk": f"ATTEMPT#{at}#{attempt:06d}"}


def _record(claimed: DeliveryRecord, to: str, update: dict[str, Any], entry: dict[str, Any]) -> bool:
    """Store the attempt's outcome if this worker still holds the claim (False, nothing written, if its lease
    lapsed and another worker took the delivery: the new claimant's attempt decides)."""
    sets = {k: v for k, v in update.items() if v is not None}
    removes = [k for k, v in update.items() if v is None]
    attempt_item = {**attempt_key(claimed.id, str(entry["at"]), int(entry["attempt"])), **entry}
    outcome = Plan(
        items=[
            deliveries.outcome(claimed, to, remove=removes, **sets),
            aws.put("attempt", TABLE, attempt_item, condition=None),
        ]
    )
    try:
        unit_of_work.commit(outcome, on_busy=aws.ItemBusyError)
    except aws.TransactionCancelledError as exc:
        if not exc.condition_failed(DeliveryRecord.machine.name):
            raise
        logger.warning(
            "webhook attempt not recorded: its claim was taken over",
            extra={"deliveryId": claimed.id, "attempt": entry["attempt"]},
        )
        return False
    return True


def _dead_letter(delivery_id: str) -> None:
    aws.send_message(deliveries.QUEUE, {"deliveryId": delivery_id, "reason": "failed"}, dead_letter=True)


def _post(
    url: str, app_id: str, event_id: str, body: bytes, budget_s: float | None = None
) -> tuple[int | None, str | None]:
    """One attempt within one deadline (`budget_s`, by default ATTEMPT_TIMEOUT_S): (status, None) or
    (status or None, error). Signed once the URL passed the egress check."""
    return pinned_http.post(
        url,
        body,
        lambda: sign_headers(app_id, event_id, body),
        timeout_s=ATTEMPT_TIMEOUT_S if budget_s is None else budget_s,
        max_read=MAX_RESPONSE_READ,
    )
