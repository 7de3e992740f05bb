"""The console's sign-in throttle gives a right attempt back to the window it was taken from, even when the check
ran across the end of that window: the next window gets nothing extra (a give-back there would make its counter -1,
one more failure allowed)."""

from __future__ import annotations

import pytest

from chalicelib.console import accounts, audit, passwords, store, throttle
from chalicelib.console.models import Role
from chalicelib.platform import aws, clock
from chalicelib.platform.clock import epoch
from chalicelib.platform.errors import ApiError
from tests.support.console import PASSWORD

EMAIL = "edge@example.com"


def _counter(subject: str, window: int) -> int | None:
    item = aws.table(store.TABLE).get_item(Key=store.throttle_key(subject, window), ConsistentRead=True).get("Item")
    return None if item is None else int(item["n"])


def _to_last_second_of_a_window() -> int:
    """Move the clock to the last second of its window; the window's start."""
    clock.travel(throttle.WINDOW_S - epoch() % throttle.WINDOW_S - 1)
    now = epoch()
    assert now % throttle.WINDOW_S == throttle.WINDOW_S - 1
    return now - now % throttle.WINDOW_S


def test_a_right_password_checked_across_a_window_end_gives_back_to_its_own_window(tenant, monkeypatch):
    _, token = accounts.invite(audit.operator(tenant.organizationId), EMAIL, Role.VIEWER)
    accounts.accept_invite(token, None, PASSWORD, PASSWORD, None, None)
    source = "198.51.100.7"
    taken_in = _to_last_second_of_a_window()
    verify = passwords.verify

    def slow_verify(stored: str | None, password: str) -> bool:
        clock.travel(2)  # the check outlives the window it was counted in
        return verify(stored, password)

    monkeypatch.setattr(passwords, "verify", slow_verify)
    accounts.login(EMAIL, PASSWORD, source)
    monkeypatch.setattr(passwords, "verify", verify)
    next_window = taken_in + throttle.WINDOW_S
    assert epoch() - epoch() % throttle.WINDOW_S == next_window
    for subject in (f"account#{EMAIL}", f"source#{source}"):
        assert _counter(subject, taken_in) == 0  # taken, then given back
        assert _counter(subject, next_window) is None  # nothing given to a window nothing was taken from

    # The new window allows its five failures and no more.
    for _ in range(throttle.ACCOUNT.attempts):
        with pytest.raises(ApiError) as wrong:
            accounts.login(EMAIL, "not the password at all", source)
        assert wrong.value.code == accounts.INVALID_CREDENTIALS
    with pytest.raises(ApiError) as locked:
        accounts.login(EMAIL, PASSWORD, source)
    assert locked.value.code == throttle.TOO_MANY_ATTEMPTS


def test_give_back_uses_the_window_of_the_take(aws_env):
    taken_in = _to_last_second_of_a_window()
    taken = throttle.take((throttle.TOTP, "user-1"))
    assert taken.window == taken_in and _counter("totp#user-1", taken_in) == 1
    clock.travel(throttle.WINDOW_S)  # a whole window later
    throttle.give_back(taken)
    assert _counter("totp#user-1", taken_in) == 0
    assert _counter("totp#user-1", taken_in + throttle.WINDOW_S) is None
