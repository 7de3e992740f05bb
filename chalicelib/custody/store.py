"""The `custody` table: its keys, consistent reads, the status index's pages, and the answer of a write that
lost its race too often (`busy`, for `unit_of_work.commit(..., on_busy=busy)`).

Keys (pk / sk):
* `KEY#<scope>` / `KEY`: a custody key (pool_keys.py);
* `ACCOUNT#<id>` / `ACCOUNT`, `SUB#<appId>#<subId>` / `SUB`, `ADDR#<chainId>#<address>` / `ADDR`: accounts;
* `ACCOUNT#<id>` / `BALANCE#<network>#<tokenCode>`: balances; `ENTRIES#<accountId>`: the journal (a list);
* `INVOICE#<id>` / `INVOICE`, `OPEN#<accountId>#<network>#<tokenCode>` / `OPEN`, `REF#<appId>#<reference>` /
  `REF`, `EXPIRING` / `<deadline>#<invoiceId>`: invoices;
* `DEPOSIT#<id>` / `DEPOSIT`, `WATCH#<chainId>` / `<depositId>` (deposits the watcher re-checks),
  `TXREF#<accountId>#<chainId>#<txHash>` / `TXREF` (the account's first deposit of a transaction),
  `CURSOR#<chainId>` / `CURSOR`, `LEASE#<chainId>` / `LEASE`: the watcher;
* `WITHDRAWAL#<id>` / `WITHDRAWAL`: withdrawals;
* `UTXO#<chainId>#<accountId>` / `<txid>:<vout>`, `SPEND#<chainId>#<txid>` / `SPEND`: an account's spendable
  outputs on a UTXO network and the withdrawals' own transactions (utxos.py);
* lists (pagination.AppendOnlyList): `ACCOUNTS#<appId>`, `INVOICES#<appId>`, `INVOICES#<appId>#<accountId>`,
  `DEPOSITS#<appId>`, `DEPOSITS#<appId>#<accountId>`, `DEPOSITS#<appId>#<invoiceId>`, `WITHDRAWALS#<appId>`,
  `WITHDRAWALS#<appId>#<accountId>`, `ENTRIES#<accountId>`;
* invoices, deposits and withdrawals are also in the `status` and `account-status` indexes (`status_keys`).
"""

from __future__ import annotations

from typing import Any

from chalicelib.platform import aws
from chalicelib.platform.errors import ApiError
from chalicelib.platform.pagination import PageQuery

TABLE = "custody"
CUSTODY_BUSY = "CUSTODY_BUSY"


def canonical_address(address: str) -> str:
    """An address as custody keys and compares it: EVM addresses case-insensitive, others as they are (base58 is
    case-sensitive)."""
    return address.lower() if address.startswith("0x") else address


def get(pk: str, sk: str) -> dict[str, Any] | None:
    item: dict[str, Any] | None = aws.table(TABLE).get_item(Key={"pk": pk, "sk": sk}, ConsistentRead=True).get("Item")
    return item


def busy() -> ApiError:
    """The answer when a custody change lost its race too often (`unit_of_work.commit(..., on_busy=busy)`)."""
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
    """Newest first from an index partition (the records of one status), with its exact total: the keys up to
    the page's end are read, the entries after it only counted, then the page's records are read in one batch
    (docs/pagination.md, "Lists filtered by status")."""
    from boto3.dynamodb.conditions import Key

    start = (page - 1) * limit
    request: dict[str, Any] = {
        "IndexName": index,
        "KeyConditionExpression": Key(attribute).eq(value),
        "ScanIndexForward": False,
    }
    total = 0
    keys: list[dict[str, Any]] = []
    more: dict[str, Any] | None = None
    while total < start + limit:
        answer = aws.table(TABLE).query(**request, ProjectionExpression="pk, sk", Limit=start + limit - total)
        for item in answer["Items"]:
            if total >= start:
                keys.append({"pk": item["pk"], "sk": item["sk"]})
            total += 1
        more = answer.get("LastEvaluatedKey")
        if more is None:
            break
        request["ExclusiveStartKey"] = more
    while more is not None:  # past the page: counted, not read out
        answer = aws.table(TABLE).query(**request, Select="COUNT")
        total += int(answer["Count"])
        more = answer.get("LastEvaluatedKey")
        request["ExclusiveStartKey"] = more
    if not keys:
        return [], total
    found = {(i["pk"], i["sk"]): i for i in aws.batch_get(TABLE, keys)}
    return [found[(k["pk"], k["sk"])] for k in keys if (k["pk"], k["sk"]) in found], total


def status_page(
    kind: str, app_id: str, account_id: str | None, status: str, query: PageQuery
) -> tuple[list[dict[str, Any]], int]:
    """A page of the app's (or one account's) invoices, deposits or withdrawals (`kind`) in one status, newest
    first, from the `status` or `account-status` index (`status_keys`)."""
    if account_id is not None:
        return indexed_page(
            "account-status", "accountStatusKey", f"{kind}#{account_id}#{status}", query.page, query.limit
        )
    return indexed_page("status", "statusKey", f"{kind}#{app_id}#{status}", query.page, query.limit)
