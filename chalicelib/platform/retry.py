"""The one backoff helper: jittered exponential waits for lost races and transient failures.

AWS calls already retry throttling and 5xx inside botocore (standard retry mode, see aws.py); this is
for the service's own loops: a conditional write that lost a race, a counter that moved, a mailbox poll.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from typing import TypeVar

from chalicelib.platform import deadline

T = TypeVar("T")


def delay_s(attempt: int, base_s: float = 0.01, cap_s: float = 1.0) -> float:
    """Full jitter (AWS Architecture Blog, "Exponential Backoff And Jitter"): uniform in [0, min(cap, base*2^n)]."""
    return random.uniform(0, min(cap_s, base_s * 2 ** min(attempt, 30)))  # noqa: S311 - jitter, not security


def pause(attempt: int, base_s: float = 0.01, cap_s: float = 1.0) -> None:
    wait = delay_s(attempt, base_s, cap_s)
    deadline.require("backoff", need_s=wait)
    time.sleep(wait)


def attempts(count: int, base_s: float = 0.01, cap_s: float = 1.0) -> Iterator[int]:
    """`for attempt in retry.attempts(8): ...; continue` — waits between rounds, never before the first."""
    for attempt in range(count):
        if attempt:
            pause(attempt - 1, base_s, cap_s)
        yield attempt


def call(fn: Callable[[], T], *, retry_on: tuple[type[BaseException], ...], count: int = 5, base_s: float = 0.05) -> T:
    """Call `fn` until it does not raise one of `retry_on`, at most `count` times (the last error propagates)."""
    for attempt in attempts(count, base_s):
        try:
            return fn()
        except retry_on:
            if attempt == count - 1:
                raise
    raise AssertionError("unreachable")
