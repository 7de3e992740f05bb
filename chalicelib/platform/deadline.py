"""The request budget: every outbound call (RPC, bundler, KMS and other AWS calls, webhook attempts) fits in
what is left of the function's time, so a slow upstream fails the request with a code before Lambda kills it.

The router (and each SQS/schedule handler) opens a budget from the Lambda context's remaining time;
`timeout_s(...)` gives a call its share, `require(...)` refuses to start work that cannot finish, and
`holding_back(s)` ends a step `s` seconds early so that what it took can still be given back after it, and
`finishing()` lets that give-back run even when the step overran (from the time kept back for the answer). Outside
a budget (scripts, the admin command) nothing is limited beyond each call's own default timeout.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from chalicelib.platform import clock
from chalicelib.platform.errors import RetryLaterError

DEADLINE_EXCEEDED = "DEADLINE_EXCEEDED"
RESERVE_S = 1.0  # kept back from the function's remaining time to write the answer and log
MIN_CALL_S = 0.05  # a call with less than this left is not started
RETRY_AFTER_S = 1  # a request that ran out of time may be retried at once: the next one has a whole budget

FINISH_S = 1.0  # what a step that ran out of time may still take to give back what it took (`finishing`)

_deadline: ContextVar[float | None] = ContextVar("dompet_deadline", default=None)
_hard_end: ContextVar[float | None] = ContextVar("dompet_hard_end", default=None)  # the budget with its reserve


class DeadlineExceededError(RetryLaterError):
    def __init__(self, what: str) -> None:
        super().__init__(DEADLINE_EXCEEDED, f"The request ran out of time ({what}); retry", RETRY_AFTER_S)


def remaining_s() -> float | None:
    """Seconds left in the current budget, or None outside one."""
    end = _deadline.get()
    return None if end is None else end - clock.monotonic()


def require(what: str, need_s: float = 0.0) -> None:
    left = remaining_s()
    if left is not None and left < max(need_s, MIN_CALL_S):
        raise DeadlineExceededError(what)


def timeout_s(default_s: float, what: str = "outbound call") -> float:
    """The timeout for one call: its own default, cut to what is left of the budget."""
    left = remaining_s()
    if left is None:
        return default_s
    require(what)
    return max(MIN_CALL_S, min(default_s, left))


@contextmanager
def budget(total_s: float) -> Iterator[None]:
    """Run the body within `total_s` seconds (nested budgets never extend an outer one)."""
    now = clock.monotonic()
    end = now + max(0.0, total_s - RESERVE_S)
    outer, outer_hard = _deadline.get(), _hard_end.get()
    token = _deadline.set(end if outer is None else min(end, outer))
    hard = _hard_end.set(now + total_s if outer_hard is None else min(now + total_s, outer_hard))
    try:
        yield
    finally:
        _deadline.reset(token)
        _hard_end.reset(hard)


@contextmanager
def holding_back(seconds: float) -> Iterator[None]:
    """The body ends `seconds` before the budget does, so what follows it (giving back what it took) still has
    time; outside a budget, nothing changes."""
    end = _deadline.get()
    if end is None:
        yield
        return
    token = _deadline.set(end - seconds)
    try:
        yield
    finally:
        _deadline.reset(token)


@contextmanager
def finishing(seconds: float = FINISH_S) -> Iterator[None]:
    """Giving back what a step took after it ran out of time (a nonce, a record): the body may run `seconds` from
    now even past the budget, taken from the time the budget keeps back for the answer (never past the function's
    own end). A give-back refused for want of time would leave what it holds to a lease or a sweep."""
    end, hard = _deadline.get(), _hard_end.get()
    if end is None:
        yield
        return
    limit = hard - RESERVE_S / 4 if hard is not None else end
    token = _deadline.set(max(end, min(clock.monotonic() + seconds, limit)))
    try:
        yield
    finally:
        _deadline.reset(token)


def from_lambda_context(context: Any, fallback_s: float) -> float:
    """Remaining time of a Lambda invocation (chalice local and tests may give no usable context)."""
    getter = getattr(context, "get_remaining_time_in_millis", None)
    try:
        millis = getter() if callable(getter) else None
    except Exception:  # noqa: BLE001 - a context without a clock is the same as none
        millis = None
    return float(millis) / 1000 if isinstance(millis, int | float) and millis > 0 else fallback_s
