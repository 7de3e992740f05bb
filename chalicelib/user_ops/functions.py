"""The user-operation tracker and the schedule that re-queues operations whose tracker went quiet."""

from __future__ import annotations

from typing import Any

from chalice import Blueprint, Rate

from chalicelib.platform import resources
from chalicelib.platform.consumers import scheduled, sqs_batch
from chalicelib.platform.settings import load_settings
from chalicelib.user_ops import settlement

bp = Blueprint(__name__)


@bp.on_sqs_message(queue=resources.queue_name(load_settings().stage, settlement.TRACKER), batch_size=10)
def track_user_op(event: Any) -> Any:
    return sqs_batch("track_user_op", event, settlement.check)


@bp.schedule(Rate(5, unit=Rate.MINUTES))
def requeue_user_ops(event: Any) -> None:
    scheduled("requeue_user_ops", event, settlement.requeue_quiet)
