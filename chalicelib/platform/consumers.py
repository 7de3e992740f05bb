"""SQS consumers and schedules: one way to run a Lambda event's work.

A batch is processed record by record with Powertools' BatchProcessor, and the records that
failed are reported back (partial batch response, `ReportBatchItemFailures` on the event
source), so one poison message is retried and dead-lettered alone. Everything runs within
the invocation's time budget (platform/deadline.py): a record that cannot finish in time
fails with a code and goes back to the queue instead of being killed half-way.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from chalicelib.platform import deadline
from chalicelib.platform.invocation import running_as
from chalicelib.platform.logging import log_failure

DEFAULT_BUDGET_S = 60.0  # when the event carries no Lambda context (tests)


def sqs_batch(
    function: str, event: Any, handle: Callable[[dict[str, Any]], None], fallback_s: float = DEFAULT_BUDGET_S
) -> Any:
    """Run `handle(json body)` for each record of a Chalice SQS event of `function`; returns the partial batch
    response."""
    from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
    from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

    def record_handler(record: SQSRecord) -> None:
        try:
            handle(json.loads(record.body))
        except Exception as exc:
            # The record returns to its queue (and, after its redrive count, to the DLQ); say which and why.
            log_failure("message failed", exc, messageId=record.message_id)
            raise

    with running_as(function), deadline.budget(deadline.from_lambda_context(event.context, fallback_s)):
        return process_partial_response(
            event=event.to_dict(), record_handler=record_handler, processor=BatchProcessor(event_type=EventType.SQS)
        )


def scheduled(function: str, event: Any, work: Callable[[], Any], fallback_s: float = DEFAULT_BUDGET_S) -> None:
    """Run a schedule's work within the invocation's budget."""
    with running_as(function), deadline.budget(deadline.from_lambda_context(event.context, fallback_s)):
        work()
