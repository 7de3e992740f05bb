"""Smart-account owners and accounts in table `smart-accounts`.

- `APP#<appId>#ADDR#<address lower-case>` / `OWNER`: one per owner address and app (`ownerRecordId`); its
  conditional put is what makes creation idempotent, also under concurrent calls.
- `OWNER#<id>` / `OWNER`: the owner record (and `tankId`, the owner's gas tank).
- `OWNER#<id>` / `ACCOUNT#<chainId>`: the owner's (simple) account on one network; `ACCOUNT#<chainId>#EIP7702` its
  EIP-7702 account there.
- `ACCOUNT#<accountId>` / `ACCOUNT`: which owner and network an account id names (user operations take it).
- `APP#<appId>#OWNERS`: the app's list (platform/pagination) of its owner records, entries `{ownerRecordId,
  createdAt}`, appended in the owner's creation transaction.
"""

from __future__ import annotations

from typing import Any

from chalicelib.platform import aws
from chalicelib.platform.pagination import AppendOnlyList
from chalicelib.smart_accounts.models import Owner, SmartAccount

TABLE = "smart-accounts"


def address_key(app_id: str, address: str) -> dict[str, str]:
    return {"pk": f"APP#{app_id}#ADDR#{address.lower()}", "sk": "OWNER"}


def owner_key(owner_record_id: str) -> dict[str, str]:
    return {"pk": f"OWNER#{owner_record_id}", "sk": "OWNER"}


def account_key(owner_record_id: str, chain_id: int, account_type: str = "simple") -> dict[str, str]:
    suffix = "#EIP7702" if account_type == "eip7702" else ""
    return {"pk": f"OWNER#{owner_record_id}", "sk": f"ACCOUNT#{chain_id:020d}{suffix}"}


def owner_items(owner_record_id: str) -> tuple[Owner | None, list[SmartAccount]]:
    """The owner record and its accounts, in one query."""
    from boto3.dynamodb.conditions import Key

    items: list[dict[str, Any]] = aws.table(TABLE).query(
        KeyConditionExpression=Key("pk").eq(f"OWNER#{owner_record_id}"), ConsistentRead=True
    )["Items"]
    owner = next((Owner.from_item(i) for i in items if i["sk"] == "OWNER"), None)
    return owner, [SmartAccount.from_item(i) for i in items if str(i["sk"]).startswith("ACCOUNT#")]


def record_id_for_address(app_id: str, address: str) -> str | None:
    item = aws.table(TABLE).get_item(Key=address_key(app_id, address), ConsistentRead=True).get("Item")
    return str(item["ownerRecordId"]) if item else None


def app_owners(app_id: str) -> AppendOnlyList:
    """The app's owner records in order of creation (entries `{ownerRecordId, createdAt}`)."""
    return AppendOnlyList(TABLE, f"APP#{app_id}#OWNERS")


def account_pointer_key(account_id: str) -> dict[str, str]:
    return {"pk": f"ACCOUNT#{account_id}", "sk": "ACCOUNT"}


def account_by_id(account_id: str) -> tuple[SmartAccount, Owner] | None:
    """The account and its owner record, by account id."""
    pointer = aws.table(TABLE).get_item(Key=account_pointer_key(account_id), ConsistentRead=True).get("Item")
    if pointer is None:
        return None
    owner, accounts = owner_items(str(pointer["ownerRecordId"]))
    account = next((a for a in accounts if a.id == account_id), None)
    return (account, owner) if account is not None and owner is not None else None
