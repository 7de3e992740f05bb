"""Sign-in throttling: attempts are counted per account and per source address in fixed windows, taken before
the password (or code) is checked and given back when it was right (to the window they were taken from, whatever
the clock says by then); past a limit, attempts are refused before any check, until the window ends."""

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


@dataclass(frozen=True)
class Taken:
    """The attempts one check took: the counters' names and the window they were counted in."""

    window: int
    names: tuple[str, ...]


def take(*subjects: tuple[Limit, str]) -> Taken:
    """Take one attempt from each subject's window (a limit and whom it counts) before the password or code is
    checked: one conditional write each, so concurrent attempts cannot all pass a limit they would pass one by one.
    Raises 429 TOO_MANY_ATTEMPTS (giving back what it took) when a window is used up; returns what it took, which
    the caller gives back when the attempt succeeds (only failures stay counted)."""
    now = epoch()
    window = _window(now)
    taken: list[str] = []
    for limit, who in subjects:
        name = f"{limit.kind}#{who}"
        if not store.take_attempt(name, window, limit.attempts, window + 2 * WINDOW_S):
            give_back(Taken(window, tuple(taken)))
            raise ApiError(
                429,
                TOO_MANY_ATTEMPTS,
                "Too many failed attempts; try again later",
                retryAfterSeconds=window + WINDOW_S - now,
            )
        taken.append(name)
    return Taken(window, tuple(taken))


def give_back(taken: Taken) -> None:
    """Return attempts `take` counted (a sign-in that succeeded is no failure), to the window they were counted
    in: a check that ran across a window's end gives nothing to the next window (which would allow it more)."""
    for name in taken.names:
        store.give_back_attempt(name, taken.window)


def failed(*subjects: tuple[Limit, str]) -> None:
    """Count failures without an attempt taken first (tests and tools)."""
    now = epoch()
    for limit, who in subjects:
        store.take_attempt(f"{limit.kind}#{who}", _window(now), None, _window(now) + 2 * WINDOW_S)
