"""A second, deliberately plain evaluator of signing policies, written from the team's written rules alone (not from
chalicelib/policies/engine.py): tests/unit/test_policy_property.py checks the engine agrees with it on random
policies and requests. It takes plain data and follows the numbered steps top to bottom, so a reader can hold each
line against the written rule.

Inputs:
- `policy`: the policy document as JSON (a dict, addresses in any case).
- `request`: one of
  - {"kind": "transaction", "chain_id", "to": address | None, "value": int, "data": bytes,
     "decoded": bool, "token_transfer": (recipient, amount) | None}
    where `decoded`/`token_transfer` say what the calldata IS (the test built it): whether it is one of the standard
    calls that decodes strictly, and the token movement it makes (the token being `to`). The test counts an
    ERC-1155 batch whose ids and amounts differ in length as not decoded (no token moves like that).
  - {"kind": "personal_message"}
  - {"kind": "typed_data", "chain_id": int | None, "verifying_contract": address | None, "primary_type": str}
- `usage`: {"spent": {asset: int}, "count": int}, the 24 h before this signature.
- `chain_ids`: network name -> chain id.
Returns (allowed, rule).
"""

from __future__ import annotations

from typing import Any


def _low(address: str | None) -> str | None:
    return None if address is None else address.lower()


def _default(policy: dict[str, Any]) -> tuple[bool, str]:
    return policy.get("default", "allow") == "allow", "default"


def reference_transfers(request: dict[str, Any]) -> list[tuple[str, int, str]]:
    """(asset, amount, recipient) of a transaction request, per the decoding rules."""
    to = _low(request["to"])
    if to is None:  # a contract creation: its coin goes to an address no rule can name
        return [("native", request["value"], "")] if request["value"] > 0 else []
    transfers = []
    if request["value"] > 0 or not request["data"]:
        transfers.append(("native", request["value"], to))
    if request["token_transfer"] is not None:
        recipient, amount = request["token_transfer"]
        transfers.append((to, amount, recipient.lower()))
    return transfers


def reference_decision(
    policy: dict[str, Any], request: dict[str, Any], usage: dict[str, Any], chain_ids: dict[str, int]
) -> tuple[bool, str]:
    networks = policy.get("networks")
    allowed_chains = None if networks is None else {chain_ids[name] for name in networks}
    messages = policy.get("messages")

    if request["kind"] == "personal_message":
        if messages is None or messages.get("personal") is None:
            return _default(policy)
        return messages["personal"] is True, "messages.personal"

    if request["kind"] == "typed_data":
        chain_id = request["chain_id"]
        if allowed_chains is not None and chain_id is not None and chain_id not in allowed_chains:
            return False, "networks"
        if messages is None or messages.get("typedData") is None:
            return _default(policy)
        for entry in messages["typedData"]:
            if entry.get("chainId") is not None and entry["chainId"] != chain_id:
                continue
            wanted = _low(entry.get("verifyingContract"))
            if wanted is not None and wanted != _low(request["verifying_contract"]):
                continue
            if entry.get("primaryType") is not None and entry["primaryType"] != request["primary_type"]:
                continue
            return True, "messages.typedData"
        return False, "messages.typedData"

    # A transaction.
    to = _low(request["to"])
    data = request["data"]
    has_data = len(data) > 0
    selector = "0x" + data[:4].hex() if len(data) >= 4 else None
    transfers = reference_transfers(request)
    decoded = to is not None and (not has_data or request["decoded"])
    opaque = has_data and not decoded  # calldata we cannot read: fail closed where it matters

    def total(asset: str) -> int:
        return sum(amount for a, amount, _ in transfers if a == asset)

    # 1. networks
    if allowed_chains is not None and request["chain_id"] not in allowed_chains:
        return False, "networks"
    # 2. no transaction rules
    rules = policy.get("transactions")
    if rules is None:
        return _default(policy)
    # 3. destinations.deny
    destinations = rules.get("destinations") or {}
    if destinations.get("deny") is not None:
        denied = {a.lower() for a in destinations["deny"]}
        if any(recipient in denied for _, _, recipient in transfers) or opaque:
            return False, "transactions.destinations.deny"
    # 4. destinations.allow
    if destinations.get("allow") is not None:
        permitted = {a.lower() for a in destinations["allow"]}
        if any(recipient not in permitted for _, _, recipient in transfers) or opaque:
            return False, "transactions.destinations.allow"
    # 5. contracts. An entry matches on `to` and the selector alone, so a plain coin send to a listed address
    # (selectors None) matches too; only calls and creations must match one.
    contracts = rules.get("contracts")
    is_call = has_data or to is None
    matched_contract = contracts is not None and any(
        entry["address"].lower() == to
        and (entry.get("selectors") is None or selector in {s.lower() for s in entry["selectors"]})
        for entry in contracts
    )
    if contracts is not None and is_call and not matched_contract:
        return False, "transactions.contracts"
    # 6. raw
    if rules.get("raw", True) is False and is_call and not (matched_contract or decoded):
        return False, "transactions.raw"
    # 7. maxValue
    max_value = {k.lower(): int(v) for k, v in (rules.get("maxValue") or {}).items()}
    for asset in sorted(max_value):
        if opaque and to == asset:
            return False, f"transactions.maxValue.{asset}"
        if total(asset) > max_value[asset]:
            return False, f"transactions.maxValue.{asset}"
    # 8. maxValuePer24h
    per_day = {k.lower(): int(v) for k, v in (rules.get("maxValuePer24h") or {}).items()}
    for asset in sorted(per_day):
        if opaque and to == asset:
            return False, f"transactions.maxValuePer24h.{asset}"
        if total(asset) > 0 and usage["spent"].get(asset, 0) + total(asset) > per_day[asset]:
            return False, f"transactions.maxValuePer24h.{asset}"
    # 9. maxCountPer24h
    if rules.get("maxCountPer24h") is not None and usage["count"] + 1 > rules["maxCountPer24h"]:
        return False, "transactions.maxCountPer24h"
    # 10. default, with the positive matches in their order
    positive = None
    if matched_contract:
        positive = "transactions.contracts"
    elif destinations.get("allow") is not None and len(transfers) >= 1:
        positive = "transactions.destinations.allow"
    elif (
        len(transfers) >= 1 and not opaque and all(asset in max_value or asset in per_day for asset, _, _ in transfers)
    ):
        if all(asset in max_value for asset, _, _ in transfers):
            positive = "transactions.maxValue"
        else:
            positive = "transactions.maxValuePer24h"
    if policy.get("default", "allow") == "allow":
        return True, positive or "default"
    if positive is not None:
        return True, positive
    return False, "default"
