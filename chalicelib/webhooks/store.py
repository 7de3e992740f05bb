"""The `webhooks` table: its items and the module that writes each.

Keys (pk / sk):
* `APP#<appId>` / `SETTINGS`: the app's webhook settings (settings.py);
* `EVENT#<eventId>` / `EVENT`: an event, stored once under its id with the envelope the app receives (events.py);
* `DELIVERY#<deliveryId>` / `DELIVERY`: a delivery of an event to the app's URL, the `DeliveryRecord` machine
  (deliveries.py); while it is `pending` it sits in the sparse index `due` (platform/due.py);
* `DELIVERY#<deliveryId>` / `ATTEMPT#<at>#<n>`: each attempt of a delivery (attempts.py);
* `DELIVERIES#<appId>`: the app's deliveries, newest first (pagination.AppendOnlyList, deliveries.py).
"""

from __future__ import annotations

from typing import Any

from chalicelib.platform import aws

TABLE = "webhooks"


def get(key: dict[str, str]) -> dict[str, Any] | None:
    """One item, read consistently."""
    item: dict[str, Any] | None = aws.table(TABLE).get_item(Key=key, ConsistentRead=True).get("Item")
    return item
