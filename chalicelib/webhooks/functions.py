"""The webhook delivery consumer, the sweeper of pending deliveries and the signing-key rotation."""

from __future__ import annotations

from typing import Any

from chalicelib.platform.consumers import scheduled, sqs_batch_at_once
from chalicelib.webhooks import attempts, deliveries, signing_keys


def deliver_webhook(event: Any) -> Any:
    return sqs_batch_at_once("deliver_webhook", event, _deliver_batch)


def _deliver_batch(bodies: list[dict[str, Any]]) -> list[BaseException | None]:
    """Every message's delivery at once; a message without a delivery id fails alone (to the DLQ in the end)."""
    ids = [str(b["deliveryId"]) for b in bodies if isinstance(b, dict) and b.get("deliveryId")]
    outcomes = iter(attempts.deliver_all(ids))
    return [
        next(outcomes) if isinstance(b, dict) and b.get("deliveryId") else ValueError("no deliveryId") for b in bodies
    ]


def sweep_webhooks(event: Any) -> None:
    scheduled("sweep_webhooks", event, deliveries.sweep)


# The same schedule (and the first deployment's trigger) initialises and rotates the keys.
def rotate_webhook_keys(event: Any) -> None:
    scheduled("rotate_webhook_keys", event, signing_keys.rotate)
