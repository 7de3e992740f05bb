"""A wallet's rolling 24 hours as the cosigner counts them, in its own table (`cosigner-policy`).

* `USAGE#<walletId>` / `WINDOW`: `buckets` `{"<epoch // 300>": {"n": <transactions>, "spent": {asset: "<base
  units>"}}}` and a `version` that every write moves (the conditional write that makes concurrent signatures
  count one after the other). A bucket counts while any part of it is inside the last 24 h, so one straddling the
  window's edge counts in full: the window is up to five minutes longer, never shorter (stricter). Buckets past
  the window are dropped when the item is written.
* `COUNTED#<walletId>#<digest hex>` / `COUNTED`: the mark that this digest (one transaction, or one typed-data
  permit) was counted, with what it added and where (`n`: 1 for a transaction, 0 for a permit, which spends but is
  not a transaction). Signing the same digest again (a retry, the full run after a failed online step)
  counts nothing more: the signature decides against the usage without its own share, and writes nothing.
* `NONCES#<walletId>#<chainId>` / `<nonce:020d>#<payment hash>`: the mark that the wallet signed this payment (`to`,
  `value`, `data`: `payment_hash`) at this nonce, with the fee cap of its first signature (`feeCap`) and what it
  added to the window (as a COUNTED mark: nothing for a no-op). A transaction of the same payment at the same nonce
  with other fees is a replacement of it (cosigner.py). Kept 30 days; sorted by nonce, so the wallet's highest
  signed nonce on a chain is one Query.

Amounts are decimal strings (a DynamoDB number holds 38 digits, a uint256 78). Pure apart from the items of
`writes` and `nonce_mark`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from chalicelib.evm.transactions import UnsignedTx
from chalicelib.mpc.cosigner_checks import COSIGNER_POLICY_TABLE
from chalicelib.platform import aws, windows
from chalicelib.platform.clock import iso_at
from chalicelib.policies.engine import Usage
from chalicelib.policies.facts import TransactionFacts, Transfer, TypedDataFacts

__all__ = [
    "BUCKET_S",
    "WINDOW_S",
    "Counted",
    "NonceMark",
    "Payment",
    "Window",
    "counted_key",
    "nonce_key",
    "nonce_mark",
    "nonce_mark_of",
    "nonces_pk",
    "payment_of",
    "usage",
    "usage_key",
    "window_of",
    "writes",
]

WINDOW_S = 86_400
BUCKET_S = 300
SPAN = windows.Span(BUCKET_S, WINDOW_S)
COUNTED_KEPT_S = WINDOW_S + 3_600  # past the window its mark changes nothing (DynamoDB TTL deletes it)
USAGE_ITEM = "usage"  # transaction item names: a lost race on any is re-planned (unit_of_work replan_on)
COUNTED_ITEM = "counted"
NONCE_ITEM = "nonce"
NONCE_KEPT_S = 30 * 86_400  # long past any replacement of the nonce (DynamoDB TTL deletes it)
MAX_NONCE = 2**64 - 1  # EIP-2681; also what `<nonce:020d>` sorts in order


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


@dataclass(frozen=True)
class Payment:
    """A transaction as its nonce mark names it: the chain, the nonce, what it pays (`hash`: to, value, data, which
    a replacement keeps) and its fees (which a replacement changes). `fee_cap` is gasPrice or maxFeePerGas."""

    chain_id: int
    nonce: int
    hash: str
    fee_cap: int
    priority_fee: int | None  # maxPriorityFeePerGas; None for a legacy transaction


@dataclass(frozen=True)
class NonceMark:
    nonce: int
    fee_cap: int  # of the first signature of the payment at this nonce
    share: Counted  # what it added to the window


def payment_hash(tx: UnsignedTx) -> str:
    """keccak256(to (20 bytes; none for a creation) || value (32 bytes, big-endian) || data), hex."""
    from eth_utils import keccak

    to = bytes.fromhex(tx.to[2:]) if tx.to else b""
    return bytes(keccak(to + tx.value.to_bytes(32, "big") + tx.data)).hex()


def payment_of(tx: UnsignedTx) -> Payment:
    """ValueError for a nonce above MAX_NONCE (no chain takes it, and its mark would sort out of order)."""
    if tx.nonce > MAX_NONCE:
        raise ValueError("the nonce is above 2**64 - 1")
    fee_cap = tx.gas_price if tx.gas_price is not None else tx.max_fee
    assert fee_cap is not None  # from_wire: either gasPrice or both EIP-1559 fees
    return Payment(tx.chain_id, tx.nonce, payment_hash(tx), fee_cap, tx.max_priority_fee)


def nonces_pk(wallet_id: str, chain_id: int) -> str:
    return f"NONCES#{wallet_id}#{chain_id}"


def nonce_key(wallet_id: str, payment: Payment) -> dict[str, str]:
    return {"pk": nonces_pk(wallet_id, payment.chain_id), "sk": f"{payment.nonce:020d}#{payment.hash}"}


def nonce_mark_of(item: Mapping[str, Any] | None, now: int) -> NonceMark | None:
    """The mark as read (None when absent, or past its expiry and not yet deleted)."""
    if item is None or int(item.get("expiresAt", 0)) <= now:
        return None
    share = counted_of(item)
    assert share is not None
    return NonceMark(int(str(item["sk"]).split("#", 1)[0]), int(str(item["feeCap"])), share)


def nonce_mark(wallet_id: str, payment: Payment, share: Counted, now: int) -> aws.TxItem:
    """The first signature's mark of the payment at its nonce (which must not exist: a lost race re-plans)."""
    item = {
        **nonce_key(wallet_id, payment),
        "walletId": wallet_id,
        "feeCap": str(payment.fee_cap),
        **_share(share),
        "createdAt": iso_at(now),
        "expiresAt": now + NONCE_KEPT_S,
    }
    return aws.put(NONCE_ITEM, COSIGNER_POLICY_TABLE, item)


def _share(share: Counted) -> dict[str, Any]:
    return {"bucket": share.bucket, "spent": {asset: str(v) for asset, v in share.spent.items()}, "n": share.n}


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
    return Counted(int(item["bucket"]), spent, int(item["n"]))


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
    wallet_id: str,
    digest: bytes,
    window: Window,
    now: int,
    facts: TransactionFacts | TypedDataFacts,
    payment: Payment | None = None,
) -> list[aws.TxItem]:
    """One transaction's or permit's count: the window with it added (conditional on the version read; old buckets
    dropped), the digest's COUNTED mark and, for a transaction, its `payment`'s nonce mark (neither of which may
    exist). All are items a lost race re-plans."""
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
    share = Counted(current, added, n)
    mark = {**counted_key(wallet_id, digest), "walletId": wallet_id, **_share(share), "expiresAt": now + COUNTED_KEPT_S}
    items = [aws.put(USAGE_ITEM, COSIGNER_POLICY_TABLE, item, seen), aws.put(COUNTED_ITEM, COSIGNER_POLICY_TABLE, mark)]
    if payment is not None:
        items.append(nonce_mark(wallet_id, payment, share, now))
    return items
