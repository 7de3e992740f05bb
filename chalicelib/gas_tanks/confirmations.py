"""The delayed confirmation of a top-up sent with immediate=false (SQS `topup-checks`, function `check_top_up`), and
the schedule that queues it again when its top-up's checks went quiet (function `requeue_top_up_checks`).

Each message names a pending top-up by its transaction and id, with the attempt it is at. A check proves the
top-up on chain again and credits it only once final (the network's confirmations, its block still the chain's),
in one transaction that moves the marker from `pending` (for this top-up) to `credited`, adds to the tank and moves
the record to `success`; a message for a top-up that is no longer pending does nothing. While the transaction is
unknown, unconfirmed, or the node gives no answer, the next attempt is queued with a doubling delay; after
`topup_check_attempts` checks, or at once when the chain refutes the top-up, it is `failed` (`judge` decides; the
moves are the tables of models.TopUp and models.TopUpMarker).

A pending record is due (platform/followups.py) by the time its next check should have run. The checks of one top-up
are one chain of messages, each carrying the record's `dueAt` as it set it: a check queues its successor only
after it moved `dueAt` on from its own, so a duplicate, or a late message whose record the schedule handed to a
new chain, ends there. The schedule hands back a record past its `dueAt` (its message lost, dead-lettered, or
never sent after the commit) and queues its check at the attempt it was at.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from chalicelib.evm.rpc import NO_ANSWER
from chalicelib.gas_tanks import alerts, service, store, verification
from chalicelib.gas_tanks.models import TopUp, TopUpMarker
from chalicelib.platform import aws, followups, unit_of_work
from chalicelib.platform.clock import iso_now
from chalicelib.platform.logging import logger
from chalicelib.platform.networks import registry
from chalicelib.platform.settings import load_settings
from chalicelib.platform.transitions import moved, transition
from chalicelib.platform.unit_of_work import Plan

OUT_OF_CHECKS = "OUT_OF_CHECKS"
NETWORK_REMOVED = "NETWORK_REMOVED"


@dataclass(frozen=True)
class Judgement:
    """What one check concludes: credit `amount` (base units of the network's USDT), fail for `failed`, or neither
    (check again later)."""

    amount: int | None = None
    failed: str | None = None


AGAIN = Judgement()


def judge(proof: Callable[[], int], attempt: int, attempts: int) -> Judgement:
    """The check at `attempt` of at most `attempts`, given `proof` (the proven and final amount, or raises as
    verification.prove/require_final do)."""
    try:
        return Judgement(amount=proof())
    except verification.TopUpRefusedError as refused:
        if not refused.retryable:
            return Judgement(failed=refused.code)
        return AGAIN if attempt < attempts else Judgement(failed=OUT_OF_CHECKS)
    except NO_ANSWER as unanswered:  # the node gave no word: later
        return AGAIN if attempt < attempts else Judgement(failed=unanswered.code)


def check(body: dict[str, Any]) -> None:
    chain_id, tx_hash, top_up_id = int(body["chainId"]), str(body["txHash"]), str(body["topUpId"])
    attempt = int(body.get("attempt", 1))
    marker = store.get_marker(chain_id, tx_hash)
    if marker is None or marker.state != "pending" or marker.topUpId != top_up_id:
        return  # credited or failed already, or the top-up never committed: nothing to do
    record = store.get_record(marker.tankId, marker.seq)
    if record is None or record.status != "pending":
        return  # moved with its marker meanwhile
    network = registry().by_chain_id(chain_id)
    if network is None or not network.supports_smart_accounts:
        _fail(marker, record, NETWORK_REMOVED)
        return

    def proof() -> int:
        proven = verification.prove(network, tx_hash, str(body["signature"]), str(body["signedText"]))
        verification.require_final(network, proven)
        return proven.amount

    judgement = judge(proof, attempt, load_settings().topup_check_attempts)
    if judgement.failed is not None:
        _fail(marker, record, judgement.failed)
    elif judgement.amount is None:
        _again(body, record, attempt)
    else:
        _credit(marker, record, service.credited_amount(network, judgement.amount), judgement.amount)


def requeue_quiet(limit: int = 100) -> int:
    """The schedule's safety net: queue the check of each pending top-up whose checks went quiet."""

    def queue_again(record: dict[str, Any]) -> None:
        service.CHECKS.send(service.check_message(record))
        logger.warning("top-up check queued again", extra={"topUpId": record["id"]})

    return service.PENDING.sweep(queue_again, limit)


def _credit(marker: TopUpMarker, record: TopUp, credited: int, amount: int) -> None:
    now = iso_now()
    writes = [
        transition(marker, "credited", expect={"topUpId": marker.topUpId}),
        store.credit(marker.tankId, credited, now),
        transition(record, "success", expect={"id": marker.topUpId}, amount=str(amount), updatedAt=now),
    ]
    stored = {**record.to_item(), "amount": str(amount)}
    app_id = stored.get("appId")  # records made before top-up events have none: no event
    event = alerts.topped_up(str(app_id), marker.tankId, stored, credited) if app_id else None
    try:
        unit_of_work.commit(Plan(items=writes, event=event))
    except aws.TransactionCancelledError as exc:
        if exc.condition_failed(TopUpMarker.machine.name):
            return  # a duplicate message credited it meanwhile
        raise
    logger.info("top-up credited", extra={"tankId": marker.tankId, "chainId": record.chainId, "amount": amount})
    alerts.after_top_up(marker.tankId)


def _again(body: dict[str, Any], record: TopUp, attempt: int) -> None:
    delay = followups.doubling(max(1, load_settings().topup_check_delay_s), attempt)
    changes: dict[str, Any] = {"checkAttempt": attempt + 1, **service.PENDING.due(delay)}
    seen = {"id": record.id, "dueAt": body["due"]}
    try:
        aws.write(transition(record, "pending", expect=seen, **changes))
    except aws.ConditionFailedError:
        return  # another chain of checks (the schedule's) has this top-up now, or it ended
    service.CHECKS.send(service.check_message(moved(record, "pending", **changes).to_item()), delay)


def _fail(marker: TopUpMarker, record: TopUp, reason: str) -> None:
    writes = [
        transition(marker, "failed", expect={"topUpId": marker.topUpId}),
        transition(record, "failed", expect={"id": marker.topUpId}, failedReason=reason, updatedAt=iso_now()),
    ]
    try:
        unit_of_work.commit(Plan(items=writes))
    except aws.TransactionCancelledError as exc:
        if exc.condition_failed(TopUpMarker.machine.name):
            return
        raise
    logger.warning("top-up failed", extra={"tankId": marker.tankId, "chainId": record.chainId, "reason": reason})
