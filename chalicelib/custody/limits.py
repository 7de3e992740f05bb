"""Withdrawal limits (settings, per app and token code) and the per-app destination allowlist.

Both are enforced twice: by the API when a withdrawal is requested, and by the cosigner before it signs
(policy.py), each from its own reading. Neither is writable by the API function: limits are settings (the
functions' environment) and the allowlist lives in table `custody-policy`, which only the operator's admin command
writes (`python -m chalicelib.tenancy.admin set-withdrawal-allowlist`); the API function and the cosigner only
read it. The cosigner keeps its own daily totals (policy.py), so an API function that rewrites the custody table
still cannot pass a limit.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from chalicelib.custody.tokens import TokenOnNetwork
from chalicelib.platform import amounts, aws, clock
from chalicelib.platform.settings import load_settings


@dataclass(frozen=True)
class Limits:
    per_withdrawal: int | None  # smallest units
    per_day: int | None


CUSTODY_POLICY_TABLE = "custody-policy"  # the operator's custody policy: allowlists (not the cosigner's table)


def limits_for(pair: TokenOnNetwork) -> Limits:
    configured: dict[str, Any] = json.loads(load_settings().withdrawal_limits).get(pair.token.tokenCode, {})

    def units(name: str) -> int | None:
        text = configured.get(name)
        if text is None:
            return None
        # Exact, and rounded down to what the token can express (a limit may be given more precisely).
        return amounts.base_units(text, pair.token.decimals, round_down=True)

    return Limits(units("perWithdrawal"), units("perDay"))


def day_key(app_id: str, pair: TokenOnNetwork, day: str | None = None) -> dict[str, str]:
    """The app's withdrawn total of a token on a UTC day (`YYYY-MM-DD`)."""
    return {"pk": f"DAY#{app_id}#{pair.key}", "sk": day or clock.iso_now()[:10]}


def allowlist(app_id: str) -> dict[str, Any]:
    item = (
        aws.table(CUSTODY_POLICY_TABLE)
        .get_item(Key={"pk": f"ALLOWLIST#{app_id}", "sk": "ALLOWLIST"}, ConsistentRead=True)
        .get("Item")
    )
    return {
        "enabled": bool(item and item.get("enabled")),
        "addresses": sorted(item.get("addresses", [])) if item else [],
        "updatedAt": item.get("updatedAt") if item else None,
    }


def allowed(app_id: str, address: str) -> bool:
    listed = allowlist(app_id)
    return not listed["enabled"] or address.lower() in {a.lower() for a in listed["addresses"]}


def set_allowlist(app_id: str, enabled: bool, addresses: list[str]) -> dict[str, Any]:
    """The operator's command only (no function may write table `custody-policy`)."""
    item = {
        "pk": f"ALLOWLIST#{app_id}",
        "sk": "ALLOWLIST",
        "enabled": enabled,
        "addresses": sorted(set(addresses)),
        "updatedAt": clock.iso_now(),
    }
    aws.write(aws.put("allowlist", CUSTODY_POLICY_TABLE, item, None))
    return allowlist(app_id)
