"""The policy engine agrees with a second, separately written evaluator (tests/support/policy_reference.py) on
random policy documents and random requests: coin sends, the standard token calls encoded with eth_abi (decoded for
real by facts.py) with every approval and revoke (Permit2's `approve` among them), unknown, short and malformed
calldata, contract creations, personal messages of every length around 32 bytes, typed data that is no permit
(EIP-3009 transfers, Permit2 witness transfers, Safe transactions, user operations), and the permits (EIP-2612, DAI,
the four Permit2 ones) with near misses that are not permits, under random 24 h usage. A few tricky cases are pinned
by hand below."""

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
from chalicelib.policies.facts import TypedDataFacts, facts_of, transaction_facts
from tests.support.policy_reference import reference_decision, reference_revokes, reference_transfers

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
INCREASE = "0x39509351"
DECREASE = "0xa457c2d7"
APPROVE_ALL = "0xa22cb465"
PERMIT2_APPROVE = "0x87517c45"
KNOWN = [
    TRANSFER,
    TRANSFER_FROM,
    SAFE_721,
    SAFE_721_DATA,
    SAFE_1155,
    SAFE_1155_BATCH,
    APPROVE,
    INCREASE,
    DECREASE,
    APPROVE_ALL,
    PERMIT2_APPROVE,
]
MAX = 2**256 - 1
MAX_160 = 2**160 - 1
PERMIT_TYPES = ["Permit", "PermitSingle", "PermitBatch", "PermitTransferFrom", "PermitBatchTransferFrom"]
# Typed data that moves value but is no permit the rules read: a USDC transfer authorization (EIP-3009), a Permit2
# transfer with a witness, a Safe transaction, an ERC-4337 v0.8 user operation.
OPAQUE_TYPES = ["TransferWithAuthorization", "PermitWitnessTransferFrom", "SafeTx", "PackedUserOperation"]


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
DELEGATES = [ACCOUNTS[2], ACCOUNTS[3], TOKENS[1]]  # delegates a policy lists and an authorization names


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
    _put(draw, rule, "primaryType", st.sampled_from(["Mail", "Order", *PERMIT_TYPES, *OPAQUE_TYPES]))
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
        _put(draw, rules, "maxValuePer24h", st.one_of(limits(), limits(), st.just({})), 0.5)
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
        _put(draw, messages, "rawHashes", st.booleans(), 0.4)
        _put(draw, messages, "typedData", st.lists(typed_data_rule(), max_size=3), 0.7)
        document["messages"] = messages
    if _often(draw, 0.5):
        authorizations: dict[str, Any] = {}
        _put(draw, authorizations, "delegates", st.lists(_address(DELEGATES), max_size=3), 0.6)
        _put(draw, authorizations, "anyChain", st.booleans(), 0.5, nullable=False)
        document["authorizations"] = authorizations
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
ALLOWANCE = st.one_of(st.sampled_from([0, 1, 5, 7, 100, 10**18, MAX_160]), st.integers(0, MAX_160))
TOKEN_ADDRESS = st.sampled_from(TOKENS).flatmap(lambda a: st.sampled_from([a, to_checksum_address(a)]))


@st.composite
def calldata(draw: st.DrawFn) -> dict[str, Any]:
    """{"data", "decoded", "token_transfer", "token", "revoked"}: calldata and what it is (the reference's view of
    it)."""
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
    revoked, token = None, None
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
    elif which in (APPROVE, INCREASE):  # an allowance: its amount to the spender, unbounded at the largest
        amount = draw(AMOUNT)
        data = _call(which, ["address", "uint256"], [recipient, amount])
        types, moved = 2, (recipient, amount, amount == MAX)
    elif which == DECREASE:  # moves nothing; withdraws the spender's allowance
        data = _call(which, ["address", "uint256"], [recipient, draw(AMOUNT)])
        types, moved, revoked = 2, None, recipient
    elif which == PERMIT2_APPROVE:  # Permit2's allowance of the token it names (not the called contract)
        token, amount = draw(TOKEN_ADDRESS), draw(ALLOWANCE)
        data = _call(which, ["address", "address", "uint160", "uint48"], [token, recipient, amount, 2**47])
        types, moved = 4, (recipient, amount, amount == MAX_160)
        if kind == "malformed" and draw(st.booleans()):  # an amount wider than uint160
            data = data[:68] + draw(st.integers(MAX_160 + 1, MAX)).to_bytes(32, "big") + data[100:]
            return {"data": data, "decoded": False, "token_transfer": None}
    else:  # setApprovalForAll: the whole collection, or its withdrawal
        approved = draw(st.booleans())
        data = _call(which, ["address", "bool"], [recipient, approved])
        types = 2
        moved, revoked = ((recipient, MAX, True), None) if approved else (None, recipient)
        if kind == "malformed" and draw(st.booleans()):  # a bool that is neither 0 nor 1
            data = data[:36] + draw(st.integers(2, 2**256 - 1)).to_bytes(32, "big")
            return {"data": data, "decoded": False, "token_transfer": None}
    if kind == "standard":
        return {"data": data, "decoded": True, "token_transfer": moved, "token": token, "revoked": revoked}
    if kind == "trailing":  # bytes after the arguments: eth_abi still decodes the call
        data += draw(st.binary(min_size=1, max_size=40))
        return {"data": data, "decoded": True, "token_transfer": moved, "token": token, "revoked": revoked}
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


def _domain(draw: st.DrawFn, name: str) -> tuple[dict[str, Any], list[dict[str, str]], int | None, str | None]:
    """A domain with or without a chainId and a verifyingContract: (domain, its EIP712Domain, chain id, contract)."""
    chain_id = draw(st.one_of(st.none(), st.sampled_from(CHAINS)))
    contract = draw(
        st.one_of(
            st.none(), st.sampled_from(SIGNED_CONTRACTS).flatmap(lambda a: st.sampled_from([a, to_checksum_address(a)]))
        )
    )
    domain: dict[str, Any] = {"name": name}
    fields = [{"name": "name", "type": "string"}]
    if chain_id is not None:
        domain["chainId"] = draw(st.sampled_from([chain_id, str(chain_id), hex(chain_id)]))
        fields.append({"name": "chainId", "type": "uint256"})
    if contract is not None:
        domain["verifyingContract"] = contract
        fields.append({"name": "verifyingContract", "type": "address"})
    return domain, fields, chain_id, contract


@st.composite
def typed_data(draw: st.DrawFn) -> tuple[digests.Signable, dict[str, Any]]:
    """Typed data that is no permit the rules read (a `Permit` of another shape among them)."""
    primary = draw(st.sampled_from(["Mail", "Permit", *OPAQUE_TYPES]))
    domain, fields, chain_id, contract = _domain(draw, "Test")
    document = {
        "types": {"EIP712Domain": fields, primary: [{"name": "contents", "type": "string"}]},
        "primaryType": primary,
        "domain": domain,
        "message": {"contents": "hello"},
    }
    request = {"kind": "typed_data", "chain_id": chain_id, "verifying_contract": contract, "primary_type": primary}
    return digests.typed_data(document), request


def _fields(*declarations: str) -> list[dict[str, str]]:
    return [{"name": d.split()[1], "type": d.split()[0]} for d in declarations]


DETAILS = _fields("address token", "uint160 amount", "uint48 expiration", "uint48 nonce")
PERMISSIONS = _fields("address token", "uint256 amount")


@st.composite
def permits(draw: st.DrawFn) -> tuple[digests.Signable, dict[str, Any]]:
    """A permit the rules decode (EIP-2612, DAI, Permit2's four), or a near miss that is none: the primary type
    renamed, two of its fields swapped, or a field added. A type the primary type does not use changes nothing."""
    kind = draw(st.sampled_from(["eip2612", "dai", "single", "batch", "transfer", "batch_transfer"]))
    domain, domain_fields, chain_id, contract = _domain(draw, "Permit2" if kind not in ("eip2612", "dai") else "Token")
    spender = draw(PARTY)
    transfers: list[tuple[str, int, str, bool]] = []
    revokes: list[str] = []
    if kind == "eip2612":
        primary, value = "Permit", draw(AMOUNT)
        types = {
            "Permit": _fields("address owner", "address spender", "uint256 value", "uint256 nonce", "uint256 deadline")
        }
        message = {"owner": draw(PARTY), "spender": spender, "value": value, "nonce": 0, "deadline": 2**40}
        if contract is not None:  # the token is the domain's verifying contract: without one, no permit
            transfers.append((contract, value, spender, value == MAX))
    elif kind == "dai":
        primary, approved = "Permit", draw(st.booleans())
        types = {
            "Permit": _fields("address holder", "address spender", "uint256 nonce", "uint256 expiry", "bool allowed")
        }
        message = {"holder": draw(PARTY), "spender": spender, "nonce": 3, "expiry": 0, "allowed": approved}
        if contract is not None and approved:
            transfers.append((contract, MAX, spender, True))
        elif contract is not None:
            revokes.append(spender)
    elif kind in ("single", "batch"):
        details = [
            {"token": draw(TOKEN_ADDRESS), "amount": draw(ALLOWANCE), "expiration": 2**47, "nonce": n}
            for n in range(1 if kind == "single" else draw(st.integers(0, 3)))
        ]
        transfers = [(d["token"], d["amount"], spender, d["amount"] == MAX_160) for d in details]
        primary = "PermitSingle" if kind == "single" else "PermitBatch"
        field = "PermitDetails details" if kind == "single" else "PermitDetails[] details"
        types = {primary: _fields(field, "address spender", "uint256 sigDeadline"), "PermitDetails": DETAILS}
        message = {"details": details[0] if kind == "single" else details, "spender": spender, "sigDeadline": 1}
    else:
        permitted = [
            {"token": draw(TOKEN_ADDRESS), "amount": draw(AMOUNT)}
            for _ in range(1 if kind == "transfer" else draw(st.integers(0, 3)))
        ]
        transfers = [(p["token"], p["amount"], spender, p["amount"] == MAX) for p in permitted]
        primary = "PermitTransferFrom" if kind == "transfer" else "PermitBatchTransferFrom"
        field = "TokenPermissions permitted" if kind == "transfer" else "TokenPermissions[] permitted"
        types = {
            primary: _fields(field, "address spender", "uint256 nonce", "uint256 deadline"),
            "TokenPermissions": PERMISSIONS,
        }
        message = {"permitted": permitted[0] if kind == "transfer" else permitted, "spender": spender}
        message |= {"nonce": 9, "deadline": 2**40}
    is_permit = kind not in ("eip2612", "dai") or contract is not None
    miss = draw(st.sampled_from(["none", "none", "none", "unused", "renamed", "swapped", "added"]))
    if miss == "unused":  # not part of the digest: still the permit
        types["Unused"] = _fields("uint8 x")
    elif miss == "renamed":
        types[primary + "V2"] = types.pop(primary)
        primary += "V2"
        is_permit = False
    elif miss == "swapped":
        first, second = sorted(
            draw(st.lists(st.integers(0, len(types[primary]) - 1), min_size=2, max_size=2, unique=True))
        )
        fields = types[primary]
        fields[first], fields[second] = fields[second], fields[first]
        is_permit = False
    elif miss == "added":
        types[primary] = [*types[primary], {"name": "extra", "type": "uint8"}]
        message["extra"] = 0
        is_permit = False
    document = {
        "types": {"EIP712Domain": domain_fields, **types},
        "primaryType": primary,
        "domain": domain,
        "message": message,
    }
    request = {
        "kind": "typed_data",
        "chain_id": chain_id,
        "verifying_contract": contract,
        "primary_type": primary,
        "permit": {"transfers": transfers, "revokes": revokes} if is_permit else None,
    }
    return digests.typed_data(document), request


@st.composite
def authorizations(draw: st.DrawFn) -> tuple[digests.Signable, dict[str, Any]]:
    """An EIP-7702 authorization: for a chain of the policies' networks or not, for any chain (0), or revoking."""
    chain_id = draw(st.sampled_from([0, 0, *CHAINS]))
    delegate = draw(_address(DELEGATES)) if _often(draw, 0.85) else "0x" + "00" * 20
    payload = digests.authorization(chain_id, delegate, draw(st.integers(0, 2**64 - 1)))
    return payload, {"kind": "authorization", "chain_id": chain_id, "delegate": delegate}


@st.composite
def personal_messages(draw: st.DrawFn) -> tuple[digests.Signable, dict[str, Any]]:
    size = draw(st.sampled_from([0, 5, 31, 32, 32, 32, 33, 64]))
    return digests.personal_message(draw(st.binary(min_size=size, max_size=size))), {
        "kind": "personal_message",
        "size": size,
    }


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
    assert (facts.decoded, sorted((t.asset, t.amount, t.recipient, t.unbounded) for t in facts.transfers)) == (
        request["to"] is not None and (not request["data"] or request["decoded"]),
        sorted(reference_transfers(request)),
    )
    assert list(facts.revokes) == reference_revokes(request)
    assert _engine(policy, facts, usage) == reference_decision(policy, request, usage, CHAIN_IDS)


@settings(_SETTINGS, max_examples=EXAMPLES // 3)
@given(policy=policies(), signed=st.one_of(typed_data(), personal_messages()), usage=USAGES)
def test_messages_are_decided_as_the_reference_decides(
    policy: dict[str, Any], signed: tuple[digests.Signable, dict[str, Any]], usage: dict[str, Any]
) -> None:
    payload, request = signed
    assert _engine(policy, facts_of(payload), usage) == reference_decision(policy, request, usage, CHAIN_IDS)


@settings(_SETTINGS, max_examples=EXAMPLES // 3)
@given(policy=policies(), signed=authorizations(), usage=USAGES)
def test_authorizations_are_decided_as_the_reference_decides(
    policy: dict[str, Any], signed: tuple[digests.Signable, dict[str, Any]], usage: dict[str, Any]
) -> None:
    payload, request = signed
    assert _engine(policy, facts_of(payload), usage) == reference_decision(policy, request, usage, CHAIN_IDS)


@settings(_SETTINGS, max_examples=EXAMPLES // 2)
@given(policy=policies(), signed=permits(), usage=USAGES)
def test_permits_are_decided_as_the_reference_decides(
    policy: dict[str, Any], signed: tuple[digests.Signable, dict[str, Any]], usage: dict[str, Any]
) -> None:
    payload, request = signed
    facts = facts_of(payload)
    assert isinstance(facts, TypedDataFacts)
    permit = request["permit"]
    if permit is None:
        assert (facts.permit, facts.transfers, facts.revokes) == (None, (), ())
    else:
        assert facts.permit is not None
        assert sorted((t.asset, t.amount, t.recipient, t.unbounded) for t in facts.transfers) == sorted(
            (token.lower(), amount, spender.lower(), unbounded)
            for token, amount, spender, unbounded in permit["transfers"]
        )
        assert facts.revokes == tuple(spender.lower() for spender in permit["revokes"])
    assert _engine(policy, facts, usage) == reference_decision(policy, request, usage, CHAIN_IDS)


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
    moved: tuple[Any, ...] | None = None,
    revoked: str | None = None,
    token: str | None = None,
) -> tuple[bool, str]:
    """The engine's decision, checked against the reference's (told what the calldata is: `decoded`, `moved`,
    `token`, `revoked`)."""
    policy = {"version": 1, **policy}
    request = {"kind": "transaction", "chain_id": tx.chain_id, "to": tx.to, "value": tx.value, "data": tx.data}
    request |= {"decoded": decoded, "token_transfer": moved, "token": token, "revoked": revoked}
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
    # An approval is spending: the largest one is unbounded, refused by any limit on its token; one within the
    # limits is a positive match like a transfer; a revoke moves nothing and needs a contracts entry.
    approve = _tx(TOKEN, _call(APPROVE, ["address", "uint256"], [BOB, MAX]))
    assert _decide(both, approve, moved=(BOB, MAX, True)) == (False, f"transactions.maxValuePer24h.{TOKEN}")
    approve_some = _tx(TOKEN, _call(APPROVE, ["address", "uint256"], [BOB, 10]))
    assert _decide(both, approve_some, moved=(BOB, 10)) == (True, "transactions.maxValuePer24h")
    revoke = _tx(TOKEN, _call(DECREASE, ["address", "uint256"], [BOB, 10]))
    assert _decide(both, revoke, revoked=BOB) == (False, "default")
    listed = {"default": "deny", "transactions": {"contracts": [{"address": UPPER_TOKEN, "selectors": [APPROVE]}]}}
    assert _decide(listed, approve, moved=(BOB, MAX, True)) == (True, "transactions.contracts")
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


def test_an_allowance_is_spending() -> None:
    """Every grant moves its amount to its spender; revokes pass the limits and the allow list, not the deny list."""
    limited = {"transactions": {"maxValuePer24h": {TOKEN: "100"}, "destinations": {"allow": [BOB]}}}
    spent = {"spent": {TOKEN: 60}, "count": 0}
    grant = _tx(TOKEN, _call(APPROVE, ["address", "uint256"], [BOB, 41]))
    assert _decide(limited, grant, spent, moved=(BOB, 41)) == (False, f"transactions.maxValuePer24h.{TOKEN}")
    more = _tx(TOKEN, _call(INCREASE, ["address", "uint256"], [BOB, 40]))
    assert _decide(limited, more, spent, moved=(BOB, 40)) == (True, "transactions.destinations.allow")
    elsewhere = _tx(TOKEN, _call(APPROVE, ["address", "uint256"], [ALICE, 1]))
    assert _decide(limited, elsewhere, moved=(ALICE, 1)) == (False, "transactions.destinations.allow")
    # approve(x, 0): nothing against the limits (even a day used up), but x must be on the allow list.
    full = {"spent": {TOKEN: 100}, "count": 0}
    zero_bob = _tx(TOKEN, _call(APPROVE, ["address", "uint256"], [BOB, 0]))
    assert _decide(limited, zero_bob, full, moved=(BOB, 0)) == (True, "transactions.destinations.allow")
    zero_alice = _tx(TOKEN, _call(APPROVE, ["address", "uint256"], [ALICE, 0]))
    assert _decide(limited, zero_alice, full, moved=(ALICE, 0)) == (False, "transactions.destinations.allow")
    # The unambiguous revokes pass the allow list and the limits; the deny list sees their spender.
    for revoke in (
        _tx(TOKEN, _call(DECREASE, ["address", "uint256"], [ALICE, MAX])),
        _tx(TOKEN, _call(APPROVE_ALL, ["address", "bool"], [ALICE, False])),
    ):
        assert _decide(limited, revoke, full, revoked=ALICE) == (True, "default")
        denied = {"transactions": {"destinations": {"deny": [ALICE]}}}
        assert _decide(denied, revoke, revoked=ALICE) == (False, "transactions.destinations.deny")
        contracts = {"transactions": {"contracts": [{"address": ALICE}]}}
        assert _decide(contracts, revoke, revoked=ALICE) == (False, "transactions.contracts")
    # A whole collection: refused by any limit on it, whatever its value; the operator must be on the allow list.
    everything = _tx(TOKEN, _call(APPROVE_ALL, ["address", "bool"], [BOB, True]))
    huge = {"transactions": {"maxValue": {TOKEN: "9" * 78}}}
    assert _decide(huge, everything, moved=(BOB, MAX, True)) == (False, f"transactions.maxValue.{TOKEN}")
    other = {"transactions": {"maxValue": {TOKENS[1]: "1"}, "destinations": {"allow": [ALICE]}}}
    assert _decide(other, everything, moved=(BOB, MAX, True)) == (False, "transactions.destinations.allow")
    assert _decide({"transactions": {"maxValue": {TOKENS[1]: "1"}}}, everything, moved=(BOB, MAX, True)) == (
        True,
        "default",
    )


def test_permit2_s_approve_grants_the_token_it_names() -> None:
    """Called on Permit2, not on the token: the limits and lists of the token it names see it."""
    permit2 = ACCOUNTS[2]

    def grant(spender: str, amount: int) -> UnsignedTx:
        arguments = [to_checksum_address(TOKEN), spender, amount, 2**47]
        return _tx(permit2, _call(PERMIT2_APPROVE, ["address", "address", "uint160", "uint48"], arguments))

    limited = {"transactions": {"maxValuePer24h": {UPPER_TOKEN: "100"}}}
    rule = f"transactions.maxValuePer24h.{TOKEN}"
    assert _decide(limited, grant(BOB, 101), moved=(BOB, 101), token=TOKEN) == (False, rule)
    assert _decide(limited, grant(BOB, 100), moved=(BOB, 100), token=TOKEN) == (True, "transactions.maxValuePer24h")
    unlimited = grant(BOB, MAX_160)  # never decreases in Permit2: refused whatever the limit
    huge = {"transactions": {"maxValue": {TOKEN: "9" * 78}}}
    assert _decide(huge, unlimited, moved=(BOB, MAX_160, True), token=TOKEN) == (
        False,
        f"transactions.maxValue.{TOKEN}",
    )
    listed = {"transactions": {"destinations": {"allow": [ALICE]}}}
    assert _decide(listed, grant(BOB, 0), moved=(BOB, 0), token=TOKEN) == (False, "transactions.destinations.allow")
    # Permit2 itself is no token: a limit on it does not see the grant.
    assert _decide({"transactions": {"maxValue": {permit2: "0"}}}, grant(BOB, 5), moved=(BOB, 5), token=TOKEN) == (
        True,
        "default",
    )


def _authorization(value: int) -> dict[str, Any]:
    """An EIP-3009 TransferWithAuthorization of TOKEN (USDC's): whoever holds it moves `value` to BOB."""
    fields = ["address from", "address to", "uint256 value", "uint256 validAfter", "uint256 validBefore"]
    return {
        "types": {
            "EIP712Domain": _fields("string name", "uint256 chainId", "address verifyingContract"),
            "TransferWithAuthorization": _fields(*fields, "bytes32 nonce"),
        },
        "primaryType": "TransferWithAuthorization",
        "domain": {"name": "USD Coin", "chainId": 1, "verifyingContract": TOKEN},
        "message": {
            "from": ALICE,
            "to": BOB,
            "value": value,
            "validAfter": 0,
            "validBefore": 2**40,
            "nonce": "0x" + "00" * 32,
        },
    }


def test_typed_data_that_is_no_permit_needs_an_entry_under_a_daily_cap_or_an_allow_list() -> None:
    facts = facts_of(digests.typed_data(_authorization(10**30)))
    request = {"kind": "typed_data", "chain_id": 1, "verifying_contract": TOKEN}
    request |= {"primary_type": "TransferWithAuthorization", "permit": None}

    def decide(policy: dict[str, Any]) -> tuple[bool, str]:
        policy = {"version": 1, **policy}
        decision = _engine(policy, facts, NO_USAGE)
        assert decision == reference_decision(policy, request, NO_USAGE, CHAIN_IDS)
        return decision

    for guard in ({"maxValuePer24h": {UPPER_TOKEN: "100"}}, {"destinations": {"allow": [ALICE]}}):
        assert decide({"transactions": guard}) == (False, "messages.typedData")
        assert decide({"transactions": guard, "messages": {"typedData": [{"primaryType": "Mail"}]}}) == (
            False,
            "messages.typedData",
        )
        named = {"typedData": [{"primaryType": "TransferWithAuthorization", "verifyingContract": TOKEN}]}
        assert decide({"transactions": guard, "messages": named}) == (True, "messages.typedData")
    # Without either guard, as before: the default, or the entries.
    for rules in ({"maxValue": {TOKEN: "1"}}, {"maxValuePer24h": {}, "destinations": {"deny": [BOB]}}):
        assert decide({"transactions": rules}) == (True, "default")
        assert decide({"transactions": rules, "messages": {"typedData": []}}) == (False, "messages.typedData")
