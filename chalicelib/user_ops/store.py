"""User operations in table `user-ops`.

- `USEROP#<id>` / `OP`: the operation (models.UserOpRecord).
- `APP#<appId>` and `OWNER#<ownerRecordId>`: lists (platform/pagination) of submitted operations, entries
  `{userOpId}`; a page reads the operations themselves in one batch.
"""

from __future__ import annotations

from chalicelib.platform import aws
from chalicelib.platform.pagination import AppendOnlyList
from chalicelib.user_ops.models import TABLE, UserOpRecord

__all__ = ["TABLE", "app_list", "get", "key", "many", "owner_list"]


def key(user_op_id: str) -> dict[str, str]:
    return {"pk": f"USEROP#{user_op_id}", "sk": "OP"}


def get(user_op_id: str) -> UserOpRecord | None:
    item = aws.table(TABLE).get_item(Key=key(user_op_id), ConsistentRead=True).get("Item")
    return UserOpRecord.from_item(item) if item is not None else None


def app_list(app_id: str) -> AppendOnlyList:
    return AppendOnlyList(TABLE, f"APP#{app_id}")


def owner_list(owner_record_id: str) -> AppendOnlyList:
    return AppendOnlyList(TABLE, f"OWNER#{owner_record_id}")


def many(user_op_ids: list[str]) -> list[UserOpRecord]:
    """The operations, in the order of `user_op_ids` (missing ones left out), in one batch."""
    items = aws.batch_get(TABLE, [key(i) for i in user_op_ids]) if user_op_ids else []
    found = {str(i["id"]): UserOpRecord.from_item(i) for i in items}
    return [found[i] for i in user_op_ids if i in found]
