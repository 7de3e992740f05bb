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
import random
import time
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field, create_model

from chalicelib.platform import aws
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

    def count(self) -> int:
        item = (
            aws.table(self.table).get_item(Key={"pk": self.list_key, "sk": COUNTER_SK}, ConsistentRead=True).get("Item")
        )
        return int(item["n"]) if item else 0

    def append(self, record: dict[str, Any], also: list[dict[str, Any]] | None = None, attempts: int = 8) -> int:
        """Store `record` as the next entry; `also` are extra TransactWriteItems committed with it."""
        from boto3.dynamodb.types import TypeSerializer

        serialize = TypeSerializer().serialize
        table_name = aws.table(self.table).name
        ddb = aws.client("dynamodb")
        for attempt in range(attempts):
            n = self.count()
            counter_update: dict[str, Any] = {
                "TableName": table_name,
                "Key": {"pk": {"S": self.list_key}, "sk": {"S": COUNTER_SK}},
                "UpdateExpression": "SET n = :next",
                "ExpressionAttributeValues": {":next": {"N": str(n + 1)}},
            }
            if n:
                counter_update["ConditionExpression"] = "n = :seen"
                counter_update["ExpressionAttributeValues"][":seen"] = {"N": str(n)}
            else:
                counter_update["ConditionExpression"] = "attribute_not_exists(n)"
            item = {**record, "pk": self.list_key, "sk": sequence_key(n + 1), "seq": n + 1}
            try:
                ddb.transact_write_items(
                    TransactItems=[
                        {"Update": counter_update},
                        {
                            "Put": {
                                "TableName": table_name,
                                "Item": {k: serialize(v) for k, v in item.items()},
                                "ConditionExpression": "attribute_not_exists(pk)",
                            }
                        },
                        *(also or []),
                    ]
                )
                return n + 1
            except ddb.exceptions.TransactionCanceledException as exc:
                reasons = [r.get("Code") for r in exc.response.get("CancellationReasons", [])]
                # A lost race on the counter shows as its condition failing, or (DynamoDB serialising
                # concurrent transactions on one item) as a TransactionConflict anywhere.
                lost_race = reasons[:1] == ["ConditionalCheckFailed"] or "TransactionConflict" in reasons
                if not lost_race:
                    raise  # a real failure, e.g. the condition of an `also` item
                time.sleep(random.uniform(0, 0.02 * 2**attempt))  # noqa: S311 - jitter, not security
        raise ApiError(503, LIST_BUSY, "Too many concurrent writes; retry shortly")

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
