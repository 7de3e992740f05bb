"""The `custody` table and the one way custody writes: a plan (items, list entries, at most one event) in ONE
DynamoDB transaction, re-planned when a balance it read moved meanwhile.

Keys (pk / sk):
* `KEY#<scope>` / `KEY`: a custody key (keys.py);
* `ACCOUNT#<id>` / `ACCOUNT`, `SUB#<appId>#<subId>` / `SUB`, `ADDR#<chainId>#<address>` / `ADDR`: accounts;
* `ACCOUNT#<id>` / `BALANCE#<network>#<tokenCode>`: balances; `ENTRIES#<accountId>`: the journal (a list);
* `INVOICE#<id>` / `INVOICE`, `OPEN#<accountId>#<network>#<tokenCode>` / `OPEN`, `REF#<appId>#<reference>` /
  `REF`, `EXPIRING` / `<deadline>#<invoiceId>`: invoices;
* `DEPOSIT#<id>` / `DEPOSIT`, `WATCH#<chainId>` / `<depositId>` (deposits the watcher re-checks),
  `CURSOR#<chainId>` / `CURSOR`, `LEASE#<chainId>` / `LEASE`: the watcher;
* lists (pagination.AppendOnlyList): `ACCOUNTS#<appId>`, `INVOICES#<appId>`, `INVOICES#<appId>#<accountId>`,
  `DEPOSITS#<appId>`, `DEPOSITS#<appId>#<accountId>`, `DEPOSITS#<appId>#<invoiceId>`, `ENTRIES#<accountId>`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chalicelib.platform import aws, unit_of_work
from chalicelib.platform.errors import ApiError
from chalicelib.platform.pagination import AppendOnlyList
from chalicelib.platform.unit_of_work import Committed, Event, Plan

__all__ = ["Event", "Plan", "commit"]

TABLE = "custody"
CUSTODY_BUSY = "CUSTODY_BUSY"


def get(pk: str, sk: str) -> dict[str, Any] | None:
    item: dict[str, Any] | None = aws.table(TABLE).get_item(Key={"pk": pk, "sk": sk}, ConsistentRead=True).get("Item")
    return item


def commit(build: Callable[[], Plan | None], attempts: int = 8) -> Committed | None:
    """Write what `build` plans (None: nothing to do) through the unit of work; a plan built from a balance
    that moved meanwhile (its `balance-*` item) is built again."""

    def planned() -> Plan | None:
        plan = build()
        if plan is not None:
            plan.replan_on = frozenset(i.name for i in plan.items if i.name.startswith("balance"))
        return plan

    return unit_of_work.commit(planned, attempts, on_busy=_busy)


def _busy() -> ApiError:
    return ApiError(503, CUSTODY_BUSY, "Too many concurrent changes to this account; retry shortly")


def status_keys(
    kind: str, app_id: str, account_id: str, status: str, created_at: str, record_id: str
) -> dict[str, str]:
    """The index attributes of an invoice or deposit (`kind`) in `status` (rewritten with every status change)."""
    return {
        "statusKey": f"{kind}#{app_id}#{status}",
        "accountStatusKey": f"{kind}#{account_id}#{status}",
        "listKey": f"{created_at}#{record_id}",
    }


def indexed_page(index: str, attribute: str, value: str, page: int, limit: int) -> tuple[list[dict[str, Any]], int]:
    """Newest first from an index partition, with its exact total. Reads the keys of the records before the
    page (a status filter is for operators and reconciliations; unfiltered lists read only their page)."""
    from boto3.dynamodb.conditions import Key

    condition = Key(attribute).eq(value)
    total = 0
    keys: list[dict[str, Any]] = []
    start = (page - 1) * limit
    request: dict[str, Any] = {
        "IndexName": index,
        "KeyConditionExpression": condition,
        "ScanIndexForward": False,
        "ProjectionExpression": "pk, sk",
    }
    while True:
        answer = aws.table(TABLE).query(**request)
        for item in answer["Items"]:
            if start <= total < start + limit:
                keys.append({"pk": item["pk"], "sk": item["sk"]})
            total += 1
        if "LastEvaluatedKey" not in answer:
            break
        request["ExclusiveStartKey"] = answer["LastEvaluatedKey"]
    if not keys:
        return [], total
    found = {(i["pk"], i["sk"]): i for i in aws.batch_get(TABLE, keys)}
    return [found[(k["pk"], k["sk"])] for k in keys if (k["pk"], k["sk"]) in found], total


def listed(
    entries_list: AppendOnlyList, query: Any, id_field: str, key_of: Callable[[str], dict[str, str]]
) -> tuple[list[dict[str, Any]], int]:
    """A page of an append-only list of record ids (`id_field`), with the records themselves (one batch read)."""
    entries, total = entries_list.page(query)
    ids = [str(e[id_field]) for e in entries]
    if not ids:
        return [], total
    found = {str(i["id"]): i for i in aws.batch_get(TABLE, [key_of(i) for i in ids])}
    return [found[i] for i in ids if i in found], total
