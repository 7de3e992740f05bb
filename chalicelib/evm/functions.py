"""The transaction tracker's SQS consumer (the tracker: engine.py) and the re-queue of records that went quiet."""

from __future__ import annotations

from typing import Any

from chalicelib.evm import engine, tracking
from chalicelib.platform.consumers import scheduled, sqs_batch


def track_transaction(event: Any) -> Any:
    return sqs_batch("track_transaction", event, engine.on_message)


def requeue_transactions(event: Any) -> None:
    scheduled("requeue_transactions", event, tracking.requeue_quiet)
