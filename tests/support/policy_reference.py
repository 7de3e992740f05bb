"""A second, deliberately plain evaluator of signing policies, written from the team's written rules alone (not from
chalicelib/policies/engine.py): tests/unit/test_policy_property.py checks the engine agrees with it on random
policies and requests. It takes plain data and follows the numbered steps top to bottom, so a reader can hold each
line against the written rule.

Inputs:
- `policy`: the policy document as JSON (a dict, addresses in any case).
- `request`: one of
  - {"kind": "transaction", "chain_id", "to": address | None, "value": int, "data": bytes,
     "decoded": bool, "token_transfer": (recipient, amount[, unbounded]) | None, "token"?: address | None,
     "revoked"?: address | None}
    where `decoded`/`token_transfer`/`token`/`revoked` say what the calldata IS (the test built it): whether it is
    one of the standard calls that decodes strictly, the token movement it makes (of `token` when given, as
    Permit2's `approve` names the token it grants; else of `to`; an approval is a movement of its amount to its
    spender, `unbounded` when it has no bound), and the spender whose approval it withdraws (a revoke, which moves
    nothing). The test counts an ERC-1155 batch whose ids and amounts differ in length as not decoded (no token
    moves like that).
  - {"kind": "personal_message", "size": int}: the message's length in bytes
  - {"kind": "typed_data", "chain_id": int | None, "verifying_contract": address | None, "primary_type": str,
     "permit"?: {"transfers": [(token, amount, spender, unbounded)], "revokes": [spender]} | None}
    where `permit` says what the document IS (the test built it): one of the permits the rules decode, and what it
    grants; None for any other typed data.
  - {"kind": "authorization", "chain_id": int, "delegate": address}: an EIP-7702 authorization (chain id 0: any
    chain; the zero address: a revocation).
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


def reference_transfers(request: dict[str, Any]) -> list[tuple[str, int, str, bool]]:
    """(asset, amount, recipient, unbounded) of a transaction request, per the decoding rules."""
    to = _low(request["to"])
    if to is None:  # a contract creation: its coin goes to an address no rule can name
        return [("native", request["value"], "", False)] if request["value"] > 0 else []
    transfers = []
    if request["value"] > 0 or not request["data"]:
        transfers.append(("native", request["value"], to, False))
    if request["token_transfer"] is not None:
        recipient, amount, *rest = request["token_transfer"]
        token = _low(request.get("token")) or to
        transfers.append((token, amount, recipient.lower(), bool(rest and rest[0])))
    return transfers


def reference_revokes(request: dict[str, Any]) -> list[str]:
    """The spenders whose approval a transaction request withdraws (a creation calls no token: none)."""
    if request["to"] is None or not request.get("revoked"):
        return []
    return [request["revoked"].lower()]


def _value_rules(
    rules: dict[str, Any],
    transfers: list[tuple[str, int, str, bool]],
    revoked: list[str],
    opaque: bool,
    to: str | None,
    usage: dict[str, Any],
) -> tuple[bool, str] | None:
    """Steps 3, 4, 7 and 8, for a transaction or a permit: the refusal, if any."""

    def total(asset: str) -> int:
        return sum(amount for a, amount, _, _ in transfers if a == asset)

    def unbounded(asset: str) -> bool:
        return any(a == asset and flag for a, _, _, flag in transfers)

    # 3. destinations.deny: every recipient, and every spender whose approval is withdrawn
    destinations = rules.get("destinations") or {}
    if destinations.get("deny") is not None:
        denied = {a.lower() for a in destinations["deny"]}
        if any(recipient in denied for _, _, recipient, _ in transfers) or opaque:
            return False, "transactions.destinations.deny"
        if any(spender.lower() in denied for spender in revoked):
            return False, "transactions.destinations.deny"
    # 4. destinations.allow: every recipient (a withdrawal has none)
    if destinations.get("allow") is not None:
        permitted = {a.lower() for a in destinations["allow"]}
        if any(recipient not in permitted for _, _, recipient, _ in transfers) or opaque:
            return False, "transactions.destinations.allow"
    # 7. maxValue
    max_value = {k.lower(): int(v) for k, v in (rules.get("maxValue") or {}).items()}
    for asset in sorted(max_value):
        if (opaque and to == asset) or unbounded(asset) or total(asset) > max_value[asset]:
            return False, f"transactions.maxValue.{asset}"
    # 8. maxValuePer24h
    per_day = {k.lower(): int(v) for k, v in (rules.get("maxValuePer24h") or {}).items()}
    for asset in sorted(per_day):
        if (opaque and to == asset) or unbounded(asset):
            return False, f"transactions.maxValuePer24h.{asset}"
        if total(asset) > 0 and usage["spent"].get(asset, 0) + total(asset) > per_day[asset]:
            return False, f"transactions.maxValuePer24h.{asset}"
    return None


def _authorization(
    policy: dict[str, Any], request: dict[str, Any], allowed_chains: set[int] | None
) -> tuple[bool, str]:
    """The written rules of an EIP-7702 authorization, in their order."""
    delegate = request["delegate"].lower()
    # 1. A revocation (the zero address) is always allowed.
    if delegate == "0x" + "0" * 40:
        return True, "authorizations.revoke"
    rules = policy.get("authorizations")
    # 2. Any chain (chain id 0): only with anyChain; without an authorizations rule the default refuses it, always.
    if request["chain_id"] == 0:
        if rules is None:
            return False, "default"
        if rules.get("anyChain", False) is not True:
            return False, "authorizations.anyChain"
    # 3. Otherwise the chain must be one of `networks`, when given.
    elif allowed_chains is not None and request["chain_id"] not in allowed_chains:
        return False, "networks"
    # 4. A delegates list decides alone.
    if rules is not None and rules.get("delegates") is not None:
        return delegate in {d.lower() for d in rules["delegates"]}, "authorizations.delegates"
    # 5. Under a daily cap naming an asset or an allow list, only a listed delegate: never the default.
    transactions = policy.get("transactions") or {}
    if (
        len(transactions.get("maxValuePer24h") or {}) > 0
        or (transactions.get("destinations") or {}).get("allow") is not None
    ):
        return False, "authorizations.delegates"
    return _default(policy)


def reference_decision(
    policy: dict[str, Any], request: dict[str, Any], usage: dict[str, Any], chain_ids: dict[str, int]
) -> tuple[bool, str]:
    networks = policy.get("networks")
    allowed_chains = None if networks is None else {chain_ids[name] for name in networks}
    messages = policy.get("messages")

    if request["kind"] == "authorization":
        return _authorization(policy, request, allowed_chains)

    if request["kind"] == "personal_message":
        if request["size"] == 32:
            raw_hashes = None if messages is None else messages.get("rawHashes")
            if raw_hashes is not None:
                return raw_hashes is True, "messages.rawHashes"
            rules = policy.get("transactions") or {}
            per_day_named = len(rules.get("maxValuePer24h") or {}) > 0
            allow_list_set = (rules.get("destinations") or {}).get("allow") is not None
            if per_day_named or allow_list_set:
                return False, "messages.rawHashes"
        if messages is None or messages.get("personal") is None:
            return _default(policy)
        return messages["personal"] is True, "messages.personal"

    if request["kind"] == "typed_data":
        chain_id = request["chain_id"]
        if allowed_chains is not None and chain_id is not None and chain_id not in allowed_chains:
            return False, "networks"
        permit = request.get("permit")
        if permit is not None and policy.get("transactions") is not None:
            transfers = [
                (token.lower(), amount, spender.lower(), flag) for token, amount, spender, flag in permit["transfers"]
            ]
            refusal = _value_rules(policy["transactions"], transfers, permit["revokes"], False, None, usage)
            if refusal is not None:
                return refusal
        entries = None if messages is None else messages.get("typedData")
        for entry in entries or []:
            if entry.get("chainId") is not None and entry["chainId"] != chain_id:
                continue
            wanted = _low(entry.get("verifyingContract"))
            if wanted is not None and wanted != _low(request["verifying_contract"]):
                continue
            if entry.get("primaryType") is not None and entry["primaryType"] != request["primary_type"]:
                continue
            return True, "messages.typedData"
        # Not a permit, under a daily cap naming an asset or an allow list: only a matching entry allows it.
        if permit is None:
            rules = policy.get("transactions") or {}
            per_day_named = len(rules.get("maxValuePer24h") or {}) > 0
            allow_list_set = (rules.get("destinations") or {}).get("allow") is not None
            if per_day_named or allow_list_set:
                return False, "messages.typedData"
        if entries is None:
            return _default(policy)
        return False, "messages.typedData"

    # A transaction.
    to = _low(request["to"])
    data = request["data"]
    has_data = len(data) > 0
    selector = "0x" + data[:4].hex() if len(data) >= 4 else None
    transfers = reference_transfers(request)
    decoded = to is not None and (not has_data or request["decoded"])
    opaque = has_data and not decoded  # calldata we cannot read: fail closed where it matters
    revoked = reference_revokes(request)

    # 1. networks
    if allowed_chains is not None and request["chain_id"] not in allowed_chains:
        return False, "networks"
    # 2. no transaction rules
    rules = policy.get("transactions")
    if rules is None:
        return _default(policy)
    # 3. and 4. destinations
    destinations = rules.get("destinations") or {}
    refusal = _value_rules({"destinations": destinations}, transfers, revoked, opaque, to, usage)
    if refusal is not None:
        return refusal
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
    # 7. and 8. value limits
    limits = {"maxValue": rules.get("maxValue"), "maxValuePer24h": rules.get("maxValuePer24h")}
    refusal = _value_rules(limits, transfers, revoked, opaque, to, usage)
    if refusal is not None:
        return refusal
    max_value = {k.lower() for k in (rules.get("maxValue") or {})}
    per_day = {k.lower() for k in (rules.get("maxValuePer24h") or {})}
    # 9. maxCountPer24h
    if rules.get("maxCountPer24h") is not None and usage["count"] + 1 > rules["maxCountPer24h"]:
        return False, "transactions.maxCountPer24h"
    # 10. default, with the positive matches in their order
    positive = None
    if matched_contract:
        positive = "transactions.contracts"
    elif destinations.get("allow") is not None and len(transfers) >= 1:
        positive = "transactions.destinations.allow"
    elif len(transfers) >= 1 and not opaque and all(asset in max_value or asset in per_day for asset, *_ in transfers):
        if all(asset in max_value for asset, *_ in transfers):
            positive = "transactions.maxValue"
        else:
            positive = "transactions.maxValuePer24h"
    if policy.get("default", "allow") == "allow":
        return True, positive or "default"
    if positive is not None:
        return True, positive
    return False, "default"
