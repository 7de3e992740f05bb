"""The policy engine agrees with a second, separately written evaluator (tests/support/policy_reference.py) on
random policy documents and random requests: coin sends, the standard token calls encoded with eth_abi (decoded for
real by facts.py), unknown, short and malformed calldata, contract creations, personal messages and typed data,
under random 24 h usage. A few tricky cases are pinned by hand below."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import eth_abi
import pytest
from eth_utils import to_checksum_address
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chalicelib.evm import digests
from chalicelib.evm.transactions import UnsignedTx
from chalicelib.platform import networks
from chalicelib.platform import settings as service_settings
from chalicelib.policies.document import PolicyDocument
from chalicelib.policies.engine import Usage, evaluate
from chalicelib.policies.facts import facts_of, transaction_facts
from tests.support.policy_reference import reference_decision, reference_transfers

CHAIN_IDS = {"alpha": 1, "beta": 10, "gamma": 137}
CHAINS = [1, 10, 137, 5]  # 5 is in no policy's networks
TOKENS = ["0x" + "a1b2c3d4e5" * 4, "0x" + "c0ffee" * 6 + "beef"]
ACCOUNTS = ["0x" + "d00d" * 10, "0x" + "0123456789abcdef" * 2 + "01234567", "0x" + "ab" * 20, "0x" + "e" * 40]
ASSETS = ["native", *TOKENS]
AMOUNTS = [0, 1, 5, 7, 100, 10**18, 2**256 - 1]
EXAMPLES = 1200  # transactions; messages, a smaller space, get a third (the file runs in about 10 s)

TRANSFER = "0xa9059cbb"
TRANSFER_FROM = "0x23b872dd"
SAFE_721 = "0x42842e0e"
SAFE_721_DATA = "0xb88d4fde"
SAFE_1155 = "0xf242432a"
SAFE_1155_BATCH = "0x2eb2c2d6"
APPROVE = "0x095ea7b3"
KNOWN = [TRANSFER, TRANSFER_FROM, SAFE_721, SAFE_721_DATA, SAFE_1155, SAFE_1155_BATCH, APPROVE]


@pytest.fixture(scope="module", autouse=True)
def registry(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """A registry naming the policies' networks (module-scoped: hypothesis examples share it)."""
    entries = [
        {"name": name, "chainId": chain_id, "rpcUrls": ["http://127.0.0.1:9"], "nativeSymbol": "ETH"}
        for name, chain_id in CHAIN_IDS.items()
    ]
    path: Path = tmp_path_factory.mktemp("networks") / "networks.json"
    path.write_text(json.dumps({"networks": entries}))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DOMPET_NETWORKS_FILE", str(path))
        service_settings.load_settings.cache_clear()
        networks.registry.cache_clear()
        yield
        service_settings.load_settings.cache_clear()
        networks.registry.cache_clear()


# --- policy documents ---------------------------------------------------------------------------------------------


def _cased(address: str) -> st.SearchStrategy[str]:
    return st.sampled_from([address.lower(), "0x" + address[2:].upper(), to_checksum_address(address)])


def _address(pool: list[str]) -> st.SearchStrategy[str]:
    return st.sampled_from(pool).flatmap(_cased)


def _often(draw: st.DrawFn, chance: float) -> bool:
    return draw(st.integers(0, 99)) < chance * 100


def _put(
    draw: st.DrawFn,
    into: dict[str, Any],
    key: str,
    value: st.SearchStrategy[Any],
    chance: float = 0.5,
    nullable: bool = True,
) -> None:
    """Maybe set `key` (present with `chance`; a present nullable field is sometimes JSON null, the same as absent)."""
    if _often(draw, chance):
        into[key] = None if nullable and _often(draw, 0.1) else draw(value)


@st.composite
def limits(draw: st.DrawFn) -> dict[str, str]:
    """asset -> limit, each asset once, token addresses in any case."""
    chosen = draw(st.lists(st.sampled_from(ASSETS), unique=True, min_size=1, max_size=3))
    return {
        asset if asset == "native" else draw(_cased(asset)): str(draw(st.sampled_from(AMOUNTS))) for asset in chosen
    }


SELECTOR = st.one_of(st.sampled_from(KNOWN), st.binary(min_size=4, max_size=4).map(lambda b: "0x" + b.hex()))
POOL = TOKENS + ACCOUNTS
SIGNED_CONTRACTS = [*TOKENS, ACCOUNTS[2]]  # typed data's verifying contracts: a few, so rules match often


@st.composite
def contract_rule(draw: st.DrawFn) -> dict[str, Any]:
    rule = {"address": draw(_address(POOL))}
    _put(
        draw,
        rule,
        "selectors",
        st.lists(SELECTOR.flatmap(lambda s: st.sampled_from([s, "0x" + s[2:].upper()])), max_size=3),
    )
    return rule


@st.composite
def typed_data_rule(draw: st.DrawFn) -> dict[str, Any]:
    rule: dict[str, Any] = {}
    _put(draw, rule, "chainId", st.sampled_from(CHAINS))
    _put(draw, rule, "verifyingContract", _address(SIGNED_CONTRACTS))
    _put(draw, rule, "primaryType", st.sampled_from(["Mail", "Permit", "Order"]))
    return rule


@st.composite
def policies(draw: st.DrawFn) -> dict[str, Any]:
    """A valid policy document, every field present or absent."""
    document: dict[str, Any] = {"version": draw(st.integers(1, 1000))}
    _put(draw, document, "default", st.sampled_from(["allow", "deny"]), 0.7, nullable=False)
    _put(draw, document, "networks", st.lists(st.sampled_from(sorted(CHAIN_IDS)), unique=True, max_size=3), 0.2)
    if _often(draw, 0.85):
        rules: dict[str, Any] = {}
        _put(draw, rules, "maxValue", limits(), 0.6)
        _put(draw, rules, "maxValuePer24h", limits(), 0.5)
        _put(draw, rules, "maxCountPer24h", st.integers(0, 6), 0.2)
        if _often(draw, 0.3):
            destinations: dict[str, Any] = {}
            _put(draw, destinations, "allow", st.lists(_address(POOL), max_size=6))
            _put(draw, destinations, "deny", st.lists(_address(POOL), max_size=3))
            rules["destinations"] = destinations
        _put(draw, rules, "contracts", st.lists(contract_rule(), max_size=3), 0.2)
        _put(draw, rules, "raw", st.booleans(), 0.3, nullable=False)
        document["transactions"] = rules
    if _often(draw, 0.7):
        messages: dict[str, Any] = {}
        _put(draw, messages, "personal", st.booleans(), 0.6)
        _put(draw, messages, "typedData", st.lists(typed_data_rule(), max_size=3), 0.7)
        document["messages"] = messages
    return document


USAGES = st.fixed_dictionaries(
    {
        "spent": st.dictionaries(st.sampled_from(ASSETS), st.sampled_from(AMOUNTS), max_size=4),
        "count": st.integers(0, 7),
    }
)


# --- requests -----------------------------------------------------------------------------------------------------


def _call(selector: str, types: list[str], args: list[Any]) -> bytes:
    return bytes.fromhex(selector[2:]) + eth_abi.encode(types, args)


# Mostly the limits' own values (so sums land on, under and over a limit), sometimes any uint256.
AMOUNT = st.one_of(*[st.sampled_from(AMOUNTS)] * 3, st.integers(0, 2**256 - 1))
PARTY = st.sampled_from(POOL).map(to_checksum_address)


@st.composite
def calldata(draw: st.DrawFn) -> dict[str, Any]:
    """{"data", "decoded", "token_transfer"}: calldata and what it is (the reference's view of it)."""
    kind = draw(
        st.sampled_from(["empty", "standard", "standard", "standard", "unknown", "short", "malformed", "trailing"])
    )
    if kind == "empty":
        return {"data": b"", "decoded": True, "token_transfer": None}
    if kind == "unknown":
        selector = draw(st.binary(min_size=4, max_size=4).filter(lambda b: "0x" + b.hex() not in KNOWN))
        return {"data": selector + draw(st.binary(max_size=100)), "decoded": False, "token_transfer": None}
    if kind == "short":
        return {"data": draw(st.binary(min_size=1, max_size=3)), "decoded": False, "token_transfer": None}
    source, recipient = draw(PARTY), draw(PARTY)
    extra = draw(st.binary(max_size=40))
    which = draw(st.sampled_from(KNOWN))
    if which == SAFE_1155_BATCH and kind == "malformed" and draw(st.booleans()):
        kind = "mismatched"
    if which == TRANSFER:
        amount = draw(AMOUNT)
        data, types, moved = _call(which, ["address", "uint256"], [recipient, amount]), 2, (recipient, amount)
    elif which == TRANSFER_FROM:
        amount = draw(AMOUNT)
        data = _call(which, ["address", "address", "uint256"], [source, recipient, amount])
        types, moved = 3, (recipient, amount)
    elif which == SAFE_721:
        data = _call(which, ["address", "address", "uint256"], [source, recipient, draw(AMOUNT)])
        types, moved = 3, (recipient, 1)
    elif which == SAFE_721_DATA:
        data = _call(which, ["address", "address", "uint256", "bytes"], [source, recipient, draw(AMOUNT), extra])
        types, moved = 4, (recipient, 1)
    elif which == SAFE_1155:
        amount = draw(AMOUNT)
        args = [source, recipient, draw(AMOUNT), amount, extra]
        data = _call(which, ["address", "address", "uint256", "uint256", "bytes"], args)
        types, moved = 5, (recipient, amount)
    elif which == SAFE_1155_BATCH:
        amounts = draw(st.lists(AMOUNT, max_size=4))
        ids = draw(st.lists(AMOUNT, min_size=len(amounts), max_size=len(amounts)))
        if kind == "mismatched":  # ids and amounts of different lengths: no transfer an ERC-1155 token makes
            ids = draw(st.lists(AMOUNT, max_size=4).filter(lambda more: len(more) != len(amounts)))
        args = [source, recipient, ids, amounts, extra]
        data = _call(which, ["address", "address", "uint256[]", "uint256[]", "bytes"], args)
        types, moved = 5, (recipient, sum(amounts))
        if kind == "mismatched":
            return {"data": data, "decoded": False, "token_transfer": None}
    else:
        data = _call(which, ["address", "uint256"], [recipient, draw(AMOUNT)])
        types, moved = 2, None
    if kind == "standard":
        return {"data": data, "decoded": True, "token_transfer": moved}
    if kind == "trailing":  # bytes after the arguments: eth_abi still decodes the call
        return {"data": data + draw(st.binary(min_size=1, max_size=40)), "decoded": True, "token_transfer": moved}
    # Malformed: cut short, or an address argument with non-zero padding (strict decoding refuses both).
    if draw(st.booleans()):
        return {"data": data[: draw(st.integers(4, len(data) - 1))], "decoded": False, "token_transfer": None}
    dirty = draw(st.integers(0, 1 if types >= 3 else 0))
    start = 4 + 32 * dirty
    data = data[:start] + bytes([draw(st.integers(1, 255))]) + data[start + 1 :]
    return {"data": data, "decoded": False, "token_transfer": None}


@st.composite
def transactions(draw: st.DrawFn) -> tuple[UnsignedTx, dict[str, Any]]:
    chain_id = draw(st.sampled_from([*CHAINS, 1, 1]))
    pool = draw(st.sampled_from([TOKENS, POOL]))  # a token contract more often than not
    to = draw(_address(pool)) if _often(draw, 0.9) else None
    value = draw(st.sampled_from([0, *AMOUNTS[:-1]]))
    body = draw(calldata())
    tx = UnsignedTx(chain_id=chain_id, nonce=0, to=to, value=value, data=body["data"], gas=100_000, gas_price=1)
    return tx, {"kind": "transaction", "chain_id": chain_id, "to": to, "value": value, **body}


@st.composite
def typed_data(draw: st.DrawFn) -> tuple[digests.Signable, dict[str, Any]]:
    chain_id = draw(st.one_of(st.none(), st.sampled_from(CHAINS)))
    contract = draw(
        st.one_of(
            st.none(), st.sampled_from(SIGNED_CONTRACTS).flatmap(lambda a: st.sampled_from([a, to_checksum_address(a)]))
        )
    )
    primary = draw(st.sampled_from(["Mail", "Permit"]))
    domain: dict[str, Any] = {"name": "Test"}
    fields = [{"name": "name", "type": "string"}]
    if chain_id is not None:
        domain["chainId"] = draw(st.sampled_from([chain_id, str(chain_id), hex(chain_id)]))
        fields.append({"name": "chainId", "type": "uint256"})
    if contract is not None:
        domain["verifyingContract"] = contract
        fields.append({"name": "verifyingContract", "type": "address"})
    document = {
        "types": {"EIP712Domain": fields, primary: [{"name": "contents", "type": "string"}]},
        "primaryType": primary,
        "domain": domain,
        "message": {"contents": "hello"},
    }
    request = {"kind": "typed_data", "chain_id": chain_id, "verifying_contract": contract, "primary_type": primary}
    return digests.typed_data(document), request


def _engine(policy: dict[str, Any], facts: Any, usage: dict[str, Any]) -> tuple[bool, str]:
    decision = evaluate(
        PolicyDocument.parse(policy), facts, Usage(spent=usage["spent"], count=usage["count"]), CHAIN_IDS
    )
    return decision.allowed, decision.rule


_SETTINGS = settings(
    max_examples=EXAMPLES, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck)
)


@_SETTINGS
@given(policy=policies(), sent=transactions(), usage=USAGES)
def test_transactions_are_decided_as_the_reference_decides(
    policy: dict[str, Any], sent: tuple[UnsignedTx, dict[str, Any]], usage: dict[str, Any]
) -> None:
    tx, request = sent
    facts = transaction_facts(tx)
    assert facts_of(digests.transaction(tx)) == facts
    assert (facts.decoded, sorted((t.asset, t.amount, t.recipient) for t in facts.transfers)) == (
        request["to"] is not None and (not request["data"] or request["decoded"]),
        sorted(reference_transfers(request)),
    )
    assert _engine(policy, facts, usage) == reference_decision(policy, request, usage, CHAIN_IDS)


@settings(_SETTINGS, max_examples=EXAMPLES // 3)
@given(
    policy=policies(),
    signed=st.one_of(typed_data(), st.just((digests.personal_message(b"hi"), {"kind": "personal_message"}))),
)
def test_messages_are_decided_as_the_reference_decides(
    policy: dict[str, Any], signed: tuple[digests.Signable, dict[str, Any]]
) -> None:
    payload, request = signed
    usage = {"spent": {}, "count": 0}
    assert _engine(policy, facts_of(payload), usage) == reference_decision(policy, request, usage, CHAIN_IDS)


# --- pinned cases -------------------------------------------------------------------------------------------------

TOKEN, ALICE, BOB = TOKENS[0], ACCOUNTS[0], ACCOUNTS[1]
NO_USAGE: dict[str, Any] = {"spent": {}, "count": 0}


def _tx(to: str | None, data: bytes = b"", value: int = 0) -> UnsignedTx:
    return UnsignedTx(chain_id=1, nonce=0, to=to, value=value, data=data, gas=100_000, gas_price=1)


def _decide(
    policy: dict[str, Any],
    tx: UnsignedTx,
    usage: dict[str, Any] = NO_USAGE,
    *,
    decoded: bool = True,
    moved: tuple[str, int] | None = None,
) -> tuple[bool, str]:
    """The engine's decision, checked against the reference's (told what the calldata is: `decoded`, `moved`)."""
    policy = {"version": 1, **policy}
    request = {"kind": "transaction", "chain_id": tx.chain_id, "to": tx.to, "value": tx.value, "data": tx.data}
    request |= {"decoded": decoded, "token_transfer": moved}
    decision = _engine(policy, transaction_facts(tx), usage)
    assert decision == reference_decision(policy, request, usage, CHAIN_IDS)
    return decision


def _transfer(recipient: str, amount: int) -> bytes:
    return _call(TRANSFER, ["address", "uint256"], [recipient, amount])


def _batch(recipient: str, amounts: list[int]) -> bytes:
    args = [ALICE, recipient, list(range(len(amounts))), amounts, b""]
    return _call(SAFE_1155_BATCH, ["address", "address", "uint256[]", "uint256[]", "bytes"], args)


UPPER_TOKEN = "0x" + TOKEN[2:].upper()


def test_deny_wins_over_allow_for_the_same_recipient() -> None:
    rules = {"transactions": {"destinations": {"allow": ["0x" + BOB[2:].upper()], "deny": [to_checksum_address(BOB)]}}}
    assert _decide(rules, _tx(BOB, value=1)) == (False, "transactions.destinations.deny")
    sent = _tx(TOKEN, _transfer(BOB, 1))
    assert _decide(rules, sent, moved=(BOB, 1)) == (False, "transactions.destinations.deny")


def test_undecodable_calldata_fails_closed_under_destinations_and_value_limits() -> None:
    unknown = bytes.fromhex("deadbeef") + bytes(32)
    truncated = _transfer(ALICE, 5)[:-1]
    dirty = _transfer(ALICE, 5)[:4] + b"\x01" + _transfer(ALICE, 5)[5:]
    allow_all = {"destinations": {"allow": [TOKEN, ALICE, BOB]}}
    for data in (unknown, truncated, dirty, b"\x01"):
        sent = _tx(TOKEN, data)
        deny = {"transactions": {"destinations": {"deny": [BOB]}}}
        assert _decide(deny, sent, decoded=False) == (False, "transactions.destinations.deny")
        assert _decide({"transactions": allow_all}, sent, decoded=False) == (False, "transactions.destinations.allow")
        limit = {"transactions": {"maxValue": {TOKEN: "1000"}}}
        assert _decide(limit, sent, decoded=False) == (False, f"transactions.maxValue.{TOKEN}")
        per_day = {"transactions": {"maxValuePer24h": {UPPER_TOKEN: "1000"}}}
        assert _decide(per_day, sent, decoded=False) == (False, f"transactions.maxValuePer24h.{TOKEN}")
    # The same calldata sent to another contract does not touch the limited token.
    limit = {"transactions": {"maxValue": {TOKEN: "1000"}}}
    assert _decide(limit, _tx(ALICE, unknown), decoded=False) == (True, "default")


def test_default_deny_needs_a_positive_match() -> None:
    assert _decide({"default": "deny"}, _tx(BOB, value=1)) == (False, "default")
    counted = {"default": "deny", "transactions": {"maxCountPer24h": 5}}
    assert _decide(counted, _tx(BOB, value=1)) == (False, "default")
    native = {"default": "deny", "transactions": {"maxValue": {"native": "1"}}}
    assert _decide(native, _tx(BOB, value=1)) == (True, "transactions.maxValue")
    # Every asset moved must be named: a token transfer with only the native coin limited is no match.
    assert _decide(native, _tx(TOKEN, _transfer(BOB, 1)), moved=(BOB, 1)) == (False, "default")
    both = {"default": "deny", "transactions": {"maxValue": {"native": "10"}, "maxValuePer24h": {TOKEN: "10"}}}
    assert _decide(both, _tx(TOKEN, _transfer(BOB, 1), value=1), moved=(BOB, 1)) == (
        True,
        "transactions.maxValuePer24h",
    )
    # An approval moves nothing: no positive match unless a contracts entry lists it.
    approve = _tx(TOKEN, _call(APPROVE, ["address", "uint256"], [BOB, 2**256 - 1]))
    assert _decide(both, approve) == (False, "default")
    listed = {"default": "deny", "transactions": {"contracts": [{"address": UPPER_TOKEN, "selectors": [APPROVE]}]}}
    assert _decide(listed, approve) == (True, "transactions.contracts")
    allowed = {"default": "deny", "transactions": {"destinations": {"allow": [BOB]}}}
    assert _decide(allowed, _tx(BOB, value=1)) == (True, "transactions.destinations.allow")


def test_several_transfers_of_one_asset_are_summed() -> None:
    batch = _tx(TOKEN, _batch(BOB, [3, 4]))
    limit = {"transactions": {"maxValue": {TOKEN: "6"}}}
    assert _decide(limit, batch, moved=(BOB, 7)) == (False, f"transactions.maxValue.{TOKEN}")
    limit = {"transactions": {"maxValue": {TOKEN: "7"}}}
    assert _decide(limit, batch, moved=(BOB, 7)) == (True, "transactions.maxValue")
    spent = {"spent": {TOKEN: 5}, "count": 0}
    per_day = {"transactions": {"maxValuePer24h": {TOKEN: "11"}}}
    assert _decide(per_day, batch, spent, moved=(BOB, 7)) == (False, f"transactions.maxValuePer24h.{TOKEN}")
    per_day = {"transactions": {"maxValuePer24h": {TOKEN: "12"}}}
    assert _decide(per_day, batch, spent, moved=(BOB, 7)) == (True, "transactions.maxValuePer24h")


def test_contract_creations_and_raw_calls() -> None:
    creation = _tx(None, bytes.fromhex("6080604052"))
    contracts = {"transactions": {"contracts": [{"address": TOKEN}]}}
    assert _decide(contracts, creation, decoded=False) == (False, "transactions.contracts")
    assert _decide({"transactions": {"raw": False}}, creation, decoded=False) == (False, "transactions.raw")
    unknown = _tx(TOKEN, bytes.fromhex("deadbeef"))
    assert _decide({"transactions": {"raw": False}}, unknown, decoded=False) == (False, "transactions.raw")
    listed = {"transactions": {"raw": False, "contracts": [{"address": TOKEN, "selectors": ["0xDEADBEEF"]}]}}
    assert _decide(listed, unknown, decoded=False) == (True, "transactions.contracts")
    sent = _tx(TOKEN, _transfer(BOB, 1))
    assert _decide({"transactions": {"raw": False}}, sent, moved=(BOB, 1)) == (True, "default")


def test_limits_are_checked_asset_by_asset_in_sorted_order() -> None:
    """Over two limits at once: the first asset in sorted order names the rule (token addresses before "native")."""
    both = {"transactions": {"maxValue": {"native": "1", UPPER_TOKEN: "1"}}}
    assert _decide(both, _tx(TOKEN, _transfer(BOB, 2), value=2), moved=(BOB, 2)) == (
        False,
        f"transactions.maxValue.{TOKEN}",
    )
    # Within both limits, but only one asset in maxValue: the positive match is maxValuePer24h.
    split = {"transactions": {"maxValue": {"native": "5"}, "maxValuePer24h": {TOKEN: "5"}}}
    assert _decide(split, _tx(TOKEN, _transfer(BOB, 2), value=2), moved=(BOB, 2)) == (
        True,
        "transactions.maxValuePer24h",
    )
    # A 24 h limit already used up (say, lowered) stops only transactions that move that asset.
    spent = {"spent": {TOKEN: 6}, "count": 0}
    assert _decide(split, _tx(BOB, value=1), spent) == (True, "transactions.maxValue")
    assert _decide(split, _tx(TOKEN, _transfer(BOB, 1)), spent, moved=(BOB, 1)) == (
        False,
        f"transactions.maxValuePer24h.{TOKEN}",
    )
