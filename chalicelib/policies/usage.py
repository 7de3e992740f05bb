"""A wallet's rolling 24 hours as the cosigner counts them, in its own table (`cosigner-policy`).

* `USAGE#<walletId>` / `WINDOW`: `buckets` `{"<epoch // 300>": {"n": <transactions>, "spent": {asset: "<base
  units>"}}}` and a `version` that every write moves (the conditional write that makes concurrent signatures
  count one after the other). A bucket counts while any part of it is inside the last 24 h, so one straddling the
  window's edge counts in full: the window is up to five minutes longer, never shorter (stricter). Buckets past
  the window are dropped when the item is written.
* `COUNTED#<walletId>#<digest hex>` / `COUNTED`: the mark that this digest (one transaction, or one typed-data
  permit) was counted, with what it added and where (`n`: 1 for a transaction, 0 for a permit, which spends but is
  not a transaction; absent: 1). Signing the same digest again (a retry, the full run after a failed online step)
  counts nothing more: the signature decides against the usage without its own share, and writes nothing.

Amounts are decimal strings (a DynamoDB number holds 38 digits, a uint256 78). Pure apart from `writes`' items.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from chalicelib.mpc.policies import COSIGNER_POLICY_TABLE
from chalicelib.platform import aws, windows
from chalicelib.policies.engine import Usage
from chalicelib.policies.facts import TransactionFacts, Transfer, TypedDataFacts

__all__ = ["BUCKET_S", "WINDOW_S", "Counted", "Window", "counted_key", "usage", "usage_key", "window_of", "writes"]

WINDOW_S = 86_400
BUCKET_S = 300
SPAN = windows.Span(BUCKET_S, WINDOW_S)
COUNTED_KEPT_S = WINDOW_S + 3_600  # past the window its mark changes nothing (DynamoDB TTL deletes it)
USAGE_ITEM = "usage"  # transaction item names: a lost race on either is re-planned (unit_of_work replan_on)
COUNTED_ITEM = "counted"


@dataclass(frozen=True)
class Bucket:
    n: int = 0
    spent: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Window:
    buckets: Mapping[int, Bucket] = field(default_factory=dict)
    version: int = 0  # 0: no item yet


@dataclass(frozen=True)
class Counted:
    """What one digest added to the window: in which bucket, its amounts per asset, and transactions (0 or 1)."""

    bucket: int
    spent: Mapping[str, int]
    n: int = 1


def usage_key(wallet_id: str) -> dict[str, str]:
    return {"pk": f"USAGE#{wallet_id}", "sk": "WINDOW"}


def counted_key(wallet_id: str, digest: bytes) -> dict[str, str]:
    return {"pk": f"COUNTED#{wallet_id}#{digest.hex()}", "sk": "COUNTED"}


def window_of(item: Mapping[str, Any] | None) -> Window:
    if item is None:
        return Window()
    buckets = {
        int(name): Bucket(int(body.get("n", 0)), {asset: int(str(v)) for asset, v in body.get("spent", {}).items()})
        for name, body in dict(item.get("buckets") or {}).items()
    }
    return Window(buckets, int(item.get("version", 0)))


def counted_of(item: Mapping[str, Any] | None) -> Counted | None:
    if item is None:
        return None
    spent = {asset: int(str(v)) for asset, v in dict(item.get("spent") or {}).items()}
    return Counted(int(item["bucket"]), spent, int(item.get("n", 1)))


def in_window(bucket: int, now: int) -> bool:
    """A bucket counts while its end is inside the last 24 h (one straddling the edge counts in full)."""
    return SPAN.counts(bucket, now)


def usage(window: Window, now: int, counted: Counted | None = None) -> Usage:
    """The window's totals at `now`; without `counted`'s own share when that digest was counted already (and
    still is inside the window)."""
    spent: dict[str, int] = {}
    count = 0
    for bucket, body in window.buckets.items():
        if not in_window(bucket, now):
            continue
        count += body.n
        for asset, amount in body.spent.items():
            spent[asset] = spent.get(asset, 0) + amount
    if counted is not None and counted.bucket in window.buckets and in_window(counted.bucket, now):
        count = max(0, count - counted.n)
        for asset, amount in counted.spent.items():
            spent[asset] = max(0, spent.get(asset, 0) - amount)
    return Usage(spent=spent, count=count)


def amounts(transfers: tuple[Transfer, ...]) -> dict[str, int]:
    """What a signature adds, per asset (every decoded transfer and grant: the native value and token amounts)."""
    added: dict[str, int] = {}
    for transfer in transfers:
        added[transfer.asset] = added.get(transfer.asset, 0) + transfer.amount
    return added


def writes(
    wallet_id: str, digest: bytes, window: Window, now: int, facts: TransactionFacts | TypedDataFacts
) -> list[aws.TxItem]:
    """One transaction's or permit's count: the window with it added (conditional on the version read; old buckets
    dropped) and the digest's COUNTED mark (which must not exist). Both are items a lost race re-plans."""
    added = amounts(facts.transfers)
    n = 1 if isinstance(facts, TransactionFacts) else 0
    current = now // BUCKET_S
    buckets = {b: body for b, body in window.buckets.items() if in_window(b, now)}
    mine = buckets.get(current, Bucket())
    spent = dict(mine.spent)
    for asset, amount in added.items():
        spent[asset] = spent.get(asset, 0) + amount
    buckets[current] = Bucket(mine.n + n, spent)
    item = {
        **usage_key(wallet_id),
        "walletId": wallet_id,
        "buckets": {
            str(b): {"n": body.n, "spent": {asset: str(v) for asset, v in body.spent.items()}}
            for b, body in sorted(buckets.items())
        },
        "version": window.version + 1,
    }
    seen = (
        aws.NEW_ITEM
        if window.version == 0
        else aws.Condition("#v = :v", names={"#v": "version"}, values={":v": window.version})
    )
    mark = {
        **counted_key(wallet_id, digest),
        "walletId": wallet_id,
        "bucket": current,
        "spent": {asset: str(v) for asset, v in added.items()},
        "n": n,
        "expiresAt": now + COUNTED_KEPT_S,
    }
    return [
        aws.put(USAGE_ITEM, COSIGNER_POLICY_TABLE, item, seen),
        aws.put(COUNTED_ITEM, COSIGNER_POLICY_TABLE, mark),
    ]
