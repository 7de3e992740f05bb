"""User operations in table `user-ops`.

- `USEROP#<id>` / `OP`: the operation: the seed's fields plus the built operation (`op`, its unpacked JSON), the
  owner's address, the charge (`payerTankId`, `usageSeq`, `deducted`, `deductedNative`) once submitted.
- `APP#<appId>` and `OWNER#<ownerRecordId>`: lists (platform/pagination) of submitted operations, entries
  `{userOpId}`; a page reads the operations themselves in one batch.
"""

from __future__ import annotations

from typing import Any

from chalicelib.platform import aws
from chalicelib.platform.pagination import AppendOnlyList

TABLE = "user-ops"


def key(user_op_id: str) -> dict[str, str]:
    return {"pk": f"USEROP#{user_op_id}", "sk": "OP"}


def get(user_op_id: str) -> dict[str, Any] | None:
    item: dict[str, Any] | None = aws.table(TABLE).get_item(Key=key(user_op_id), ConsistentRead=True).get("Item")
    return item


def app_list(app_id: str) -> AppendOnlyList:
    return AppendOnlyList(TABLE, f"APP#{app_id}")


def owner_list(owner_record_id: str) -> AppendOnlyList:
    return AppendOnlyList(TABLE, f"OWNER#{owner_record_id}")


def many(user_op_ids: list[str]) -> list[dict[str, Any]]:
    found = {str(i["id"]): i for i in aws.batch_get(TABLE, [key(i) for i in user_op_ids])} if user_op_ids else {}
    return [found[i] for i in user_op_ids if i in found]
