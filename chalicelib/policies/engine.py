"""The decision: may this payload be signed under this document? Pure: the caller brings the usage and networks.

Rules are checked in a fixed order and the first refusal wins, so a deny always beats an allow. Every rule that
needs a transaction's recipient or amount refuses call data it cannot decode (fail closed). A typed-data permit is
spending too: its grants face `destinations`, `maxValue` and `maxValuePer24h` before `messages.typedData`. Other
typed data, which the cosigner does not read, is allowed under a daily cap or an allow list only by a
`messages.typedData` entry that matches it. `rule` names the deciding rule by its path in the document
(`transactions.maxValuePer24h.native`), so that a refusal can be traced to the line that caused it; `reason` is one
sentence for a person, without payload contents beyond addresses and amounts.

An EIP-7702 authorization hands the whole account to the delegate's code, which may then move anything: revoking
one (the zero address) is always allowed; one for any chain (chain id 0) only under `authorizations.anyChain`
(without `authorizations`, `default` refuses it even when it allows everything else); `networks` bounds the chain of
any other; a `delegates` list decides alone; and under a daily cap or an allow list only a listed delegate is
allowed, never the default (as for typed data the cosigner cannot read).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field

from chalicelib.policies.document import NATIVE, PolicyDocument, TransactionRules
from chalicelib.policies.facts import (
    ZERO_ADDRESS,
    AuthorizationFacts,
    Facts,
    PersonalMessageFacts,
    TransactionFacts,
    Transfer,
    TypedDataFacts,
)

__all__ = ["RAW_HASH_BYTES", "Decision", "Usage", "any_chain_refusal", "evaluate"]

RAW_HASH_BYTES = 32  # a personal message this long may be the hash of anything (a user operation, a transaction)


@dataclass(frozen=True)
class Usage:
    """A wallet's rolling 24 h as the cosigner counts it, before the signature being decided."""

    spent: Mapping[str, int] = field(default_factory=dict)  # asset ("native" or lowercase token) -> base units
    count: int = 0  # transactions signed (permits add to `spent`, not to the count)


@dataclass(frozen=True)
class Decision:
    allowed: bool
    rule: str  # the deciding rule's path, e.g. "transactions.maxValuePer24h.native", "default", "messages.personal"
    reason: str


def evaluate(document: PolicyDocument, facts: Facts, usage: Usage, chain_ids: Mapping[str, int]) -> Decision:
    """`chain_ids`: network name -> chain id (the registry's); a name it lacks matches no chain."""
    if isinstance(facts, TransactionFacts):
        return _transaction(document, facts, usage, chain_ids)
    if isinstance(facts, PersonalMessageFacts):
        return _personal(document, facts)
    if isinstance(facts, AuthorizationFacts):
        return _authorization(document, facts, chain_ids)
    return _typed_data(document, facts, usage, chain_ids)


def _allow(rule: str, reason: str) -> Decision:
    return Decision(True, rule, reason)


def _deny(rule: str, reason: str) -> Decision:
    return Decision(False, rule, reason)


def _default(document: PolicyDocument, what: str) -> Decision:
    if document.default == "allow":
        return _allow("default", f"No rule of the policy decides this {what}, and its default is allow.")
    return _deny("default", f"No rule of the policy allows this {what}, and its default is deny.")


def _chains(document: PolicyDocument, chain_ids: Mapping[str, int]) -> set[int]:
    return {chain_ids[name] for name in document.networks or () if name in chain_ids}


def _asset_name(asset: str) -> str:
    return "the native coin" if asset == NATIVE else f"token {asset}"


def _transaction(
    document: PolicyDocument, facts: TransactionFacts, usage: Usage, chain_ids: Mapping[str, int]
) -> Decision:
    if document.networks is not None and facts.chain_id not in _chains(document, chain_ids):
        return _deny("networks", f"The policy does not allow transactions on chain {facts.chain_id}.")
    rules = document.transactions
    if rules is None:
        return _default(document, "transaction")
    undecoded = facts.has_data and not facts.decoded
    called = facts.has_data or facts.to is None
    matched = _contract_match(rules, facts)
    moved = _Moved("This", "sends", facts.transfers, facts.revokes, undecoded, facts.to)
    refusal = (
        _destinations(rules, moved)
        or _contracts(rules, facts, called, matched)
        or _raw(rules, facts, called, matched)
        or _limits(rules, moved, usage)
        or _count(rules, usage)
    )
    if refusal is not None:
        return refusal
    positive = _positive_match(rules, facts, matched, undecoded)
    if positive is not None:
        return positive
    return _default(document, "transaction")


def _contract_match(rules: TransactionRules, facts: TransactionFacts) -> bool:
    if rules.contracts is None or facts.to is None:
        return False
    return any(
        entry.address == facts.to and (entry.selectors is None or facts.selector in entry.selectors)
        for entry in rules.contracts
    )


@dataclass(frozen=True)
class _Moved:
    """What a payload moves, as the value rules see it: a transaction's transfers or a permit's grants."""

    subject: str  # "This", "This EIP-2612 permit": how a reason names the payload
    verb: str  # "sends", "grants"
    transfers: tuple[Transfer, ...]
    revokes: tuple[str, ...]  # spenders whose approval it lowers: only the deny list sees them
    undecoded: bool  # call data that did not decode: its recipient and amount are unknown
    to: str | None  # the called contract (whose token an undecoded call may move)


def _destinations(rules: TransactionRules, moved: _Moved) -> Decision | None:
    destinations = rules.destinations
    if destinations is None:
        return None
    if destinations.deny is not None:
        rule = "transactions.destinations.deny"
        for transfer in moved.transfers:
            if transfer.recipient in destinations.deny:
                return _deny(rule, f"The recipient {transfer.recipient} is on the policy's deny list.")
        for spender in moved.revokes:
            if spender in destinations.deny:
                return _deny(rule, f"The spender {spender} is on the policy's deny list.")
        if moved.undecoded:
            return _deny(rule, "The policy has a deny list, and this call's recipient cannot be decoded.")
    if destinations.allow is not None:
        rule = "transactions.destinations.allow"
        for transfer in moved.transfers:
            if transfer.recipient not in destinations.allow:
                return _deny(rule, f"The recipient {transfer.recipient} is not on the policy's allow list.")
        if moved.undecoded:
            return _deny(rule, "The policy has an allow list, and this call's recipient cannot be decoded.")
    return None


def _contracts(rules: TransactionRules, facts: TransactionFacts, called: bool, matched: bool) -> Decision | None:
    if rules.contracts is None or not called or matched:
        return None
    if facts.to is None:
        return _deny("transactions.contracts", "The policy lists the contracts it may call, and deploys none.")
    return _deny("transactions.contracts", f"The policy does not allow this call of contract {facts.to}.")


def _raw(rules: TransactionRules, facts: TransactionFacts, called: bool, matched: bool) -> Decision | None:
    if rules.raw or not called or matched or facts.decoded:
        return None
    return _deny("transactions.raw", "The policy refuses call data that matches none of its rules.")


def _limits(rules: TransactionRules, moved: _Moved, usage: Usage) -> Decision | None:
    for asset, limit in sorted((rules.maxValue or {}).items()):
        rule = f"transactions.maxValue.{asset}"
        refusal = _unknown_or_unbounded(rule, moved, asset)
        if refusal is not None:
            return refusal
        amount = _sum(moved, asset)
        if amount > int(limit):
            return _deny(
                rule,
                f"{moved.subject} {moved.verb} {amount} base units of {_asset_name(asset)}, over the limit of "
                f"{limit} per transaction.",
            )
    for asset, limit in sorted((rules.maxValuePer24h or {}).items()):
        rule = f"transactions.maxValuePer24h.{asset}"
        refusal = _unknown_or_unbounded(rule, moved, asset)
        if refusal is not None:
            return refusal
        spent = usage.spent.get(asset, 0)
        amount = _sum(moved, asset)
        # Only what moves the asset: a limit lowered below the day's spending does not stop other transactions.
        if amount > 0 and spent + amount > int(limit):
            return _deny(
                rule,
                f"{moved.subject} {moved.verb} {amount} base units of {_asset_name(asset)} after {spent} in the "
                f"last 24 hours, over the limit of {limit}.",
            )
    return None


def _unknown_or_unbounded(rule: str, moved: _Moved, asset: str) -> Decision | None:
    if moved.undecoded and moved.to == asset:
        return _deny(rule, f"The policy limits {_asset_name(asset)}, and this call's amount cannot be decoded.")
    for transfer in moved.transfers:
        if transfer.asset == asset and transfer.unbounded:
            return _deny(
                rule,
                f"{moved.subject} grants {transfer.recipient} an unlimited approval of {_asset_name(asset)}, "
                "and the policy limits that asset.",
            )
    return None


def _count(rules: TransactionRules, usage: Usage) -> Decision | None:
    if rules.maxCountPer24h is not None and usage.count + 1 > rules.maxCountPer24h:
        return _deny(
            "transactions.maxCountPer24h",
            f"The wallet signed {usage.count} transactions in the last 24 hours; the limit is {rules.maxCountPer24h}.",
        )
    return None


def _sum(moved: _Moved, asset: str) -> int:
    return sum(transfer.amount for transfer in moved.transfers if transfer.asset == asset)


def _positive_match(
    rules: TransactionRules, facts: TransactionFacts, matched: bool, undecoded: bool
) -> Decision | None:
    """The rule that explicitly allows this transaction (what a `default: deny` document needs), if any."""
    if matched:
        return _allow("transactions.contracts", f"The policy allows this call of contract {facts.to}.")
    if rules.destinations is not None and rules.destinations.allow is not None and facts.transfers:
        return _allow("transactions.destinations.allow", "Every recipient is on the policy's allow list.")
    per_transaction = set(rules.maxValue or {})
    limited = per_transaction | set(rules.maxValuePer24h or {})
    if facts.transfers and not undecoded and all(t.asset in limited for t in facts.transfers):
        if all(t.asset in per_transaction for t in facts.transfers):
            return _allow("transactions.maxValue", "Every amount is within the policy's limits.")
        return _allow("transactions.maxValuePer24h", "Every amount is within the policy's limits.")
    return None


def _personal(document: PolicyDocument, facts: PersonalMessageFacts) -> Decision:
    messages = document.messages
    if facts.size == RAW_HASH_BYTES:
        raw = None if messages is None else messages.rawHashes
        if raw is True:
            return _allow("messages.rawHashes", "The policy allows 32-byte messages (raw hashes).")
        if raw is False:
            return _deny("messages.rawHashes", "The policy refuses 32-byte messages (raw hashes).")
        if _guards_value(document):
            return _deny(
                "messages.rawHashes",
                "A 32-byte message may be the hash of any transaction or user operation, and the policy limits "
                "value per 24 hours or destinations without allowing raw hashes.",
            )
    personal = None if messages is None else messages.personal
    if personal is None:
        return _default(document, "message")
    if personal:
        return _allow("messages.personal", "The policy allows personal messages.")
    return _deny("messages.personal", "The policy refuses personal messages.")


def _guards_value(document: PolicyDocument) -> bool:
    """Whether the document limits what leaves the wallet in a way that a signature of something the cosigner cannot
    read (a 32-byte hash, typed data other than the permits) could get around."""
    rules = document.transactions
    if rules is None:
        return False
    return bool(rules.maxValuePer24h) or (rules.destinations is not None and rules.destinations.allow is not None)


def _typed_data(
    document: PolicyDocument, facts: TypedDataFacts, usage: Usage, chain_ids: Mapping[str, int]
) -> Decision:
    if (
        document.networks is not None
        and facts.chain_id is not None
        and facts.chain_id not in _chains(document, chain_ids)
    ):
        return _deny("networks", f"The policy does not allow typed data for chain {facts.chain_id}.")
    rules = document.transactions
    if facts.permit is not None and rules is not None:
        moved = _Moved(f"This {facts.permit}", "grants", facts.transfers, facts.revokes, False, None)
        refusal = _destinations(rules, moved) or _limits(rules, moved, usage)
        if refusal is not None:
            return refusal
    entries = None if document.messages is None else document.messages.typedData
    for entry in entries or ():
        if (
            (entry.chainId is None or entry.chainId == facts.chain_id)
            and (entry.verifyingContract is None or entry.verifyingContract == facts.verifying_contract)
            and (entry.primaryType is None or entry.primaryType == facts.primary_type)
        ):
            return _allow("messages.typedData", "The policy allows this typed data.")
    # Typed data the cosigner cannot read may move anything (a signed transfer, an order, a smart account's
    # operation): under a daily cap or an allow list only an entry that names it allows it, never the default.
    if facts.permit is None and _guards_value(document):
        return _deny(
            "messages.typedData",
            "This typed data is not a permit the cosigner can read, and the policy limits value per 24 hours or "
            "destinations: only a messages.typedData entry that matches it allows it.",
        )
    if entries is None:
        return _default(document, "typed data")
    return _deny("messages.typedData", "No typed-data rule of the policy matches this document.")


@functools.cache
def _no_document() -> PolicyDocument:
    return PolicyDocument(version=1)


def any_chain_refusal(facts: AuthorizationFacts) -> Decision | None:
    """With no policy document at all: the authorization rules of an empty document still refuse one for any chain
    (`default`); None when they allow it."""
    decision = _authorization(_no_document(), facts, {})
    return None if decision.allowed else decision


def _authorization(document: PolicyDocument, facts: AuthorizationFacts, chain_ids: Mapping[str, int]) -> Decision:
    if facts.delegate == ZERO_ADDRESS:
        return _allow("authorizations.revoke", "Revoking a delegation (to the zero address) is always allowed.")
    rules = document.authorizations
    if facts.chain_id == 0:
        if rules is None:
            return _deny(
                "default",
                "An authorization for any chain (chain id 0) is valid on every chain, and the policy has no "
                "authorizations rule that allows it.",
            )
        if not rules.anyChain:
            return _deny(
                "authorizations.anyChain",
                "An authorization for any chain (chain id 0) is valid on every chain, and the policy does not allow "
                "it.",
            )
    elif document.networks is not None and facts.chain_id not in _chains(document, chain_ids):
        return _deny("networks", f"The policy does not allow authorizations on chain {facts.chain_id}.")
    if rules is not None and rules.delegates is not None:
        if facts.delegate in rules.delegates:
            return _allow("authorizations.delegates", "The policy allows delegating to this contract.")
        return _deny("authorizations.delegates", f"The delegate {facts.delegate} is not on the policy's list.")
    if _guards_value(document):
        return _deny(
            "authorizations.delegates",
            "A delegation lets the delegate's code move anything from the wallet, and the policy limits value per 24 "
            "hours or destinations: only a delegate listed in authorizations.delegates is allowed.",
        )
    return _default(document, "authorization")
