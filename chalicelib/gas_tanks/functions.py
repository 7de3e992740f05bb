"""The delayed top-up confirmation and the schedule that queues a lost one again."""

from __future__ import annotations

from typing import Any

from chalicelib.gas_tanks import confirmations
from chalicelib.platform.consumers import scheduled, sqs_batch


def check_top_up(event: Any) -> Any:
    return sqs_batch("check_top_up", event, confirmations.check)


def requeue_top_up_checks(event: Any) -> None:
    scheduled("requeue_top_up_checks", event, confirmations.requeue_quiet)
