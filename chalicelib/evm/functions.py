"""The transaction tracker's SQS consumer (the tracker: tracking.py)."""

from __future__ import annotations

from typing import Any

from chalice import Blueprint

from chalicelib.evm import tracking
from chalicelib.platform import resources
from chalicelib.platform.consumers import sqs_batch
from chalicelib.platform.settings import load_settings

bp = Blueprint(__name__)


# The queue's name depends on the stage; the CDK stack points the event source at its own queue.
@bp.on_sqs_message(queue=resources.queue_name(load_settings().stage, tracking.QUEUE), batch_size=10)
def track_transaction(event: Any) -> Any:
    return sqs_batch("track_transaction", event, tracking.on_message)
