"""The local stack's aux-pool filler (devtools/aux_cache.py, `make dev` only): below the low-water mark it tops the
pool up to its target from the cached insecure sets, never seals one cached set into the pool twice (it generates
more when they are used up), and stops, with any generation under way, when told."""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from chalicelib.mpc import aux_pool
from devtools import aux_cache
from devtools.aux_cache import LocalAuxFiller

SETS = 5  # distinct cached sets these tests use at most (generated once per machine, ≈ 17 s each, then cached)


@pytest.fixture(scope="module")
def real_sets() -> list[Path]:
    aux_cache.insecure_sets(SETS)
    return aux_cache.cached_paths(aux_cache.cache_folder())[:SETS]


def cache_of(folder: Path, sets: list[Path]) -> Path:
    """A cache folder of its own for a test, holding copies of `sets`."""
    folder.mkdir(exist_ok=True)
    for path in sets:
        shutil.copy(path, folder / f"set-{len(aux_cache.cached_paths(folder)):03d}.bin")
    return folder


def copying(sources: list[Path]) -> Callable[[Path], None]:
    """A stand-in for the ≈ 17 s generation: each call adds the next of `sources` (other distinct runs)."""
    left = list(sources)

    def generate(folder: Path) -> None:
        cache_of(folder, [left.pop(0)])

    return generate


def wait_for(condition: Callable[[], bool], timeout_s: float = 20) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def drain() -> list[bytes]:
    """Claim and consume every ready set, as wallet creations do; party 0's part of each."""
    parts = []
    while aux_pool.ready_count():
        aux_id = aux_pool.claim("w")
        parts.append(aux_pool.open_part(aux_id, 0))
        aux_pool.consume(aux_id)
    return parts


def test_below_the_low_water_mark_it_tops_up_to_the_target(aws_env, real_sets, tmp_path):
    said: list[str] = []
    filler = LocalAuxFiller(2, 4, folder=cache_of(tmp_path / "cache", real_sets[:4]), say=said.append)
    filler.seed(1)
    assert aux_pool.ready_count() == 1
    assert filler.top_up() == 3
    assert aux_pool.ready_count() == 4
    assert filler.used == {p.name for p in aux_cache.cached_paths(filler.folder)} and filler.generated == 0
    assert said == ["aux filler: added 3 set(s), 4 ready"]


def test_at_or_above_the_low_water_mark_it_does_nothing(aws_env, real_sets, tmp_path):
    filler = LocalAuxFiller(2, 4, folder=cache_of(tmp_path / "cache", real_sets[:4]), say=lambda _: None)
    filler.seed(2)
    assert filler.top_up() == 0
    assert aux_pool.ready_count() == 2 and len(filler.used) == 2


def test_no_cached_set_goes_into_the_pool_twice(aws_env, real_sets, tmp_path):
    """With the two cached sets in the pool and used up, the next three are generated, not sealed again."""
    filler = LocalAuxFiller(
        2,
        3,
        folder=cache_of(tmp_path / "cache", real_sets[:2]),
        say=lambda _: None,
        generate=copying(real_sets[2:5]),
    )
    filler.seed(2)
    parts = drain()
    assert filler.top_up() == 3
    assert filler.generated == 3
    parts += drain()
    assert len(parts) == 5 and len(set(parts)) == 5, "one set served two wallets"
    assert set(parts) == {aux_cache._decode(p.read_bytes())[0] for p in real_sets[:5]}


def test_the_thread_keeps_the_pool_up_and_stops_when_told(aws_env, real_sets, tmp_path):
    filler = LocalAuxFiller(
        2,
        3,
        folder=cache_of(tmp_path / "cache", real_sets[:3]),
        period_s=0.02,
        say=lambda _: None,
        generate=copying(real_sets[3:5]),
    )
    filler.start()
    try:
        wait_for(lambda: aux_pool.ready_count() == 3)
        assert filler.used == {"set-000.bin", "set-001.bin", "set-002.bin"} and filler.generated == 0
        for _ in range(2):  # two wallets: 1 ready, below the mark, and every cached set used: it generates two
            aux_pool.consume(aux_pool.claim("w"))
        wait_for(lambda: aux_pool.ready_count() == 3)
        assert filler.generated == 2 and len(filler.used) == 5
    finally:
        filler.stop()
    assert not filler.running
    drain()
    time.sleep(0.1)
    assert aux_pool.ready_count() == 0, "a stopped filler added a set"


def test_stopping_ends_the_generation_under_way(aws_env, tmp_path):
    """Generation runs in a child process (a Rust computation in a thread cannot be interrupted): stop kills it."""
    folder = tmp_path / "empty"
    folder.mkdir()
    filler = LocalAuxFiller(1, 1, folder=folder, period_s=0.02, say=lambda _: None)
    filler.start()
    try:
        wait_for(lambda: filler._child is not None)
        child = filler._child
        assert child is not None
    finally:
        began = time.monotonic()
        filler.stop()
    assert time.monotonic() - began < 6
    assert child.poll() is not None and not filler.running
    assert aux_cache.cached_paths(folder) == [] and aux_pool.ready_count() == 0


def test_an_error_is_logged_and_retried(aws_env, real_sets, tmp_path, monkeypatch):
    count = aux_pool.ready_count
    calls: list[int] = []

    def flaky() -> int:
        calls.append(1)
        if len(calls) == 1:
            raise ConnectionError("moto is restarting")
        return count()

    monkeypatch.setattr(aux_pool, "ready_count", flaky)
    said: list[str] = []
    filler = LocalAuxFiller(1, 2, folder=cache_of(tmp_path / "cache", real_sets[:2]), period_s=0.01, say=said.append)
    filler.start()
    try:
        wait_for(lambda: count() == 2)
    finally:
        filler.stop()
    assert said[0] == "aux filler: ConnectionError: moto is restarting; retrying in 0 s"
    assert said[1:] == ["aux filler: added 2 set(s), 2 ready"]


def test_the_low_water_mark_is_at_most_the_target():
    with pytest.raises(ValueError, match="low water"):
        LocalAuxFiller(5, 4, folder=Path("/nonexistent"))
    off = LocalAuxFiller(0, 0, folder=Path("/nonexistent"))
    off.start()  # a low-water mark of 0: no thread
    assert not off.running
