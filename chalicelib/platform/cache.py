"""The one in-memory cache of a warm function: entries expire on the platform clock (so `clock.travel` ages them),
the least recently used go first past `max_entries`, and every cache registers itself so tests empty them all
with `reset_all()`.

Only values that are safe to serve stale for `ttl_s` belong here (key sets, decrypted app secrets, token
metadata); a cache never stores a miss unless its caller puts one.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

from chalicelib.platform import clock

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

_registry: weakref.WeakSet[TtlCache[Any, Any]] = weakref.WeakSet()


class TtlCache(Generic[K, V]):
    """`ttl_s`: seconds an entry lives from when it was put (never refreshed by reads); a callable is read at each
    put (e.g. a setting); None keeps entries until evicted or cleared."""

    def __init__(self, name: str, ttl_s: float | Callable[[], float] | None, max_entries: int = 1024) -> None:
        self.name = name
        self._ttl_s = ttl_s
        self.max_entries = max_entries
        self._entries: OrderedDict[K, tuple[float | None, V]] = OrderedDict()
        self._lock = threading.Lock()
        _registry.add(self)

    def get(self, key: K) -> V | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            if entry[0] is not None and entry[0] <= clock.monotonic():
                del self._entries[key]
                return None
            self._entries.move_to_end(key)
            return entry[1]

    def put(self, key: K, value: V, ttl_s: float | None = None) -> V:
        """Keep `value` (for `ttl_s` when given, else the cache's own); a lifetime of 0 or less keeps nothing."""
        lifetime = ttl_s if ttl_s is not None else (self._ttl_s() if callable(self._ttl_s) else self._ttl_s)
        if lifetime is not None and lifetime <= 0:
            return value
        with self._lock:
            self._entries[key] = (None if lifetime is None else clock.monotonic() + lifetime, value)
            self._entries.move_to_end(key)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)
        return value

    def get_or_put(self, key: K, load: Callable[[], V | None]) -> V | None:
        """The fresh entry, else `load()` kept when it is not None (a miss is not cached)."""
        found = self.get(key)
        if found is not None:
            return found
        loaded = load()
        return None if loaded is None else self.put(key, loaded)

    def pop(self, key: K) -> None:
        with self._lock:
            self._entries.pop(key, None)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __contains__(self, key: object) -> bool:
        return self.get(key) is not None  # type: ignore[arg-type]

    def __len__(self) -> int:
        """Entries held, fresh or not yet dropped."""
        return len(self._entries)


def reset_all() -> None:
    """Empty every cache of this process (tests, between cases)."""
    for cache in list(_registry):
        cache.clear()
