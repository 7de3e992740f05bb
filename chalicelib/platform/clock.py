"""The one clock: every module reads time from here, so timestamps have one format (UTC,
RFC 3339, milliseconds) and tests can move time (`travel`) without patching modules one by one."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

_offset_s = 0.0  # moved only by tests (travel); always 0 in a deployed function


def now() -> datetime:
    return datetime.now(UTC) + timedelta(seconds=_offset_s)


def epoch() -> int:
    """Unix time in whole seconds (TTL attributes, leases, signatures)."""
    return int(epoch_s())


def epoch_s() -> float:
    return time.time() + _offset_s


def epoch_ms() -> int:
    return int(epoch_s() * 1000)


def monotonic() -> float:
    """For durations and deadlines: never jumps with the wall clock."""
    return time.monotonic() + _offset_s


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def iso_now() -> str:
    return iso(now())


def iso_at(epoch_s: float) -> str:
    """The moment `epoch_s` (Unix seconds) in this clock's format."""
    return iso(datetime.fromtimestamp(epoch_s, UTC))


def iso_in(seconds: float) -> str:
    return iso(now() + timedelta(seconds=seconds))


def parse_iso(text: str) -> datetime:
    """A timestamp this clock wrote (or any RFC 3339 form with an offset) as an aware datetime."""
    return datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))


def travel(seconds: float) -> None:
    """Tests only: move this process's clock forward (negative: back). `travel(-total)` undoes it."""
    global _offset_s
    _offset_s += seconds


def reset() -> None:
    global _offset_s
    _offset_s = 0.0
