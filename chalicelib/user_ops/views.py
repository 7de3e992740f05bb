"""The wire form of a stored user operation (answers, lists and the settlement's webhook event)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from chalicelib.user_ops.models import EmbeddedUsage, UserOperation, UserOpRecord


def view(record: UserOpRecord, usage: Mapping[str, Any] | None = None) -> UserOperation:
    item = record.to_item()
    fields = {k: v for k, v in item.items() if k in UserOperation.model_fields and k != "clientGasTankUsageHistory"}
    embedded = None
    if usage is not None:
        embedded = EmbeddedUsage.model_validate({k: v for k, v in usage.items() if k in EmbeddedUsage.model_fields})
    return UserOperation.model_validate({**fields, "clientGasTankUsageHistory": embedded})
