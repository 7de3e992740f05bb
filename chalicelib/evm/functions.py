"""The transaction tracker's SQS consumer (the tracker: engine.py) and the re-queue of records that went quiet."""

from __future__ import annotations

from typing import Any

from chalice import Blueprint, Rate

from chalicelib.evm import engine, tracking
from chalicelib.platform import resources
from chalicelib.platform.consumers import scheduled, sqs_batch
from chalicelib.platform.settings import load_settings

bp = Blueprint(__name__)


# The queue's name depends on the stage; the CDK stack points the event source at its own queue.
@bp.on_sqs_message(queue=resources.queue_name(load_settings().stage, engine.QUEUE), batch_size=10)
def track_transaction(event: Any) -> Any:
    return sqs_batch("track_transaction", event, engine.on_message)


@bp.schedule(Rate(5, unit=Rate.MINUTES))
def requeue_transactions(event: Any) -> None:
    scheduled("requeue_transactions", event, tracking.requeue_quiet)
