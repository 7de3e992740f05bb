"""The custody workers: the deposit watcher and the invoice expiry sweep (schedules), the withdrawal sender
(a queue consumer) and the re-queue of withdrawals that went quiet."""

from __future__ import annotations

from typing import Any

from chalice import Blueprint, Rate

from chalicelib.custody.deposits import invoices, watcher
from chalicelib.custody.withdrawals import lifecycle as withdrawals
from chalicelib.custody.withdrawals import worker
from chalicelib.platform import deadline, resources
from chalicelib.platform.consumers import scheduled, sqs_batch
from chalicelib.platform.settings import load_settings

bp = Blueprint(__name__)


@bp.schedule(Rate(1, unit=Rate.MINUTES))
def watch_deposits(event: Any) -> None:
    scheduled(
        "watch_deposits",
        event,
        lambda: watcher.run(lambda: deadline.remaining_s() or 60.0, float(load_settings().watch_loop_s)),
    )


@bp.schedule(Rate(1, unit=Rate.MINUTES))
def expire_invoices(event: Any) -> None:
    scheduled("expire_invoices", event, invoices.expire_due)


@bp.on_sqs_message(queue=resources.queue_name(load_settings().stage, withdrawals.QUEUE), batch_size=1)
def send_withdrawals(event: Any) -> Any:
    return sqs_batch("send_withdrawals", event, lambda body: worker.process(str(body["withdrawalId"])))


@bp.schedule(Rate(5, unit=Rate.MINUTES))
def requeue_withdrawals(event: Any) -> None:
    scheduled("requeue_withdrawals", event, withdrawals.requeue_stale)
