"""The webhook delivery consumer, the sweeper of pending deliveries and the signing-key rotation."""

from __future__ import annotations

from typing import Any

from chalice import Blueprint, Rate

from chalicelib.platform import resources
from chalicelib.platform.consumers import scheduled, sqs_batch_at_once
from chalicelib.platform.settings import load_settings
from chalicelib.webhooks import attempts, deliveries, signing_keys

bp = Blueprint(__name__)


# The queue's name depends on the stage; the CDK stack points the event source at its own queue.
@bp.on_sqs_message(queue=resources.queue_name(load_settings().stage, deliveries.QUEUE), batch_size=10)
def deliver_webhook(event: Any) -> Any:
    return sqs_batch_at_once("deliver_webhook", event, _deliver_batch)


def _deliver_batch(bodies: list[dict[str, Any]]) -> list[BaseException | None]:
    """Every message's delivery at once; a message without a delivery id fails alone (to the DLQ in the end)."""
    ids = [str(b["deliveryId"]) for b in bodies if isinstance(b, dict) and b.get("deliveryId")]
    outcomes = iter(attempts.deliver_all(ids))
    return [
        next(outcomes) if isinstance(b, dict) and b.get("deliveryId") else ValueError("no deliveryId") for b in bodies
    ]


@bp.schedule(Rate(1, unit=Rate.MINUTES))
def sweep_webhooks(event: Any) -> None:
    scheduled("sweep_webhooks", event, deliveries.sweep)


# The same schedule (and the first deployment's trigger) initialises and rotates the keys.
@bp.schedule(Rate(1, unit=Rate.DAYS))
def rotate_webhook_keys(event: Any) -> None:
    scheduled("rotate_webhook_keys", event, signing_keys.rotate)
