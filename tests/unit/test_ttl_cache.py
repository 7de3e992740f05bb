"""platform/cache.py: entries age on the platform clock (clock.travel expires them), the least recently used go
first, a miss is not kept, and reset_all empties every cache of the process."""

from __future__ import annotations

from chalicelib.platform import cache, clock
from chalicelib.platform.cache import TtlCache


def setup_function() -> None:
    clock.reset()


def teardown_function() -> None:
    clock.reset()


def test_an_entry_lives_its_ttl_on_the_platform_clock():
    memo: TtlCache[str, int] = TtlCache("test-ttl", 60)
    memo.put("a", 1)
    clock.travel(59)
    assert memo.get("a") == 1 and "a" in memo
    clock.travel(2)
    assert memo.get("a") is None and "a" not in memo and len(memo) == 0


def test_reads_do_not_extend_an_entry_and_a_put_may_name_its_own_ttl():
    memo: TtlCache[str, int] = TtlCache("test-own-ttl", 60)
    memo.put("short", 1, ttl_s=5)
    memo.put("long", 2)
    clock.travel(4)
    assert memo.get("short") == 1
    clock.travel(2)
    assert memo.get("short") is None and memo.get("long") == 2


def test_a_ttl_read_from_a_callable_at_each_put_and_none_keeps_until_cleared():
    lifetime = [10.0]
    memo: TtlCache[str, int] = TtlCache("test-callable", lambda: lifetime[0])
    memo.put("a", 1)
    lifetime[0] = 0  # zero keeps nothing
    memo.put("b", 2)
    assert memo.get("a") == 1 and "b" not in memo
    forever: TtlCache[str, int] = TtlCache("test-forever", None)
    forever.put("a", 1)
    clock.travel(10**9)
    assert forever.get("a") == 1


def test_the_least_recently_used_goes_first():
    memo: TtlCache[str, int] = TtlCache("test-lru", None, max_entries=2)
    memo.put("a", 1)
    memo.put("b", 2)
    assert memo.get("a") == 1  # "b" is now the least recently used
    memo.put("c", 3)
    assert (memo.get("a"), memo.get("b"), memo.get("c")) == (1, None, 3) and len(memo) == 2


def test_get_or_put_keeps_what_it_loads_but_not_a_miss():
    memo: TtlCache[str, int] = TtlCache("test-load", 60)
    loads: list[str] = []

    def load(value: int | None):
        return lambda: loads.append("x") or value

    assert memo.get_or_put("missing", load(None)) is None
    assert memo.get_or_put("missing", load(None)) is None and len(memo) == 0 and len(loads) == 2
    assert memo.get_or_put("k", load(7)) == 7
    assert memo.get_or_put("k", load(8)) == 7 and len(loads) == 3


def test_reset_all_empties_every_registered_cache():
    first: TtlCache[str, int] = TtlCache("test-reset-1", 60)
    second: TtlCache[int, str] = TtlCache("test-reset-2", None)
    first.put("a", 1)
    second.put(1, "a")
    cache.reset_all()
    assert len(first) == 0 and len(second) == 0 and first.get("a") is None
