"""Time in one place, so that timestamps have one format (UTC, RFC 3339, milliseconds)."""

from __future__ import annotations

import time
from datetime import UTC, datetime


def now() -> datetime:
    return datetime.now(UTC)


def epoch() -> int:
    return int(time.time())


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def iso_now() -> str:
    return iso(now())
