"""Which of the app's Lambda functions the running code serves (its role decides what it may call).

Set at each entry point (the router for the API, the consumers and schedules, the MPC parties); read by the
logger's keys and by the IAM test, which checks every AWS call against that function's grants.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

current_function: ContextVar[str | None] = ContextVar("dompet_function", default=None)


@contextmanager
def running_as(function_name: str) -> Iterator[None]:
    token = current_function.set(function_name)
    try:
        yield
    finally:
        current_function.reset(token)
