"""Withdrawal limits (settings, per app and token code) and the per-app destination allowlist.

Both are enforced twice: by the API when a withdrawal is requested, and by the cosigner before it signs
(policy.py), each from its own reading of the settings and records.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from chalicelib.custody.store import TABLE, get
from chalicelib.custody.tokens import Accepted
from chalicelib.platform import aws, clock
from chalicelib.platform.amounts import parse_amount
from chalicelib.platform.settings import load_settings


@dataclass(frozen=True)
class Limits:
    per_withdrawal: int | None  # smallest units
    per_day: int | None


def limits_for(pair: Accepted) -> Limits:
    configured: dict[str, Any] = json.loads(load_settings().withdrawal_limits).get(pair.token.tokenCode, {})

    def units(name: str) -> int | None:
        text = configured.get(name)
        return parse_amount(text, pair.token.decimals, name) if text else None

    return Limits(units("perWithdrawal"), units("perDay"))


def day_key(app_id: str, pair: Accepted, day: str | None = None) -> dict[str, str]:
    """The app's withdrawn total of a token on a UTC day (`YYYY-MM-DD`)."""
    return {"pk": f"DAY#{app_id}#{pair.key}", "sk": day or clock.iso_now()[:10]}


def allowlist(app_id: str) -> dict[str, Any]:
    item = get(f"ALLOWLIST#{app_id}", "ALLOWLIST")
    return {
        "enabled": bool(item and item.get("enabled")),
        "addresses": sorted(item.get("addresses", [])) if item else [],
        "updatedAt": item.get("updatedAt") if item else None,
    }


def allowed(app_id: str, address: str) -> bool:
    listed = allowlist(app_id)
    return not listed["enabled"] or address.lower() in {a.lower() for a in listed["addresses"]}


def set_allowlist(app_id: str, enabled: bool, addresses: list[str]) -> dict[str, Any]:
    item = {
        "pk": f"ALLOWLIST#{app_id}",
        "sk": "ALLOWLIST",
        "enabled": enabled,
        "addresses": sorted(set(addresses)),
        "updatedAt": clock.iso_now(),
    }
    aws.write(aws.put("allowlist", TABLE, item, None))
    return allowlist(app_id)
