"""The custody workers: the deposit watcher and the invoice expiry sweep (schedules), the withdrawal sender
(a queue consumer) and the re-queue of withdrawals that went quiet."""

from __future__ import annotations

from typing import Any

from chalicelib.custody.deposits import invoices, watcher
from chalicelib.custody.withdrawals import lifecycle as withdrawals
from chalicelib.custody.withdrawals import worker
from chalicelib.platform import deadline
from chalicelib.platform.consumers import scheduled, sqs_batch
from chalicelib.platform.settings import load_settings


def watch_deposits(event: Any) -> None:
    scheduled(
        "watch_deposits",
        event,
        lambda: watcher.run(lambda: deadline.remaining_s() or 60.0, float(load_settings().watch_loop_s)),
    )


def expire_invoices(event: Any) -> None:
    scheduled("expire_invoices", event, invoices.expire_due)


def send_withdrawals(event: Any) -> Any:
    return sqs_batch("send_withdrawals", event, lambda body: worker.process(str(body["withdrawalId"])))


def requeue_withdrawals(event: Any) -> None:
    scheduled("requeue_withdrawals", event, withdrawals.requeue_stale)
