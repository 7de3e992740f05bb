"""SQS consumers and schedules: one way to run a Lambda event's work.

A batch is processed record by record with Powertools' BatchProcessor, and the records that
failed are reported back (partial batch response, `ReportBatchItemFailures` on the event
source), so one poison message is retried and dead-lettered alone. Everything runs within
the invocation's time budget (platform/deadline.py): a record that cannot finish in time
fails with a code and goes back to the queue instead of being killed half-way.
"""

from __future__ import annotations

import contextvars
import json
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
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


def sqs_batch_at_once(
    function: str,
    event: Any,
    handle_batch: Callable[[list[dict[str, Any]]], Sequence[BaseException | None]],
    fallback_s: float = DEFAULT_BUDGET_S,
) -> Any:
    """Like `sqs_batch`, for work that takes the whole batch at once (`handle_batch(json bodies)` returns, in order,
    each record's failure or None); the records that failed are reported back in the same partial batch
    response, so one failing record is retried alone."""
    from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
    from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

    records = event.to_dict().get("Records", [])
    outcomes: dict[str, BaseException | None] = {}
    with running_as(function), deadline.budget(deadline.from_lambda_context(event.context, fallback_s)):
        readable: list[tuple[str, dict[str, Any]]] = []
        for record in records:
            try:
                readable.append((record["messageId"], json.loads(record["body"])))
            except ValueError as exc:
                outcomes[record["messageId"]] = exc
        try:
            results = list(handle_batch([body for _, body in readable]))
        except Exception as exc:  # noqa: BLE001 - the whole batch failed: every record goes back to its queue
            results = [exc] * len(readable)
        outcomes.update((message_id, result) for (message_id, _), result in zip(readable, results, strict=True))

        def record_handler(record: SQSRecord) -> None:
            failure = outcomes.get(record.message_id)
            if failure is not None:
                # The record returns to its queue (and, after its redrive count, to the DLQ); say which and why.
                log_failure("message failed", failure, messageId=record.message_id)
                raise failure

        return process_partial_response(
            event=event.to_dict(), record_handler=record_handler, processor=BatchProcessor(event_type=EventType.SQS)
        )


def concurrently(work: Sequence[Callable[[], None]], threads: int) -> list[BaseException | None]:
    """Run each piece of `work` on a pool of `threads`, each in a copy of the caller's context (the invocation's
    budget, the function's name, the log keys); returns each one's exception or None, in order."""

    def run(piece: Callable[[], None]) -> BaseException | None:
        try:
            piece()
        except Exception as exc:  # noqa: BLE001 - reported to the caller, which decides
            return exc
        return None

    if len(work) <= 1 or threads <= 1:
        return [run(piece) for piece in work]
    contexts = [contextvars.copy_context() for _ in work]  # copied here, in the caller's thread
    with ThreadPoolExecutor(min(threads, len(work))) as pool:
        return list(pool.map(lambda context, piece: context.run(run, piece), contexts, work))


def scheduled(function: str, event: Any, work: Callable[[], Any], fallback_s: float = DEFAULT_BUDGET_S) -> None:
    """Run a schedule's work within the invocation's budget."""
    with running_as(function), deadline.budget(deadline.from_lambda_context(event.context, fallback_s)):
        work()
