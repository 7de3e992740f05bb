"""Pagination for every list: `{data: [...], pagination: {total, page, limit, totalPages, hasNext, hasPrev}}`.

DynamoDB has neither offsets nor cheap counts. The seed's lists only grow, so a
list is stored as one partition holding a counter item and the records under
dense sequence numbers 1..n, written in one transaction (the counter update is
conditional on the value read, so concurrent appends retry instead of sharing a
number). Then the total is one read of the counter, and page N (newest first) is
one Query over the sequence range `(n - N*limit, n - (N-1)*limit]`: exact totals
and direct access to any page without reading earlier ones. See docs/pagination.md.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field, create_model

from chalicelib.platform import aws, retry
from chalicelib.platform.errors import ApiError

MAX_LIMIT = 100
COUNTER_SK = "COUNT"
LIST_BUSY = "LIST_BUSY"
T = TypeVar("T")


class PageQuery(BaseModel):
    page: int
    limit: int


def page_query(default_limit: int, max_limit: int = MAX_LIMIT) -> type[PageQuery]:
    """A query model with this list's defaults; out-of-range values are a 400."""
    return create_model(  # type: ignore[call-overload,no-any-return]
        f"PageQuery{default_limit}to{max_limit}",
        __base__=PageQuery,
        __config__=None,
        page=(int, Field(1, ge=1, le=1_000_000, description="Page number, from 1.")),
        limit=(int, Field(default_limit, ge=1, le=max_limit, description=f"Records per page, at most {max_limit}.")),
    )


class Pagination(BaseModel):
    total: int
    page: int
    limit: int
    totalPages: int
    hasNext: bool
    hasPrev: bool


class Page(BaseModel, Generic[T]):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    data: list[T]
    pagination: Pagination


def pagination(total: int, query: PageQuery) -> Pagination:
    pages = math.ceil(total / query.limit)
    return Pagination(
        total=total,
        page=query.page,
        limit=query.limit,
        totalPages=pages,
        hasNext=query.page < pages,
        hasPrev=query.page > 1,
    )


def sequence_key(seq: int) -> str:
    return f"SEQ#{seq:012d}"


class AppendOnlyList:
    """One list in a table whose keys are `pk` / `sk` (see module docstring)."""

    def __init__(self, table: str, list_key: str) -> None:
        self.table = table
        self.list_key = list_key

    @property
    def counter_key(self) -> dict[str, str]:
        return {"pk": self.list_key, "sk": COUNTER_SK}

    @staticmethod
    def count_in(item: Mapping[str, Any] | None) -> int:
        """The count a counter item read elsewhere (e.g. in a caller's batch read) holds."""
        return int(item["n"]) if item else 0

    def count(self) -> int:
        return self.count_in(aws.table(self.table).get_item(Key=self.counter_key, ConsistentRead=True).get("Item"))

    def append(
        self,
        record: dict[str, Any],
        also: list[aws.TxItem] | Callable[[int], list[aws.TxItem]] | None = None,
        attempts: int = 8,
        count: int | None = None,
    ) -> int:
        """Store `record` as the next entry, together with `also` (the caller's own writes, or a function of the
        entry's sequence number giving them) in one transaction. `count`: the counter as the caller just read
        it (consistently), used by the first attempt instead of reading it again.

        A failed condition of an `also` item raises aws.TransactionCancelledError (nothing is written), even when
        the counter raced too; a race lost on the list alone is retried with backoff, then answered 503 LIST_BUSY."""
        extra = (lambda seqs: also(seqs[0])) if callable(also) else (lambda _: also or [])
        return append_together([(self, record)], extra, attempts, None if count is None else [count])[0]

    def page(self, query: PageQuery) -> tuple[list[dict[str, Any]], int]:
        """Records of page `query.page`, newest first, and the exact total."""
        from boto3.dynamodb.conditions import Key

        total = self.count()
        high = total - (query.page - 1) * query.limit
        if high < 1:
            return [], total
        low = max(1, high - query.limit + 1)
        items = aws.table(self.table).query(
            KeyConditionExpression=Key("pk").eq(self.list_key)
            & Key("sk").between(sequence_key(low), sequence_key(high)),
            ScanIndexForward=False,
            ConsistentRead=True,
        )["Items"]
        return items, total


def append_together(
    entries: list[tuple[AppendOnlyList, dict[str, Any]]],
    also: Callable[[list[int]], list[aws.TxItem]] | None = None,
    attempts: int = 8,
    counts_read: list[int] | None = None,
) -> list[int]:
    """Append one record to each of several lists (and `also`, a function of their sequence numbers) in one
    transaction; returns the sequence numbers. `counts_read`: the counters as the caller read them, for the first
    attempt.

    A race lost on the lists alone (a counter moved, a sequence number taken, a concurrent transaction holding an
    item) is retried from a fresh read of the counters, then answered 503 LIST_BUSY; a failed condition of an
    `also` item raises aws.TransactionCancelledError at once, whatever else failed with it, for the caller to
    answer (or to re-plan from what it reads again). Either way nothing is written."""
    for attempt in retry.attempts(attempts, base_s=0.02, cap_s=0.5):
        fresh = counts_read is None or attempt > 0
        counts = _counts([entries_list for entries_list, _ in entries]) if fresh else list(counts_read or [])
        items: list[aws.TxItem] = []
        for i, ((entries_list, record), n) in enumerate(zip(entries, counts, strict=True)):
            seen = aws.Condition("n = :seen", values={":seen": n}) if n else aws.Condition("attribute_not_exists(n)")
            items.append(
                aws.update(
                    f"list-counter-{i}",
                    entries_list.table,
                    entries_list.counter_key,
                    aws.Changes(set={"n": n + 1}),
                    seen,
                )
            )
            entry = {**record, "pk": entries_list.list_key, "sk": sequence_key(n + 1), "seq": n + 1}
            items.append(aws.put(f"list-entry-{i}", entries_list.table, entry))
        seqs = [n + 1 for n in counts]
        try:
            aws.transact([*items, *(also(seqs) if also else [])])
            return seqs
        except aws.TransactionCancelledError as exc:
            # The list's own items guard against concurrent appends: only their conditions (and transient
            # conflicts) mean a lost race. An `also` item's condition may have failed because the caller's own
            # reads are stale too: retrying it unchanged would fail again, so the caller hears of it now.
            if not exc.only_lost([item.name for item in items]):
                raise
    raise ApiError(503, LIST_BUSY, "Too many concurrent writes; retry shortly")


def _counts(lists: list[AppendOnlyList]) -> list[int]:
    """The counters of several lists: one read, or one batch read across their tables."""
    if len(lists) == 1:
        return [lists[0].count()]
    by_table: dict[str, list[dict[str, Any]]] = {}
    for entries in lists:
        by_table.setdefault(entries.table, []).append({"pk": entries.list_key, "sk": COUNTER_SK})
    found = {
        (table, str(item["pk"])): int(item["n"])
        for table, items in aws.batch_get_tables(by_table).items()
        for item in items
    }
    return [found.get((entries.table, entries.list_key), 0) for entries in lists]
