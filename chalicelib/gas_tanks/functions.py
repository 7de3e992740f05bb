"""The delayed top-up checker."""

from __future__ import annotations

from typing import Any

from chalice import Blueprint

from chalicelib.platform import resources
from chalicelib.platform.consumers import sqs_batch
from chalicelib.platform.settings import load_settings

bp = Blueprint(__name__)


@bp.on_sqs_message(queue=resources.queue_name(load_settings().stage, "topup-checks"), batch_size=10)
def check_top_up(event: Any) -> Any:
    from chalicelib.gas_tanks import checks

    return sqs_batch("check_top_up", event, checks.check)
