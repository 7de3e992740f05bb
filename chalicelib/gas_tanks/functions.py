"""The delayed top-up confirmation and the schedule that queues a lost one again."""

from __future__ import annotations

from typing import Any

from chalice import Blueprint, Rate

from chalicelib.gas_tanks import confirmations
from chalicelib.platform import resources
from chalicelib.platform.consumers import scheduled, sqs_batch
from chalicelib.platform.settings import load_settings

bp = Blueprint(__name__)


@bp.on_sqs_message(queue=resources.queue_name(load_settings().stage, "topup-checks"), batch_size=10)
def check_top_up(event: Any) -> Any:
    return sqs_batch("check_top_up", event, confirmations.check)


@bp.schedule(Rate(5, unit=Rate.MINUTES))
def requeue_top_up_checks(event: Any) -> None:
    scheduled("requeue_top_up_checks", event, confirmations.requeue_quiet)
