"""The app's webhook settings (pk `APP#<appId>`, sk `SETTINGS` in table `webhooks`): url, updatedAt, and
`disabled` while deliveries are paused (the console's switch). Every write takes `also`: records appended to lists
in the same transaction (the console's audit log)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chalicelib.platform import aws, unit_of_work
from chalicelib.platform.pagination import AppendOnlyList
from chalicelib.platform.unit_of_work import Plan
from chalicelib.webhooks import store
from chalicelib.webhooks.store import TABLE

Appended = tuple[AppendOnlyList, dict[str, Any]]


def key(app_id: str) -> dict[str, str]:
    return {"pk": f"APP#{app_id}", "sk": "SETTINGS"}


def get(app_id: str) -> dict[str, Any] | None:
    return store.get(key(app_id))


def deliverable_url(app_id: str) -> str | None:
    """The URL a new delivery goes to: None without settings or while deliveries are paused."""
    current = get(app_id)
    return None if current is None or current.get("disabled") else str(current["url"])


def put(app_id: str, url: str, updated_at: str, also: Sequence[Appended] = ()) -> None:
    item = aws.put("settings", TABLE, {**key(app_id), "url": url, "updatedAt": updated_at}, condition=None)
    _commit(item, also)


def set_disabled(app_id: str, disabled: bool, updated_at: str, also: Sequence[Appended] = ()) -> None:
    """Pause or resume deliveries (aws.TransactionCancelledError without settings)."""
    changes = aws.Changes(set={"disabled": disabled, "updatedAt": updated_at})
    _commit(aws.update("settings", TABLE, key(app_id), changes), also)


def delete(app_id: str, also: Sequence[Appended] = ()) -> None:
    _commit(aws.delete("settings", TABLE, key(app_id)), also)


def _commit(item: aws.TxItem, also: Sequence[Appended]) -> None:
    if also:
        unit_of_work.commit(Plan(items=[item], lists=list(also)))
    else:
        aws.write(item)
