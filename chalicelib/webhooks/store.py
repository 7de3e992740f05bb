"""Webhook settings per app. Table `webhooks`: pk `APP#<appId>`, sk `SETTINGS`: url, updatedAt."""

from __future__ import annotations

from typing import Any

from chalicelib.platform import aws


def _key(app_id: str) -> dict[str, str]:
    return {"pk": f"APP#{app_id}", "sk": "SETTINGS"}


def get(app_id: str) -> dict[str, Any] | None:
    item: dict[str, Any] | None = aws.table("webhooks").get_item(Key=_key(app_id), ConsistentRead=True).get("Item")
    return item


def put(app_id: str, url: str, updated_at: str) -> None:
    aws.write(aws.put("settings", "webhooks", {**_key(app_id), "url": url, "updatedAt": updated_at}, condition=None))


def delete(app_id: str) -> None:
    aws.write(aws.delete("settings", "webhooks", _key(app_id)))
