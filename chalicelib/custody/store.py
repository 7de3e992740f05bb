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
from dataclasses import dataclass, field
from typing import Any

from chalicelib.platform import aws, retry
from chalicelib.platform.errors import ApiError
from chalicelib.platform.pagination import AppendOnlyList, append_together

TABLE = "custody"
CUSTODY_BUSY = "CUSTODY_BUSY"


@dataclass(frozen=True)
class Event:
    app_id: str
    type: str
    id: str
    data: dict[str, Any]


@dataclass
class Plan:
    """Everything one change writes, all or nothing."""

    items: list[aws.TxItem] = field(default_factory=list)
    lists: list[tuple[AppendOnlyList, dict[str, Any]]] = field(default_factory=list)
    event: Event | None = None


def get(pk: str, sk: str) -> dict[str, Any] | None:
    item: dict[str, Any] | None = aws.table(TABLE).get_item(Key={"pk": pk, "sk": sk}, ConsistentRead=True).get("Item")
    return item


def commit(build: Callable[[], Plan | None], attempts: int = 8) -> Plan | None:
    """Write what `build` plans (None: nothing to do). A plan is built from what it read, so when a balance it
    read moved (its `balance-*` condition failed) or a concurrent transaction held an item, it is built again.
    Any other failed condition raises aws.TransactionCancelledError for the caller to read."""
    for _ in retry.attempts(attempts, base_s=0.02, cap_s=0.5):
        plan = build()
        if plan is None:
            return None
        try:
            _write(plan)
            return plan
        except aws.TransactionCancelledError as exc:
            moved = any(exc.condition_failed(i.name) for i in plan.items if i.name.startswith("balance"))
            if not (moved or exc.conflict):
                raise
    raise ApiError(503, CUSTODY_BUSY, "Too many concurrent changes to this account; retry shortly")


def _write(plan: Plan) -> None:
    from chalicelib.webhooks import outbox

    if plan.event is not None:  # emit_event itself writes nothing when the event exists
        event = plan.event
        emitted = outbox.emit_event(event.app_id, event.type, event.id, event.data, plan.items, plan.lists)
        if not emitted.duplicate:
            return
    # The event was sent before (a state that comes back, e.g. a deposit re-mined after a reorg): the change
    # itself still happens, without a second event of the same id.
    if plan.lists:
        append_together(plan.lists, lambda _: plan.items)
    else:
        aws.transact(plan.items)


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
