"""The delayed check of a top-up sent with immediate=false (SQS `topup-checks`, function `check_top_up`), and
the schedule that queues a check again when its top-up's checks went quiet (function `requeue_top_up_checks`).

Each message names a pending top-up by its transaction and id, with the attempt it is at. The check proves the
top-up on chain again and credits it only once final (the network's confirmations, its block still the chain's),
in one transaction that moves the marker from `pending` (for this top-up) to `credited`, adds to the tank and marks
the record `success`; a message for a top-up that is no longer pending does nothing. While the transaction is
unknown, unconfirmed, or the node is down, the next attempt is queued with a doubling delay; after
`topup_check_attempts` checks, or at once when the chain refutes the top-up, it is marked `failed`.

A pending record is due (platform/followups.py) by the time its next check should have run. The checks of one top-up
are one chain of messages, each carrying the record's `dueAt` as it set it: a check queues its successor only
after it moved `dueAt` on from its own, so a duplicate, or a late message whose record the schedule handed to a
new chain, ends there. The schedule hands back a record past its `dueAt` (its message lost, dead-lettered, or
never sent after the commit) and queues its check at the attempt it was at.
"""

from __future__ import annotations

from typing import Any

from chalicelib.gas_tanks import service, store, verification
from chalicelib.platform import aws, followups
from chalicelib.platform.clock import iso_now
from chalicelib.platform.errors import ApiError
from chalicelib.platform.logging import logger
from chalicelib.platform.networks import registry
from chalicelib.platform.settings import load_settings

OUT_OF_CHECKS = "OUT_OF_CHECKS"
NETWORK_REMOVED = "NETWORK_REMOVED"


def check(body: dict[str, Any]) -> None:
    chain_id, tx_hash, top_up_id = int(body["chainId"]), str(body["txHash"]), str(body["topUpId"])
    attempt = int(body.get("attempt", 1))
    marker = store.get_marker(chain_id, tx_hash)
    if marker is None or marker["state"] != "pending" or marker["topUpId"] != top_up_id:
        return  # credited or failed already, or the top-up never committed: nothing to do
    network = registry().by_chain_id(chain_id)
    if network is None or not network.supports_smart_accounts:
        _fail(marker, chain_id, tx_hash, NETWORK_REMOVED)
        return
    try:
        proven = verification.prove(network, tx_hash, str(body["signature"]), str(body["signedText"]))
        verification.require_final(network, proven)
    except verification.TopUpRefusedError as refused:
        if refused.retryable and attempt < load_settings().topup_check_attempts:
            _again(body, marker, attempt)
        else:
            _fail(marker, chain_id, tx_hash, refused.code if not refused.retryable else OUT_OF_CHECKS)
        return
    except ApiError as error:  # the node is down or answered nonsense: later
        if attempt < load_settings().topup_check_attempts:
            _again(body, marker, attempt)
        else:
            _fail(marker, chain_id, tx_hash, error.code)
        return
    now = iso_now()
    try:
        aws.transact(
            [
                _move_marker(marker, chain_id, tx_hash, "credited"),
                aws.update(
                    "tank",
                    store.TABLE,
                    store.tank_key(str(marker["tankId"])),
                    aws.Changes(
                        add={"balance": service.credited_amount(network, proven.amount)}, set={"updatedAt": now}
                    ),
                    aws.EXISTS,
                ),
                _move_record(marker, {"status": "success", "amount": str(proven.amount), "updatedAt": now}),
            ]
        )
    except aws.TransactionCancelledError as exc:
        if exc.condition_failed("marker"):
            return  # a duplicate message credited it meanwhile
        raise
    logger.info("top-up credited", extra={"tankId": marker["tankId"], "chainId": chain_id, "amount": proven.amount})


def requeue_quiet(limit: int = 100) -> int:
    """The schedule's safety net: queue the check of each pending top-up whose checks went quiet."""

    def queue_again(record: dict[str, Any]) -> None:
        service.CHECKS.send(service.check_message(record))
        logger.warning("top-up check queued again", extra={"topUpId": record["id"]})

    return service.PENDING.sweep(queue_again, limit)


def _again(body: dict[str, Any], marker: dict[str, Any], attempt: int) -> None:
    delay = followups.doubling(max(1, load_settings().topup_check_delay_s), attempt)
    # A message without `due` comes from before records were due: the record enters the index now.
    record = service.PENDING.move_on(
        "record",
        store.record_key(marker),
        body.get("due"),
        delay,
        {"checkAttempt": attempt + 1},
        aws.Condition("#id = :id", {"#id": "id"}, {":id": marker["topUpId"]}),
    )
    if record is None:
        return  # another chain of checks (the schedule's) has this top-up now, or it ended
    service.CHECKS.send(service.check_message(record), delay)


def _fail(marker: dict[str, Any], chain_id: int, tx_hash: str, reason: str) -> None:
    try:
        aws.transact(
            [
                _move_marker(marker, chain_id, tx_hash, "failed"),
                _move_record(marker, {"status": "failed", "failedReason": reason, "updatedAt": iso_now()}),
            ]
        )
    except aws.TransactionCancelledError as exc:
        if exc.condition_failed("marker"):
            return
        raise
    logger.warning("top-up failed", extra={"tankId": marker["tankId"], "chainId": chain_id, "reason": reason})


def _move_marker(marker: dict[str, Any], chain_id: int, tx_hash: str, state: str) -> aws.TxItem:
    return aws.update(
        "marker",
        store.TABLE,
        store.marker_key(chain_id, tx_hash),
        aws.Changes(set={"state": state}),
        aws.Condition(
            "#state = :pending AND topUpId = :id",
            {"#state": "state"},
            {":pending": "pending", ":id": marker["topUpId"]},
        ),
    )


def _move_record(marker: dict[str, Any], changes: dict[str, Any]) -> aws.TxItem:
    """The record's end: no longer due."""
    return aws.update(
        "record",
        store.TABLE,
        store.record_key(marker),
        aws.Changes(set=changes, remove=list(followups.ENDED)),
        aws.Condition(
            "#id = :id AND #status = :pending",
            {"#id": "id", "#status": "status"},
            {":id": marker["topUpId"], ":pending": "pending"},
        ),
    )
