"""Pagination for every list: `{data: [...], pagination: {total, page, limit, totalPages, hasNext, hasPrev}}`.

DynamoDB has neither offsets nor cheap counts. The reference API's lists only grow, so a
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

from chalicelib.platform import aws
from chalicelib.platform.wire import WireModel

MAX_LIMIT = 100
COUNTER_SK = "COUNT"
T = TypeVar("T")


class PageQuery(WireModel):
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


class Pagination(WireModel):
    total: int = Field(examples=[1])
    page: int = Field(examples=[1])
    limit: int = Field(examples=[20])
    totalPages: int = Field(examples=[1])
    hasNext: bool = Field(examples=[False])
    hasPrev: bool = Field(examples=[False])


class Page(BaseModel, Generic[T]):
    """The generic page: each route's page subclasses it with its item (a WireModel, built on first use)."""

    model_config = ConfigDict(arbitrary_types_allowed=True, defer_build=True)

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

    def append_items(self, position: int, record: dict[str, Any], count: int) -> list[aws.TxItem]:
        """The two items that append `record` as entry `count + 1` (the list's `position` in a transaction
        names them): the counter moves from `count`, and the entry's key must be free. Both fail their
        condition when a concurrent append won the race (platform/unit_of_work.py builds the plan again)."""
        seen = (
            aws.Condition("n = :seen", values={":seen": count}) if count else aws.Condition("attribute_not_exists(n)")
        )
        entry = {**record, "pk": self.list_key, "sk": sequence_key(count + 1), "seq": count + 1}
        return [
            aws.update(
                f"list-counter-{position}", self.table, self.counter_key, aws.Changes(set={"n": count + 1}), seen
            ),
            aws.put(f"list-entry-{position}", self.table, entry),
        ]

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


def counts_of(lists: list[AppendOnlyList]) -> list[int]:
    """The counters of several lists: one read, or one batch read across their tables."""
    if not lists:
        return []
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


def records_page(
    entries: AppendOnlyList, query: PageQuery, id_field: str, key_of: Callable[[str], dict[str, str]]
) -> tuple[list[dict[str, Any]], int]:
    """Page `query` of a list whose entries name records kept elsewhere in its table (the entry's `id_field`,
    the record's key `key_of(id)`): the records themselves (one BatchGetItem), newest first, and the exact
    total. A record that is not found is left out."""
    listed, total = entries.page(query)
    keys = [key_of(str(entry[id_field])) for entry in listed]
    if not keys:
        return [], total
    found = {(item["pk"], item["sk"]): item for item in aws.batch_get(entries.table, keys)}
    return [found[(k["pk"], k["sk"])] for k in keys if (k["pk"], k["sk"]) in found], total
