"""Sign-in throttling: failed attempts are counted per account and per source address in fixed windows; past a
limit, attempts are refused before the password (or code) is even checked, until the window ends."""

from __future__ import annotations

from dataclasses import dataclass

from chalicelib.console import store
from chalicelib.platform.clock import epoch
from chalicelib.platform.errors import ApiError

TOO_MANY_ATTEMPTS = "TOO_MANY_ATTEMPTS"
WINDOW_S = 900


@dataclass(frozen=True)
class Limit:
    kind: str  # "account", "source", "totp"
    attempts: int  # failures allowed in a window


ACCOUNT = Limit("account", 5)
SOURCE = Limit("source", 30)
TOTP = Limit("totp", 5)


def _window(now: int) -> int:
    return now - now % WINDOW_S


def check(*subjects: tuple[Limit, str]) -> None:
    """Raises 429 TOO_MANY_ATTEMPTS when any subject (a limit and whom it counts) used up its window."""
    now = epoch()
    names = {f"{limit.kind}#{who}": limit for limit, who in subjects}
    counted = store.failures(list(names), _window(now))
    if any(counted[name] >= limit.attempts for name, limit in names.items()):
        retry_after = _window(now) + WINDOW_S - now
        raise ApiError(
            429, TOO_MANY_ATTEMPTS, "Too many failed attempts; try again later", retryAfterSeconds=retry_after
        )


def failed(*subjects: tuple[Limit, str]) -> None:
    now = epoch()
    for limit, who in subjects:
        store.count_failure(f"{limit.kind}#{who}", _window(now), _window(now) + 2 * WINDOW_S)
