"""Hooks: what a lower layer asks a higher one for, without importing it.

A lower package declares a `Hooks` (what it asks, keyed by name), the higher package that answers defines the
value, and `chalicelib/wiring.py` registers every answer in its one `wire()` (the list of hooks is its docstring).
Nothing registers as a side effect of an import.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Generic, TypeVar

V = TypeVar("V")


class HookMissingError(LookupError):
    """A hook asked for that nothing registered: the entry point did not call `wiring.wire()`."""


class Hooks(Generic[V]):
    """The values registered for one kind of hook, by key (registering a key again replaces its value)."""

    def __init__(self, what: str) -> None:
        self.what = what
        self._values: dict[str, V] = {}

    def register(self, key: str, value: V) -> None:
        self._values[key] = value

    def get(self, key: str) -> V | None:
        return self._values.get(key)

    def require(self, key: str) -> V:
        value = self._values.get(key)
        if value is None:
            raise HookMissingError(f"no {self.what} {key!r} is registered: the entry point calls wiring.wire()")
        return value

    def unregister(self, key: str) -> None:
        self._values.pop(key, None)

    def __iter__(self) -> Iterator[tuple[str, V]]:
        return iter(list(self._values.items()))

    def copy(self) -> Hooks[V]:
        """The same values in a registry of their own (tests change one for their duration)."""
        copied: Hooks[V] = Hooks(self.what)
        copied._values = dict(self._values)
        return copied
