"""The user-operation tracker and the schedule that re-queues operations whose tracker went quiet."""

from __future__ import annotations

from typing import Any

from chalicelib.platform.consumers import scheduled, sqs_batch
from chalicelib.user_ops import settlement


def track_user_op(event: Any) -> Any:
    return sqs_batch("track_user_op", event, settlement.check)


def requeue_user_ops(event: Any) -> None:
    scheduled("requeue_user_ops", event, settlement.requeue_quiet)
