"""The webhook delivery consumer, the outbox sweeper and the signing-key rotation."""

from __future__ import annotations

from typing import Any

from chalice import Blueprint, Rate

from chalicelib.platform import outbox, resources
from chalicelib.platform.consumers import scheduled, sqs_batch
from chalicelib.platform.settings import load_settings
from chalicelib.webhooks import delivery, signing_keys

bp = Blueprint(__name__)


# The queue's name depends on the stage; the CDK stack points the event source at its own queue.
@bp.on_sqs_message(queue=resources.queue_name(load_settings().stage, outbox.QUEUE), batch_size=10)
def deliver_webhook(event: Any) -> Any:
    return sqs_batch("deliver_webhook", event, lambda body: delivery.deliver(str(body["deliveryId"])))


@bp.schedule(Rate(1, unit=Rate.MINUTES))
def sweep_webhooks(event: Any) -> None:
    scheduled("sweep_webhooks", event, outbox.sweep)


# The same schedule (and the first deployment's trigger) initialises and rotates the keys.
@bp.schedule(Rate(1, unit=Rate.DAYS))
def rotate_webhook_keys(event: Any) -> None:
    scheduled("rotate_webhook_keys", event, signing_keys.rotate)
