"""One delivery attempt: sign, POST, record, and decide what comes next.

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
queue. Every attempt is stored as its own item (`ATTEMPT#<at>#<n>` beside the delivery,
so a manual retry, which counts from 1 again, never overwrites an earlier one); the
delivery keeps the last LOG_KEPT in `log`, so it never grows towards DynamoDB's 400 KB
item limit.

Each attempt first claims the delivery (a conditional write with a lease) and is counted
in that same write, so two messages for one delivery (the sweeper re-queued it, SQS
delivered twice) never produce two attempts at once, only the claimant records the
outcome, and an attempt whose worker died still counts: a delivery whose attempts were
all claimed is failed without another POST, and one whose event is missing is failed
too, so the sweeper never re-queues a delivery forever.
"""

from __future__ import annotations

import base64
import functools
import random
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from chalicelib.platform import aws, clock, consumers, deadline, due, followups, outbox, pinned_http, unit_of_work
from chalicelib.platform.clock import iso
from chalicelib.platform.logging import logger
from chalicelib.platform.settings import load_settings
from chalicelib.platform.unit_of_work import Plan
from chalicelib.webhooks import signing_keys

BATCH_CONCURRENCY = 10  # attempts of one SQS batch (its size) made at once
ATTEMPT_TIMEOUT_S = 10.0  # the whole attempt: resolve + connect + TLS + send + read
MIN_ATTEMPT_S = 5.0  # with less than this available, the delivery is queued again instead of attempted
RECORD_RESERVE_S = 2.0  # kept back from the invocation's budget to record the attempt's outcome
CLAIM_S = 120  # an attempt's lease; a worker that died frees the delivery after it
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
    deliveries, events = outbox.deliveries_and_events(list(delivery_ids))
    failures: dict[str, BaseException] = {}
    ready: dict[str, _Ready] = {}
    for delivery_id in dict.fromkeys(delivery_ids):
        found = deliveries.get(delivery_id)
        try:
            prepared = _ready(delivery_id, found, events.get(str(found["eventId"])) if found else None)
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


@dataclass(frozen=True)
class _Ready:
    """A delivery that is pending, due, has its event and attempts left, and time to make one."""

    delivery_id: str
    delivery: dict[str, Any]
    event: dict[str, Any]
    budget_s: float


def deliver(delivery_id: str) -> None:
    """The work for one message: check, claim, attempt, record."""
    delivery = outbox.get_delivery(delivery_id)
    if delivery is None or delivery["status"] != "pending":
        return
    ready = _ready(delivery_id, delivery, outbox.get_event(str(delivery["eventId"])))
    if ready is None:
        return
    claimed = _claim(delivery_id)
    if claimed is not None:  # else another worker has it (a second message for the same delivery): drop this one
        _attempt(ready, claimed)


def _ready(delivery_id: str, delivery: dict[str, Any] | None, event: dict[str, Any] | None) -> _Ready | None:
    """The delivery when an attempt is to be made now; None when not (not pending; queued again for later;
    given up)."""
    if delivery is None or delivery["status"] != "pending":
        return None
    wait = (clock.parse_iso(delivery["nextAttemptAt"]) - clock.now()).total_seconds()
    if wait > 1:
        outbox.enqueue(delivery_id, followups.capped(wait))  # not due yet: looked at again, at most SQS's delay
        return None
    if event is None:
        _give_up(delivery, EVENT_MISSING)  # cannot happen (one transaction wrote both); never loop on it
        return None
    if int(delivery.get("attempts", 0)) >= len(load_settings().webhook_retry_delays) + 1:
        _give_up(delivery, EXHAUSTED)  # the last attempt was claimed and its worker died
        return None
    budget_s = _attempt_budget_s()
    if budget_s is None:
        logger.info("no time left for a webhook attempt; queued again", extra={"deliveryId": delivery_id})
        outbox.enqueue(delivery_id)  # unclaimed, so if this fails the sweeper queues it
        return None
    return _Ready(delivery_id, delivery, event, budget_s)


def _attempt(ready: _Ready, claimed: tuple[str, int]) -> None:
    """One claimed attempt: POST, record the outcome, then queue the retry or dead-letter the failure."""
    delivery_id, delivery, event = ready.delivery_id, ready.delivery, ready.event
    schedule = load_settings().webhook_retry_delays
    allowed = len(schedule) + 1
    claim, attempts = claimed
    status: int | None
    error: str | None
    started = clock.monotonic()
    if attempts > allowed:  # a claim that raced ours used the last attempt
        status, error = None, EXHAUSTED
    else:
        try:
            status, error = _post(
                delivery["url"], delivery["appId"], delivery["eventId"], event["body"].encode(), ready.budget_s
            )
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
    if not _record(delivery_id, update, entry, log, keep_due=outcome == "retry", claim=claim):
        return
    if outcome == "retry":
        outbox.enqueue(delivery_id, followups.capped(delay))
    elif outcome == "failed":
        _dead_letter(delivery_id)
    logger.info(
        "webhook attempt", extra={"deliveryId": delivery_id, "attempt": attempts, "outcome": outcome, "status": status}
    )


def retry(delivery_id: str, url: str) -> bool:
    """Make a failed delivery pending again, due now, to the app's URL as it is now (a URL replaced since, perhaps
    because it was compromised, gets nothing more): POST .../retry; False if it is not failed."""
    due_now = due.due_in(0)  # the sweeper queues it if its message is lost
    again = aws.update(
        "delivery",
        outbox.TABLE,
        _key(delivery_id),
        aws.Changes(
            set={"status": "pending", "attempts": 0, "url": url, "nextAttemptAt": due_now["dueAt"], **due_now},
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


def _attempt_budget_s() -> float | None:
    """The attempt's deadline: ATTEMPT_TIMEOUT_S, cut to the invocation's budget less RECORD_RESERVE_S; None when
    that leaves less than MIN_ATTEMPT_S."""
    left = deadline.remaining_s()
    if left is None:
        return ATTEMPT_TIMEOUT_S
    usable = min(ATTEMPT_TIMEOUT_S, left - RECORD_RESERVE_S)
    return usable if usable >= min(MIN_ATTEMPT_S, ATTEMPT_TIMEOUT_S) else None


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


def _claim_all(ready: Mapping[str, _Ready]) -> dict[str, tuple[str, int]]:
    """Claims of several deliveries in one transaction (each attempt counted, as `_claim` does, at the count the
    batch read); when any of them is not claimable (another worker holds it, or it moved), each is claimed on its
    own. Returns the claim token and the attempt's number of each delivery claimed."""
    if len(ready) <= 1:
        return {i: c for i in ready if (c := _claim(i)) is not None}
    now = clock.now()
    until = iso(now + timedelta(seconds=CLAIM_S))
    tokens = {i: uuid.uuid4().hex for i in ready}
    items = [
        aws.update(
            f"claim-{n}",
            outbox.TABLE,
            _key(i),
            aws.Changes(set={"claimToken": tokens[i], "claimUntil": until, "dueAt": until}, add={"attempts": 1}),
            aws.Condition(
                "#s = :pending AND #n = :seen AND (attribute_not_exists(claimToken) OR claimUntil < :now)",
                {"#s": "status", "#n": "attempts"},
                {":pending": "pending", ":seen": int(r.delivery.get("attempts", 0)), ":now": iso(now)},
            ),
        )
        for n, (i, r) in enumerate(ready.items())
    ]
    try:
        aws.transact(items)
    except aws.TransactionCancelledError:
        return {i: c for i in ready if (c := _claim(i)) is not None}
    return {i: (tokens[i], int(r.delivery.get("attempts", 0)) + 1) for i, r in ready.items()}


def _give_up(delivery: dict[str, Any], reason: str) -> None:
    """Fail a pending delivery that must not be attempted again (no live claim, attempts as read), and dead-letter
    it; nothing if it changed meanwhile."""
    delivery_id = str(delivery["id"])
    stop = aws.update(
        "delivery",
        outbox.TABLE,
        _key(delivery_id),
        aws.Changes(
            set={"status": "failed", "lastError": reason},
            remove=["nextAttemptAt", *followups.ENDED, "claimToken", "claimUntil"],
        ),
        aws.Condition(
            "#s = :pending AND #n = :seen AND (attribute_not_exists(claimToken) OR claimUntil < :now)",
            {"#s": "status", "#n": "attempts"},
            {":pending": "pending", ":seen": int(delivery.get("attempts", 0)), ":now": clock.iso_now()},
        ),
    )
    try:
        aws.write(stop)
    except aws.ConditionFailedError:
        return  # claimed, retried or finished meanwhile: its new owner decides
    _dead_letter(delivery_id)
    logger.warning("webhook delivery failed without an attempt", extra={"deliveryId": delivery_id, "reason": reason})


def _record(
    delivery_id: str, update: dict[str, Any], entry: dict[str, Any], log: list[Any], keep_due: bool, claim: str
) -> bool:
    """Store the attempt's outcome if this worker still holds the claim (False, nothing written, if its lease
    lapsed and another worker took the delivery: the new claimant's attempt decides)."""
    sets = {k: v for k, v in update.items() if v is not None}
    removes = [k for k, v in update.items() if v is None] + ["claimToken", "claimUntil"]
    sets["log"] = log
    if keep_due:
        sets["dueAt"] = update["nextAttemptAt"]
    else:
        removes += followups.ENDED
    only_the_claimant = aws.Condition("claimToken = :claim", values={":claim": claim})
    # Keyed by time first: a manual retry numbers its attempts from 1 again, and must not overwrite older ones.
    attempt_sk = f"ATTEMPT#{entry['at']}#{int(entry['attempt']):06d}"
    attempt_item = {"pk": f"DELIVERY#{delivery_id}", "sk": attempt_sk, **entry}
    outcome = Plan(
        items=[
            aws.update(
                "delivery", outbox.TABLE, _key(delivery_id), aws.Changes(set=sets, remove=removes), only_the_claimant
            ),
            aws.put("attempt", outbox.TABLE, attempt_item, condition=None),
        ]
    )
    try:
        unit_of_work.commit(outcome, on_busy=aws.ItemBusyError)
    except aws.TransactionCancelledError as exc:
        if not exc.condition_failed("delivery"):
            raise
        logger.warning(
            "webhook attempt not recorded: its claim was taken over",
            extra={"deliveryId": delivery_id, "attempt": entry["attempt"]},
        )
        return False
    return True


def _dead_letter(delivery_id: str) -> None:
    aws.send_message(outbox.QUEUE, {"deliveryId": delivery_id, "reason": "failed"}, dead_letter=True)


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
