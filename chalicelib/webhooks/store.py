"""Webhook settings per app. Table `webhooks`: pk `APP#<appId>`, sk `SETTINGS`: url, updatedAt."""

from __future__ import annotations

from typing import Any

from chalicelib.platform import aws, outbox


def get(app_id: str) -> dict[str, Any] | None:
    return outbox.subscription(app_id)


def put(app_id: str, url: str, updated_at: str) -> None:
    aws.write(
        aws.put(
            "settings",
            "webhooks",
            {**outbox.subscription_key(app_id), "url": url, "updatedAt": updated_at},
            condition=None,
        )
    )


def delete(app_id: str) -> None:
    aws.write(aws.delete("settings", "webhooks", outbox.subscription_key(app_id)))
