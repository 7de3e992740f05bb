"""The delayed check of a top-up sent with immediate=false (SQS `topup-checks`, function `check_top_up`).

Each message names a pending top-up by its transaction and id. The check verifies it on chain, then credits
it in one transaction that moves the marker from `pending` (for this top-up) to `credited`, adds to the tank
and marks the record `success`; a message for a top-up that is no longer pending does nothing. While the
transaction is unknown, unconfirmed, or the node is down, the message is re-queued with a doubling delay;
after `topup_check_attempts` checks, or at once when the chain refutes the top-up, it is marked `failed`.
"""

from __future__ import annotations

from typing import Any

from chalicelib.gas_tanks import service, store, verification
from chalicelib.platform import aws
from chalicelib.platform.clock import iso_now
from chalicelib.platform.errors import ApiError
from chalicelib.platform.logging import logger
from chalicelib.platform.networks import registry
from chalicelib.platform.pagination import sequence_key
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
        verified = verification.verify(network, tx_hash, str(body["signature"]), str(body["signedText"]))
    except verification.TopUpRefusedError as refused:
        if refused.retryable and attempt < load_settings().topup_check_attempts:
            _again(body, attempt)
        else:
            _fail(marker, chain_id, tx_hash, refused.code if not refused.retryable else OUT_OF_CHECKS)
        return
    except ApiError as error:  # the node is down or answered nonsense: later
        if attempt < load_settings().topup_check_attempts:
            _again(body, attempt)
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
                        add={"balance": service.credited_amount(network, verified.amount)}, set={"updatedAt": now}
                    ),
                    aws.EXISTS,
                ),
                _move_record(marker, {"status": "success", "amount": str(verified.amount), "updatedAt": now}),
            ]
        )
    except aws.TransactionCancelledError as exc:
        if exc.condition_failed("marker"):
            return  # a duplicate message credited it meanwhile
        raise
    logger.info("top-up credited", extra={"tankId": marker["tankId"], "chainId": chain_id, "amount": verified.amount})


def _again(body: dict[str, Any], attempt: int) -> None:
    delay = min(service.MAX_CHECK_DELAY_S, max(1, load_settings().topup_check_delay_s) * 2**attempt)
    aws.send_message(service.QUEUE, {**body, "attempt": attempt + 1}, delay_s=delay)


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
    key = {"pk": store.topups(str(marker["tankId"])).list_key, "sk": sequence_key(int(marker["seq"]))}
    return aws.update(
        "record",
        store.TABLE,
        key,
        aws.Changes(set=changes),
        aws.Condition(
            "#id = :id AND #status = :pending",
            {"#id": "id", "#status": "status"},
            {":id": marker["topUpId"], ":pending": "pending"},
        ),
    )
