"""Work released from many threads at once, for tests of concurrent requests."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

THREADS = 20
T = TypeVar("T")


def race(work: Callable[[int], T], threads: int = THREADS) -> list[T]:
    """`work(i)` for i in 0..threads-1, all released at once."""
    start = threading.Barrier(threads)

    def run(i: int) -> T:
        start.wait()
        return work(i)

    with ThreadPoolExecutor(threads) as pool:
        return list(pool.map(run, range(threads)))
