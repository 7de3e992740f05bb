"""Rolling windows of counts and amounts in time buckets, kept in one DynamoDB item and changed by conditional
writes: the one mechanism for limits counted over the last day or month (the cosigner's transaction usage, gas
sponsorship caps).

A window is a map of buckets (`{"<epoch // bucket_s>": {"n": <count>, "a": "<amount>"}}`). A bucket counts while
any part of it is inside the window, so one straddling the window's edge counts in full: the window is up to one
bucket longer, never shorter (stricter). Buckets past the window are dropped whenever the map is written. Amounts
are decimal strings (a DynamoDB number holds 38 digits). Pure: the caller reads and writes the item.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

Buckets = Mapping[int, tuple[int, int]]  # bucket -> (count, amount)


@dataclass(frozen=True)
class Span:
    bucket_s: int
    window_s: int

    def bucket(self, now: int) -> int:
        return now // self.bucket_s

    def counts(self, bucket: int, now: int) -> bool:
        """Whether `bucket` is (partly) inside the window ending at `now`."""
        return (bucket + 1) * self.bucket_s > now - self.window_s

    def total(self, buckets: Buckets, now: int) -> tuple[int, int]:
        """(count, amount) inside the window at `now`."""
        inside = [value for bucket, value in buckets.items() if self.counts(bucket, now)]
        return sum(n for n, _ in inside), sum(a for _, a in inside)

    def added(self, buckets: Buckets, now: int, amount: int, n: int = 1) -> dict[int, tuple[int, int]]:
        """The buckets with `n` and `amount` added at `now` (those past the window dropped)."""
        kept = {bucket: value for bucket, value in buckets.items() if self.counts(bucket, now)}
        count, total = kept.get(self.bucket(now), (0, 0))
        kept[self.bucket(now)] = (count + n, total + amount)
        return kept


def taken_back(buckets: Buckets, bucket: int, amount: int, n: int = 0) -> dict[int, tuple[int, int]]:
    """`amount` (and `n`) less in `bucket` (never below zero), when the bucket is still kept: a charge that shrank
    later, or (with `n`) one that did not happen."""
    changed = dict(buckets)
    if bucket in changed:
        count, total = changed[bucket]
        changed[bucket] = (max(0, count - n), max(0, total - amount))
    return changed


def read(raw: Mapping[str, Any] | None) -> dict[int, tuple[int, int]]:
    return {int(k): (int(v.get("n", 0)), int(str(v.get("a", "0")))) for k, v in dict(raw or {}).items()}


def stored(buckets: Buckets) -> dict[str, dict[str, Any]]:
    return {str(b): {"n": n, "a": str(a)} for b, (n, a) in sorted(buckets.items())}
