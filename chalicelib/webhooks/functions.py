"""The webhook delivery consumer and the outbox sweeper."""

from __future__ import annotations

import json
from typing import Any

from chalice import Blueprint, Rate

from chalicelib.platform import resources
from chalicelib.platform.settings import load_settings

bp = Blueprint(__name__)


# The queue's name depends on the stage; the CDK stack points the event source at its own queue.
@bp.on_sqs_message(queue=resources.queue_name(load_settings().stage, "webhook-deliveries"), batch_size=1)
def deliver_webhook(event: Any) -> None:
    from chalicelib.webhooks import delivery

    for message in event:
        delivery.deliver(str(json.loads(message.body)["deliveryId"]))


@bp.schedule(Rate(1, unit=Rate.MINUTES))
def sweep_webhooks(event: Any) -> None:
    from chalicelib.webhooks import outbox

    outbox.sweep()
