"""The signing-policy engine: the document's validation, the facts read from a payload, and every rule's decision
(allowed and refused, with the deciding rule's path). Pure: no AWS, no chain."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from chalicelib.evm import abi, digests
from chalicelib.evm.transactions import UnsignedTx
from chalicelib.policies.document import MAX_POLICY_BYTES, PolicyDocument, PolicyDocumentError
from chalicelib.policies.engine import Decision, Usage, evaluate
from chalicelib.policies.facts import (
    FactsError,
    PersonalMessageFacts,
    TransactionFacts,
    Transfer,
    TypedDataFacts,
    facts_of,
    transaction_facts,
)

NETWORKS = ["local-a", "local-b", "far"]
CHAIN_IDS = {"local-a": 31337, "local-b": 31338, "far": 10}
CHAIN = 31337
TOKEN = "0x5FbDB2315678afecb367f032d93F642f64180aa3"  # EIP-55
TOKEN_LOWER = TOKEN.lower()
OTHER_TOKEN = "0x" + "ee" * 20
ALICE = "0x" + "a1" * 20
BOB = "0x" + "b0" * 20
CAROL = "0x" + "c0" * 20
DEX = "0x" + "de" * 20
ZERO = "0x" + "00" * 20


def doc(**fields: Any) -> PolicyDocument:
    return PolicyDocument.parse({"version": 1, **fields}, networks=NETWORKS)


def tx(to: str | None = ALICE, value: int = 0, data: bytes = b"", chain_id: int = CHAIN) -> TransactionFacts:
    return transaction_facts(
        UnsignedTx(chain_id=chain_id, nonce=0, to=to, value=value, data=data, gas=21_000, gas_price=1)
    )


def decide(document: PolicyDocument, facts: Any, usage: Usage | None = None) -> Decision:
    decision = evaluate(document, facts, usage or Usage(), CHAIN_IDS)
    assert decision.reason and decision.reason.endswith(".") and "\n" not in decision.reason
    return decision


def allowed(decision: Decision, rule: str) -> None:
    assert (decision.allowed, decision.rule) == (True, rule), decision


def refused(decision: Decision, rule: str) -> None:
    assert (decision.allowed, decision.rule) == (False, rule), decision


def erc20(recipient: str, amount: int) -> bytes:
    return abi.transfer(recipient, amount)


UNKNOWN_CALL = bytes.fromhex("12345678") + bytes(32)


# The document.


ISSUE_EXAMPLE = {
    "version": 3,
    "default": "allow",
    "networks": ["local-a"],
    "transactions": {
        "maxValue": {"native": "1000000000000000000", TOKEN: "500000000"},
        "maxValuePer24h": {"native": "5000000000000000000", TOKEN: "2000000000"},
        "maxCountPer24h": 100,
        "destinations": {"allow": [ALICE.upper().replace("0X", "0x")], "deny": [BOB]},
        "contracts": [{"address": DEX, "selectors": ["0xA9059CBB", "0x095ea7b3"]}, {"address": TOKEN}],
        "raw": True,
    },
    "messages": {
        "personal": True,
        "typedData": [{"chainId": 31337, "verifyingContract": TOKEN, "primaryType": "Permit"}],
    },
}


def test_the_issue_example_parses_with_addresses_and_selectors_in_lower_case():
    document = PolicyDocument.parse(ISSUE_EXAMPLE, networks=NETWORKS)
    rules = document.transactions
    assert rules is not None and document.messages is not None
    assert (document.version, document.default, document.networks) == (3, "allow", ["local-a"])
    assert rules.maxValue == {"native": "1000000000000000000", TOKEN_LOWER: "500000000"}
    assert rules.destinations is not None and rules.destinations.allow == [ALICE]
    assert rules.contracts is not None
    assert (rules.contracts[0].address, rules.contracts[0].selectors) == (DEX, ["0xa9059cbb", "0x095ea7b3"])
    assert (rules.contracts[1].address, rules.contracts[1].selectors) == (TOKEN_LOWER, None)
    assert document.messages.typedData is not None
    assert document.messages.typedData[0].verifyingContract == TOKEN_LOWER


def test_defaults_of_a_minimal_document():
    document = PolicyDocument.parse({"version": 1}, networks=[])
    assert (document.default, document.networks, document.transactions, document.messages) == (
        "allow",
        None,
        None,
        None,
    )
    assert doc(transactions={}).transactions is not None and doc(transactions={}).transactions.raw is True  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("policy", "field"),
    [
        ({}, "version"),
        ({"version": 0}, "version"),
        ({"version": "1"}, "version"),
        ({"version": 1.0}, "version"),
        ({"version": True}, "version"),
        ({"version": 2**53}, "version"),
        ({"version": 1, "default": "maybe"}, "default"),
        ({"version": 1, "extra": 1}, "extra"),
        ({"version": 1, "networks": "local-a"}, "networks"),
        ({"version": 1, "networks": ["local-a", "mars"]}, "networks.1"),
        ({"version": 1, "transactions": []}, "transactions"),
        ({"version": 1, "transactions": {"limits": {}}}, "transactions.limits"),
        ({"version": 1, "transactions": {"maxValue": {"native": "-1"}}}, "transactions.maxValue.native"),
        ({"version": 1, "transactions": {"maxValue": {"native": "1e18"}}}, "transactions.maxValue.native"),
        ({"version": 1, "transactions": {"maxValue": {"native": "1.5"}}}, "transactions.maxValue.native"),
        ({"version": 1, "transactions": {"maxValue": {"native": 10}}}, "transactions.maxValue.native"),
        ({"version": 1, "transactions": {"maxValue": {"native": ""}}}, "transactions.maxValue.native"),
        ({"version": 1, "transactions": {"maxValue": {"native": "1" * 79}}}, "transactions.maxValue.native"),
        ({"version": 1, "transactions": {"maxValue": {"Native": "1"}}}, "transactions.maxValue.Native"),
        ({"version": 1, "transactions": {"maxValuePer24h": {"0x1234": "1"}}}, "transactions.maxValuePer24h.0x1234"),
        (
            {"version": 1, "transactions": {"maxValue": {TOKEN: "1", TOKEN_LOWER: "2"}}},
            "transactions.maxValue",
        ),
        ({"version": 1, "transactions": {"maxCountPer24h": -1}}, "transactions.maxCountPer24h"),
        ({"version": 1, "transactions": {"maxCountPer24h": "5"}}, "transactions.maxCountPer24h"),
        ({"version": 1, "transactions": {"raw": "false"}}, "transactions.raw"),
        ({"version": 1, "transactions": {"raw": 0}}, "transactions.raw"),
        ({"version": 1, "transactions": {"destinations": {"allow": ["0x12"]}}}, "transactions.destinations.allow.0"),
        ({"version": 1, "transactions": {"destinations": {"deny": [ALICE, 5]}}}, "transactions.destinations.deny.1"),
        ({"version": 1, "transactions": {"destinations": {"only": []}}}, "transactions.destinations.only"),
        # Mixed case must be the EIP-55 checksum: a wrong one is a typo, never a different address.
        (
            {"version": 1, "transactions": {"destinations": {"allow": [TOKEN[:-1] + "A"]}}},
            "transactions.destinations.allow.0",
        ),
        ({"version": 1, "transactions": {"contracts": [{"selectors": []}]}}, "transactions.contracts.0.address"),
        (
            {"version": 1, "transactions": {"contracts": [{"address": DEX, "selectors": ["a9059cbb"]}]}},
            "transactions.contracts.0.selectors.0",
        ),
        (
            {"version": 1, "transactions": {"contracts": [{"address": DEX, "selectors": ["0xa9059cbb00"]}]}},
            "transactions.contracts.0.selectors.0",
        ),
        ({"version": 1, "messages": {"personal": "yes"}}, "messages.personal"),
        ({"version": 1, "messages": {"email": True}}, "messages.email"),
        ({"version": 1, "messages": {"typedData": [{"chainId": "1"}]}}, "messages.typedData.0.chainId"),
        ({"version": 1, "messages": {"typedData": [{"primaryType": ""}]}}, "messages.typedData.0.primaryType"),
        (
            {"version": 1, "messages": {"typedData": [{"verifyingContract": "nope"}]}},
            "messages.typedData.0.verifyingContract",
        ),
        ({"version": 1, "messages": {"typedData": [{"domain": {}}]}}, "messages.typedData.0.domain"),
        ([], "policy"),
        ("{}", "policy"),
        (None, "policy"),
        ({"version": 1, "default": float("nan")}, "policy"),
        ({"version": 1, "transactions": {"raw": {1, 2}}}, "policy"),
    ],
)
def test_an_invalid_document_is_refused_with_its_field(policy: Any, field: str):
    with pytest.raises(PolicyDocumentError) as caught:
        PolicyDocument.parse(policy, networks=NETWORKS)
    assert (caught.value.code, caught.value.field) == ("INVALID_POLICY", field)
    assert caught.value.message


def _sized(size: int) -> dict[str, Any]:
    """A valid document of exactly `size` bytes of compact JSON (addresses, then a primaryType to fill up)."""
    addresses = [f"0x{index:040x}" for index in range((size - 200) // 45)]
    document: dict[str, Any] = {"version": 1, "transactions": {"destinations": {"allow": addresses}}}
    document["messages"] = {"typedData": [{"primaryType": "P"}]}
    missing = size - len(json.dumps(document, separators=(",", ":")))
    assert 0 <= missing < 256
    document["messages"]["typedData"][0]["primaryType"] += "P" * missing
    assert len(json.dumps(document, separators=(",", ":")).encode()) == size
    return document


def test_a_document_over_64_kib_is_refused_as_too_large():
    PolicyDocument.parse(_sized(MAX_POLICY_BYTES), networks=NETWORKS)
    with pytest.raises(PolicyDocumentError) as caught:
        PolicyDocument.parse(_sized(MAX_POLICY_BYTES + 1), networks=NETWORKS)
    assert (caught.value.code, caught.value.field) == ("POLICY_TOO_LARGE", "policy")
    # Bytes, not characters: the canonical form is UTF-8.
    wide = _sized(MAX_POLICY_BYTES)  # one more byte once a P becomes é
    wide["messages"]["typedData"][0]["primaryType"] = wide["messages"]["typedData"][0]["primaryType"][:-1] + "é"
    with pytest.raises(PolicyDocumentError) as caught:
        PolicyDocument.parse(wide, networks=NETWORKS)
    assert caught.value.code == "POLICY_TOO_LARGE"


def test_network_names_come_from_the_registry_by_default(use_networks):
    use_networks([{"name": "local-a", "chainId": 31337, "rpcUrls": ["http://127.0.0.1:8545"], "nativeSymbol": "ETH"}])
    assert PolicyDocument.parse({"version": 1, "networks": ["local-a"]}).networks == ["local-a"]
    with pytest.raises(PolicyDocumentError) as caught:
        PolicyDocument.parse({"version": 1, "networks": ["local-b"]})
    assert caught.value.field == "networks.0"


def test_a_document_is_frozen():
    document = doc()
    with pytest.raises(ValueError):
        document.version = 2  # type: ignore[misc]


# The facts of a payload.


def _selector(signature: str) -> str:
    return "0x" + abi.selector(signature).hex()


MAX = 2**256 - 1
STANDARD_CALLS = [
    # (signature, arguments, what it moves: Transfer arguments (amount, recipient[, unbounded]) or a revoked spender)
    ("transfer(address,uint256)", [BOB, 7], (7, BOB)),
    ("transferFrom(address,address,uint256)", [ALICE, BOB, 8], (8, BOB)),
    ("safeTransferFrom(address,address,uint256)", [ALICE, BOB, 12345], (1, BOB)),
    ("safeTransferFrom(address,address,uint256,bytes)", [ALICE, BOB, 12345, b"hi"], (1, BOB)),
    ("safeTransferFrom(address,address,uint256,uint256,bytes)", [ALICE, BOB, 3, 40, b""], (40, BOB)),
    ("safeBatchTransferFrom(address,address,uint256[],uint256[],bytes)", [ALICE, BOB, [1, 2], [5, 6], b"x"], (11, BOB)),
    # An allowance is spending: its amount to the spender (the largest amount is unbounded).
    ("approve(address,uint256)", [BOB, 9], (9, BOB)),
    ("increaseAllowance(address,uint256)", [BOB, 10], (10, BOB)),
    ("decreaseAllowance(address,uint256)", [BOB, 11], BOB),
    ("setApprovalForAll(address,bool)", [BOB, True], (MAX, BOB, True)),
    # Permit2's approve grants the token it names, whatever contract is called (Permit2, in practice).
    ("approve(address,address,uint160,uint48)", [OTHER_TOKEN, BOB, 12, 2**47], Transfer(OTHER_TOKEN, 12, BOB)),
]


def test_the_selectors_are_the_standard_functions():
    assert [_selector(signature) for signature, _, _ in STANDARD_CALLS] == [
        "0xa9059cbb",
        "0x23b872dd",
        "0x42842e0e",
        "0xb88d4fde",
        "0xf242432a",
        "0x2eb2c2d6",
        "0x095ea7b3",
        "0x39509351",
        "0xa457c2d7",
        "0xa22cb465",
        "0x87517c45",
    ]


@pytest.mark.parametrize(("signature", "arguments", "expected"), STANDARD_CALLS, ids=[c[0] for c in STANDARD_CALLS])
def test_each_standard_call_is_decoded(
    signature: str, arguments: list[Any], expected: tuple[Any, ...] | str | Transfer
):
    facts = tx(to=TOKEN, data=abi.encode_call(signature, *arguments))
    assert (facts.to, facts.selector, facts.has_data, facts.decoded) == (TOKEN_LOWER, _selector(signature), True, True)
    if isinstance(expected, str):
        assert (facts.transfers, facts.revokes) == ((), (expected,))
    elif isinstance(expected, Transfer):
        assert (facts.transfers, facts.revokes) == ((expected,), ())
    else:
        assert (facts.transfers, facts.revokes) == ((Transfer(TOKEN_LOWER, *expected),), ())


@pytest.mark.parametrize(("signature", "arguments", "expected"), STANDARD_CALLS, ids=[c[0] for c in STANDARD_CALLS])
def test_a_malformed_standard_call_is_not_decoded(signature: str, arguments: list[Any], expected: Any):
    good = abi.encode_call(signature, *arguments)
    dirty_address = good[:4] + b"\x01" + good[5:]  # a non-zero byte in the first address's padding
    for data in (good[:-1], good[:4], good[:20], dirty_address):
        facts = tx(to=TOKEN, data=data)
        assert (facts.selector, facts.decoded, facts.transfers, facts.revokes) == (
            _selector(signature),
            False,
            (),
            (),
        ), data.hex()


def test_approvals_are_transfers_to_their_spender():
    def moves(signature: str, *arguments: Any) -> tuple[tuple[Transfer, ...], tuple[str, ...]]:
        facts = tx(to=TOKEN, data=abi.encode_call(signature, *arguments))
        assert facts.decoded
        return facts.transfers, facts.revokes

    # The largest amount never decreases on most tokens: unbounded. Below it, the amount.
    assert moves("approve(address,uint256)", BOB, MAX) == ((Transfer(TOKEN_LOWER, MAX, BOB, unbounded=True),), ())
    assert moves("approve(address,uint256)", BOB, MAX - 1) == ((Transfer(TOKEN_LOWER, MAX - 1, BOB),), ())
    assert moves("increaseAllowance(address,uint256)", BOB, MAX)[0][0].unbounded
    # approve(x, 0) revokes an ERC-20 allowance but grants an ERC-721's token #0: a transfer of 0 the lists see.
    assert moves("approve(address,uint256)", BOB, 0) == ((Transfer(TOKEN_LOWER, 0, BOB),), ())
    assert moves("setApprovalForAll(address,bool)", BOB, False) == ((), (BOB,))
    # A bool is 0 or 1: anything else is not a strict encoding, and not decoded.
    good = abi.encode_call("setApprovalForAll(address,bool)", BOB, True)
    for flag in (2, 255, 2**255):
        facts = tx(to=TOKEN, data=good[:36] + flag.to_bytes(32, "big"))
        assert (facts.decoded, facts.transfers, facts.revokes) == (False, (), ())


def test_a_batch_whose_ids_and_amounts_differ_in_length_is_not_decoded():
    data = abi.encode_call(
        "safeBatchTransferFrom(address,address,uint256[],uint256[],bytes)", ALICE, BOB, [1, 2], [5], b""
    )
    facts = tx(to=TOKEN, data=data)
    assert (facts.decoded, facts.transfers) == (False, ())


def test_a_decoded_recipient_is_kept_in_lower_case():
    facts = tx(to=TOKEN, data=erc20(TOKEN, 1))
    assert facts.transfers == (Transfer(TOKEN_LOWER, 1, TOKEN_LOWER),)


def test_a_plain_send_always_has_its_coin_transfer():
    assert tx(to=ALICE, value=0).transfers == (Transfer("native", 0, ALICE),)
    facts = tx(to=ALICE, value=5)
    assert (facts.selector, facts.has_data, facts.decoded, facts.transfers) == (
        None,
        False,
        True,
        (Transfer("native", 5, ALICE),),
    )


def test_a_token_call_with_value_has_both_transfers():
    facts = tx(to=TOKEN, value=3, data=erc20(BOB, 9))
    assert facts.transfers == (Transfer("native", 3, TOKEN_LOWER), Transfer(TOKEN_LOWER, 9, BOB))


def test_other_call_data_is_not_decoded():
    facts = tx(to=DEX, value=2, data=UNKNOWN_CALL)
    assert (facts.selector, facts.decoded, facts.transfers) == ("0x12345678", False, (Transfer("native", 2, DEX),))
    short = tx(to=DEX, data=b"\xa9\x05\x9c")
    assert (short.selector, short.has_data, short.decoded, short.transfers) == (None, True, False, ())


def test_a_contract_creation_moves_its_value_to_no_nameable_address_and_is_not_decoded():
    facts = tx(to=None, value=4, data=b"\x60\x80")
    assert (facts.to, facts.transfers, facts.decoded, facts.has_data) == (
        None,
        (Transfer("native", 4, ""),),
        False,
        True,
    )
    assert tx(to=None, value=0, data=b"\x60\x80").transfers == ()


def test_facts_of_each_kind_of_payload():
    unsigned = UnsignedTx(chain_id=CHAIN, nonce=1, to=TOKEN, value=0, data=erc20(BOB, 2), gas=60_000, gas_price=1)
    assert facts_of(digests.transaction(unsigned)) == transaction_facts(unsigned)
    assert facts_of(digests.personal_message(b"hello")) == PersonalMessageFacts(5)
    assert facts_of(digests.personal_message(b"")) == PersonalMessageFacts(0)
    assert facts_of(digests.personal_message(bytes(32))) == PersonalMessageFacts(32)
    assert facts_of(digests.typed_data(permit(chain_id=CHAIN, contract=TOKEN))) == TypedDataFacts(
        CHAIN, TOKEN_LOWER, "Permit"
    )
    assert facts_of(digests.typed_data(permit(chain_id=None, contract=None))) == TypedDataFacts(None, None, "Permit")


def test_a_payload_that_cannot_be_read_raises_facts_error():
    unsigned = UnsignedTx(chain_id=CHAIN, nonce=1, to=TOKEN, value=0, data=b"", gas=60_000, gas_price=1)
    bad_transaction = digests.Signable(kind="transaction", transaction={**unsigned.wire(), "to": "0x12"})
    bad_message = digests.Signable(kind="personal_message", message="0xabc")
    bad_typed = digests.Signable(
        kind="typed_data", typedData={**permit(chain_id=CHAIN, contract=TOKEN), "primaryType": "X"}
    )
    for payload in (bad_transaction, bad_message, bad_typed):
        with pytest.raises(FactsError):
            facts_of(payload)


def permit(*, chain_id: int | None, contract: str | None, primary: str = "Permit") -> dict[str, Any]:
    domain: dict[str, Any] = {"name": "Token"}
    if chain_id is not None:
        domain["chainId"] = chain_id
    if contract is not None:
        domain["verifyingContract"] = contract
    return {
        "types": {primary: [{"name": "owner", "type": "address"}, {"name": "value", "type": "uint256"}]},
        "primaryType": primary,
        "domain": domain,
        "message": {"owner": ALICE, "value": "1"},
    }


# Networks and the default.


def test_networks_allow_only_their_chains():
    document = doc(networks=["local-a", "far"])
    allowed(decide(document, tx(chain_id=31337)), "default")
    allowed(decide(document, tx(chain_id=10)), "default")
    refused(decide(document, tx(chain_id=31338)), "networks")
    # An empty list allows no chain; a name the caller's registry lacks matches none.
    refused(decide(doc(networks=[]), tx()), "networks")
    refused(evaluate(document, tx(chain_id=10), Usage(), {"local-a": 31337}), "networks")


def test_networks_come_before_the_default():
    refused(decide(doc(default="allow", networks=["far"]), tx()), "networks")
    refused(decide(doc(default="deny", networks=["local-a"]), tx()), "default")


def test_without_transaction_rules_the_default_decides():
    allowed(decide(doc(), tx(to=DEX, data=UNKNOWN_CALL)), "default")
    refused(decide(doc(default="deny"), tx(value=1)), "default")
    refused(decide(doc(default="deny", transactions={}), tx(value=1)), "default")
    allowed(decide(doc(transactions={}), tx(to=None, data=b"\x00")), "default")


# destinations.


def test_destinations_deny_refuses_its_recipients():
    document = doc(transactions={"destinations": {"deny": [BOB]}})
    refused(decide(document, tx(to=BOB, value=1)), "transactions.destinations.deny")
    refused(decide(document, tx(to=BOB, value=0)), "transactions.destinations.deny")
    refused(decide(document, tx(to=TOKEN, data=erc20(BOB, 1))), "transactions.destinations.deny")
    refused(
        decide(document, tx(to=TOKEN, data=abi.encode_call("transferFrom(address,address,uint256)", ALICE, BOB, 1))),
        "transactions.destinations.deny",
    )
    allowed(decide(document, tx(to=ALICE, value=1)), "default")
    allowed(decide(document, tx(to=TOKEN, data=erc20(ALICE, 1))), "default")
    # An approval's spender is its recipient.
    refused(
        decide(document, tx(to=TOKEN, data=abi.encode_call("approve(address,uint256)", BOB, 1))),
        "transactions.destinations.deny",
    )
    allowed(decide(document, tx(to=TOKEN, data=abi.encode_call("approve(address,uint256)", ALICE, 1))), "default")


def test_destinations_deny_fails_closed_on_call_data_it_cannot_decode():
    document = doc(transactions={"destinations": {"deny": [BOB]}})
    refused(decide(document, tx(to=DEX, data=UNKNOWN_CALL)), "transactions.destinations.deny")
    refused(decide(document, tx(to=TOKEN, data=erc20(ALICE, 1)[:-1])), "transactions.destinations.deny")
    refused(decide(document, tx(to=None, data=b"\x60")), "transactions.destinations.deny")


def test_destinations_allow_refuses_everyone_else():
    document = doc(transactions={"destinations": {"allow": [ALICE]}})
    allowed(decide(document, tx(to=ALICE, value=1)), "transactions.destinations.allow")
    allowed(decide(document, tx(to=TOKEN, data=erc20(ALICE, 1))), "transactions.destinations.allow")
    refused(decide(document, tx(to=CAROL, value=1)), "transactions.destinations.allow")
    refused(decide(document, tx(to=TOKEN, data=erc20(CAROL, 1))), "transactions.destinations.allow")
    # A coin sent along with a token transfer goes to the token contract, which is not on the list.
    refused(decide(document, tx(to=TOKEN, value=1, data=erc20(ALICE, 1))), "transactions.destinations.allow")
    refused(decide(document, tx(to=DEX, data=UNKNOWN_CALL)), "transactions.destinations.allow")
    refused(decide(doc(transactions={"destinations": {"allow": []}}), tx(to=ALICE)), "transactions.destinations.allow")


def test_destinations_deny_wins_over_allow():
    document = doc(transactions={"destinations": {"allow": [ALICE, BOB], "deny": [BOB]}})
    refused(decide(document, tx(to=BOB, value=1)), "transactions.destinations.deny")
    allowed(decide(document, tx(to=ALICE, value=1)), "transactions.destinations.allow")


# contracts and raw.


def test_contracts_allow_only_listed_calls():
    document = doc(transactions={"contracts": [{"address": TOKEN, "selectors": ["0xa9059cbb"]}, {"address": DEX}]})
    allowed(decide(document, tx(to=TOKEN, data=erc20(ALICE, 1))), "transactions.contracts")
    allowed(decide(document, tx(to=DEX, data=UNKNOWN_CALL)), "transactions.contracts")
    allowed(decide(document, tx(to=DEX, data=b"\x01")), "transactions.contracts")
    refused(
        decide(document, tx(to=TOKEN, data=abi.encode_call("approve(address,uint256)", DEX, 1))),
        "transactions.contracts",
    )
    refused(decide(document, tx(to=TOKEN, data=b"\xa9\x05\x9c")), "transactions.contracts")
    refused(decide(document, tx(to=CAROL, data=erc20(ALICE, 1))), "transactions.contracts")
    refused(decide(document, tx(to=None, data=b"\x60\x80")), "transactions.contracts")
    # A plain send calls no function: contracts do not apply.
    allowed(decide(document, tx(to=CAROL, value=1)), "default")
    refused(decide(doc(transactions={"contracts": []}), tx(to=DEX, data=UNKNOWN_CALL)), "transactions.contracts")


def test_raw_false_refuses_calls_that_match_no_rule():
    document = doc(transactions={"raw": False, "contracts": [{"address": DEX}]})
    refused(decide(doc(transactions={"raw": False}), tx(to=CAROL, data=UNKNOWN_CALL)), "transactions.raw")
    refused(decide(doc(transactions={"raw": False}), tx(to=None, data=b"\x60")), "transactions.raw")
    refused(decide(doc(transactions={"raw": False}), tx(to=TOKEN, data=erc20(ALICE, 1)[:-2])), "transactions.raw")
    allowed(decide(doc(transactions={"raw": False}), tx(to=TOKEN, data=erc20(ALICE, 1))), "default")
    allowed(decide(doc(transactions={"raw": False}), tx(to=CAROL, value=1)), "default")
    allowed(decide(document, tx(to=DEX, data=UNKNOWN_CALL)), "transactions.contracts")
    allowed(decide(doc(transactions={"raw": True}), tx(to=CAROL, data=UNKNOWN_CALL)), "default")


# Limits.


def test_max_value_per_transaction():
    document = doc(transactions={"maxValue": {"native": "100", TOKEN: "50"}})
    allowed(decide(document, tx(value=100)), "transactions.maxValue")
    refused(decide(document, tx(value=101)), "transactions.maxValue.native")
    allowed(decide(document, tx(to=TOKEN, data=erc20(BOB, 50))), "transactions.maxValue")
    refused(decide(document, tx(to=TOKEN, data=erc20(BOB, 51))), f"transactions.maxValue.{TOKEN_LOWER}")
    # Every transfer of the asset counts: coin sent along with a call too.
    refused(decide(document, tx(to=DEX, value=101, data=UNKNOWN_CALL)), "transactions.maxValue.native")
    # An asset the map does not name has no limit.
    allowed(decide(document, tx(to=OTHER_TOKEN, data=erc20(BOB, 10**30))), "default")


def test_max_value_fails_closed_on_the_limited_tokens_undecodable_calls():
    document = doc(transactions={"maxValue": {TOKEN: "50"}})
    refused(decide(document, tx(to=TOKEN, data=UNKNOWN_CALL)), f"transactions.maxValue.{TOKEN_LOWER}")
    refused(decide(document, tx(to=TOKEN, data=erc20(BOB, 1)[:-1])), f"transactions.maxValue.{TOKEN_LOWER}")
    allowed(decide(document, tx(to=DEX, data=UNKNOWN_CALL)), "default")


def test_max_value_reports_the_first_asset_in_sorted_order():
    document = doc(transactions={"maxValue": {TOKEN: "1", "native": "1", OTHER_TOKEN: "1"}})
    over_both = tx(to=TOKEN, value=2, data=erc20(BOB, 2))
    refused(decide(document, over_both), f"transactions.maxValue.{TOKEN_LOWER}")  # "0x5f..." < "native"


def test_max_value_per_24h_adds_the_usage():
    document = doc(transactions={"maxValuePer24h": {"native": "100", TOKEN: "10"}})
    allowed(decide(document, tx(value=40), Usage(spent={"native": 60})), "transactions.maxValuePer24h")
    refused(decide(document, tx(value=41), Usage(spent={"native": 60})), "transactions.maxValuePer24h.native")
    refused(decide(document, tx(value=101)), "transactions.maxValuePer24h.native")
    usage = Usage(spent={TOKEN_LOWER: 10})
    refused(decide(document, tx(to=TOKEN, data=erc20(BOB, 1)), usage), f"transactions.maxValuePer24h.{TOKEN_LOWER}")
    # Only a sum over the limit refuses: a transfer of 0 still fits a window used up exactly.
    allowed(decide(document, tx(to=TOKEN, data=erc20(BOB, 0)), usage), "transactions.maxValuePer24h")
    refused(decide(document, tx(to=TOKEN, data=UNKNOWN_CALL)), f"transactions.maxValuePer24h.{TOKEN_LOWER}")


def test_per_transaction_limits_are_checked_before_the_24h_ones():
    document = doc(transactions={"maxValue": {"native": "5"}, "maxValuePer24h": {"native": "5"}})
    refused(decide(document, tx(value=6)), "transactions.maxValue.native")
    refused(decide(document, tx(value=5), Usage(spent={"native": 1})), "transactions.maxValuePer24h.native")


def test_max_count_per_24h():
    document = doc(transactions={"maxCountPer24h": 3})
    allowed(decide(document, tx(value=1), Usage(count=2)), "default")
    refused(decide(document, tx(value=1), Usage(count=3)), "transactions.maxCountPer24h")
    refused(decide(doc(transactions={"maxCountPer24h": 0}), tx()), "transactions.maxCountPer24h")
    # The count is of transactions: messages do not count against it.
    allowed(decide(document, PersonalMessageFacts(5), Usage(count=3)), "default")


# Deny wins, and what a `default: deny` document allows.


def test_a_refusal_wins_over_any_allowing_rule():
    document = doc(
        default="deny",
        transactions={
            "destinations": {"allow": [ALICE]},
            "contracts": [{"address": TOKEN}],
            "maxValue": {TOKEN: "10"},
            "maxCountPer24h": 5,
        },
    )
    allowed(decide(document, tx(to=TOKEN, data=erc20(ALICE, 10))), "transactions.contracts")
    refused(decide(document, tx(to=TOKEN, data=erc20(ALICE, 11))), f"transactions.maxValue.{TOKEN_LOWER}")
    refused(decide(document, tx(to=TOKEN, data=erc20(BOB, 1))), "transactions.destinations.allow")
    refused(decide(document, tx(to=TOKEN, data=erc20(ALICE, 1)), Usage(count=5)), "transactions.maxCountPer24h")
    denied = doc(transactions={"destinations": {"deny": [TOKEN]}, "contracts": [{"address": TOKEN}]})
    refused(decide(denied, tx(to=TOKEN, value=1, data=erc20(ALICE, 1))), "transactions.destinations.deny")


def test_default_deny_needs_a_positive_match():
    allow_list = doc(default="deny", transactions={"destinations": {"allow": [ALICE]}})
    allowed(decide(allow_list, tx(to=ALICE, value=1)), "transactions.destinations.allow")
    # An approval to a listed spender is a transfer to it; a revoke moves nothing, so the default decides.
    allowed(
        decide(allow_list, tx(to=TOKEN, data=abi.encode_call("approve(address,uint256)", ALICE, 1))),
        "transactions.destinations.allow",
    )
    refused(
        decide(allow_list, tx(to=TOKEN, data=abi.encode_call("decreaseAllowance(address,uint256)", ALICE, 1))),
        "default",
    )

    capped = doc(default="deny", transactions={"maxValue": {"native": "10"}, "maxValuePer24h": {TOKEN: "10"}})
    allowed(decide(capped, tx(value=10)), "transactions.maxValue")
    allowed(decide(capped, tx(to=TOKEN, data=erc20(BOB, 1))), "transactions.maxValuePer24h")
    allowed(decide(capped, tx(to=TOKEN, value=1, data=erc20(BOB, 1))), "transactions.maxValuePer24h")
    refused(decide(capped, tx(to=OTHER_TOKEN, data=erc20(BOB, 1))), "default")  # a token no limit names
    refused(decide(capped, tx(to=DEX, value=1, data=UNKNOWN_CALL)), "default")  # undecoded: not a known amount
    refused(decide(capped, tx(to=None, data=b"\x60")), "default")

    contracts = doc(default="deny", transactions={"contracts": [{"address": DEX, "selectors": ["0x12345678"]}]})
    allowed(decide(contracts, tx(to=DEX, data=UNKNOWN_CALL)), "transactions.contracts")
    refused(decide(contracts, tx(to=ALICE, value=1)), "default")


def test_default_allow_reports_the_first_positive_match():
    document = doc(
        transactions={"contracts": [{"address": TOKEN}], "destinations": {"allow": [ALICE]}, "maxValue": {TOKEN: "9"}}
    )
    allowed(decide(document, tx(to=TOKEN, data=erc20(ALICE, 1))), "transactions.contracts")
    allowed(
        decide(doc(transactions={"destinations": {"allow": [ALICE]}, "maxValue": {"native": "9"}}), tx(value=1)),
        "transactions.destinations.allow",
    )
    allowed(decide(doc(transactions={"maxCountPer24h": 9}), tx(value=1)), "default")


# Messages.


def test_personal_messages():
    message = PersonalMessageFacts(5)
    allowed(decide(doc(), message), "default")
    refused(decide(doc(default="deny"), message), "default")
    refused(decide(doc(default="deny", messages={}), message), "default")
    allowed(decide(doc(default="deny", messages={"personal": True}), message), "messages.personal")
    refused(decide(doc(messages={"personal": False}), message), "messages.personal")
    # Networks and transaction rules say nothing about a personal message.
    allowed(decide(doc(networks=[], transactions={"maxCountPer24h": 0}), message), "default")


def test_typed_data_matches_each_named_field():
    rules = [{"chainId": 31337, "verifyingContract": TOKEN, "primaryType": "Permit"}, {"primaryType": "Order"}]
    document = doc(messages={"typedData": rules})
    allowed(decide(document, TypedDataFacts(31337, TOKEN_LOWER, "Permit")), "messages.typedData")
    allowed(decide(document, TypedDataFacts(None, None, "Order")), "messages.typedData")
    allowed(decide(document, TypedDataFacts(1, DEX, "Order")), "messages.typedData")
    refused(decide(document, TypedDataFacts(31338, TOKEN_LOWER, "Permit")), "messages.typedData")
    refused(decide(document, TypedDataFacts(31337, DEX, "Permit")), "messages.typedData")
    refused(decide(document, TypedDataFacts(31337, TOKEN_LOWER, "Permit2")), "messages.typedData")
    refused(decide(document, TypedDataFacts(None, TOKEN_LOWER, "Permit")), "messages.typedData")
    refused(decide(document, TypedDataFacts(31337, None, "Permit")), "messages.typedData")
    allowed(decide(doc(messages={"typedData": [{}]}), TypedDataFacts(None, None, "Anything")), "messages.typedData")
    refused(decide(doc(messages={"typedData": []}), TypedDataFacts(None, None, "Permit")), "messages.typedData")


def test_typed_data_from_a_payload_matches_a_checksummed_rule():
    document = doc(default="deny", messages={"typedData": [{"verifyingContract": TOKEN, "primaryType": "Permit"}]})
    facts = facts_of(digests.typed_data(permit(chain_id=CHAIN, contract=TOKEN_LOWER)))
    allowed(decide(document, facts), "messages.typedData")


def test_typed_data_networks_and_default():
    permit_facts = TypedDataFacts(31338, TOKEN_LOWER, "Permit")
    refused(decide(doc(networks=["local-a"]), permit_facts), "networks")
    allowed(decide(doc(networks=["local-b"]), permit_facts), "default")
    # A domain without a chainId is not tied to a network.
    allowed(decide(doc(networks=[]), TypedDataFacts(None, None, "Permit")), "default")
    refused(decide(doc(default="deny"), permit_facts), "default")
    refused(decide(doc(default="deny", messages={"personal": True}), permit_facts), "default")
    allowed(decide(doc(messages={"personal": False}), permit_facts), "default")


def test_usage_starts_empty():
    assert (Usage().spent, Usage().count) == ({}, 0)


# An allowance is spending.


def approve(spender: str, amount: int) -> bytes:
    return abi.encode_call("approve(address,uint256)", spender, amount)


def operator(who: str, approved: bool) -> bytes:
    return abi.encode_call("setApprovalForAll(address,bool)", who, approved)


def decrease(spender: str, amount: int) -> bytes:
    return abi.encode_call("decreaseAllowance(address,uint256)", spender, amount)


def increase(spender: str, amount: int) -> bytes:
    return abi.encode_call("increaseAllowance(address,uint256)", spender, amount)


def test_an_approval_counts_against_the_limits_like_a_transfer():
    document = doc(transactions={"maxValue": {TOKEN: "50"}, "maxValuePer24h": {TOKEN: "100"}})
    allowed(decide(document, tx(to=TOKEN, data=approve(BOB, 50))), "transactions.maxValue")
    refused(decide(document, tx(to=TOKEN, data=approve(BOB, 51))), f"transactions.maxValue.{TOKEN_LOWER}")
    refused(decide(document, tx(to=TOKEN, data=increase(BOB, 51))), f"transactions.maxValue.{TOKEN_LOWER}")
    day = Usage(spent={TOKEN_LOWER: 60})
    allowed(decide(document, tx(to=TOKEN, data=approve(BOB, 40)), day), "transactions.maxValue")
    over = decide(document, tx(to=TOKEN, data=increase(BOB, 41)), day)
    refused(over, f"transactions.maxValuePer24h.{TOKEN_LOWER}")
    assert "41" in over.reason and "60" in over.reason
    # The largest amount never decreases on most tokens: unlimited, refused whatever the limit.
    unlimited = doc(transactions={"maxValuePer24h": {TOKEN: str(2**256 - 1)}})
    decision = decide(unlimited, tx(to=TOKEN, data=approve(BOB, 2**256 - 1)))
    refused(decision, f"transactions.maxValuePer24h.{TOKEN_LOWER}")
    assert "unlimited approval" in decision.reason and BOB in decision.reason
    allowed(decide(unlimited, tx(to=TOKEN, data=approve(BOB, 2**256 - 2))), "transactions.maxValuePer24h")
    # Another token's limit does not reach it.
    allowed(
        decide(doc(transactions={"maxValue": {OTHER_TOKEN: "1"}}), tx(to=TOKEN, data=approve(BOB, 10**30))), "default"
    )


def test_an_approval_goes_to_its_spender():
    listed = doc(transactions={"destinations": {"allow": [ALICE]}})
    allowed(decide(listed, tx(to=TOKEN, data=approve(ALICE, 10))), "transactions.destinations.allow")
    refused(decide(listed, tx(to=TOKEN, data=approve(BOB, 10))), "transactions.destinations.allow")
    refused(decide(listed, tx(to=TOKEN, data=increase(BOB, 10))), "transactions.destinations.allow")
    refused(decide(listed, tx(to=TOKEN, data=operator(BOB, True))), "transactions.destinations.allow")
    allowed(decide(listed, tx(to=TOKEN, data=operator(ALICE, True))), "transactions.destinations.allow")


def test_a_whole_collection_approval_is_refused_by_any_limit_on_it():
    for limits in ({"maxValue": {TOKEN: "9" * 78}}, {"maxValuePer24h": {TOKEN: "9" * 78}}):
        decision = decide(doc(transactions=limits), tx(to=TOKEN, data=operator(BOB, True)))
        rule = next(iter(limits))
        refused(decision, f"transactions.{rule}.{TOKEN_LOWER}")
        assert "unlimited approval" in decision.reason
    allowed(
        decide(doc(transactions={"maxValue": {OTHER_TOKEN: "1"}}), tx(to=TOKEN, data=operator(BOB, True))), "default"
    )


def test_approve_of_zero_passes_the_limits_but_not_the_destination_lists():
    """approve(x, 0) revokes an ERC-20 allowance, but on an ERC-721 it grants token #0: the lists see x."""
    spent = Usage(spent={TOKEN_LOWER: 100})
    capped = doc(transactions={"maxValue": {TOKEN: "0"}, "maxValuePer24h": {TOKEN: "100"}})
    allowed(decide(capped, tx(to=TOKEN, data=approve(BOB, 0)), spent), "transactions.maxValue")
    listed = doc(transactions={"destinations": {"allow": [ALICE]}, "maxValuePer24h": {TOKEN: "100"}})
    allowed(decide(listed, tx(to=TOKEN, data=approve(ALICE, 0)), spent), "transactions.destinations.allow")
    refused(decide(listed, tx(to=TOKEN, data=approve(BOB, 0)), spent), "transactions.destinations.allow")
    denied = doc(transactions={"destinations": {"deny": [BOB]}})
    refused(decide(denied, tx(to=TOKEN, data=approve(BOB, 0))), "transactions.destinations.deny")


def test_a_revoke_passes_the_limits_and_the_allow_list_but_obeys_deny_networks_and_contracts():
    spent = Usage(spent={TOKEN_LOWER: 100})
    for data in (decrease(BOB, 2**256 - 1), operator(BOB, False)):
        strict = doc(
            transactions={"destinations": {"allow": [ALICE]}, "maxValue": {TOKEN: "0"}, "maxValuePer24h": {TOKEN: "1"}}
        )
        allowed(decide(strict, tx(to=TOKEN, data=data), spent), "default")
        refused(
            decide(doc(transactions={"destinations": {"deny": [BOB]}}), tx(to=TOKEN, data=data)),
            "transactions.destinations.deny",
        )
        refused(decide(doc(networks=["far"], transactions={}), tx(to=TOKEN, data=data)), "networks")
        refused(
            decide(doc(transactions={"contracts": [{"address": DEX}]}), tx(to=TOKEN, data=data)),
            "transactions.contracts",
        )
        # A revoke moves nothing: a `default: deny` document allows it only by a contracts entry.
        refused(
            decide(doc(default="deny", transactions={"destinations": {"allow": [BOB]}}), tx(to=TOKEN, data=data)),
            "default",
        )
        contracts = doc(default="deny", transactions={"contracts": [{"address": TOKEN}]})
        allowed(decide(contracts, tx(to=TOKEN, data=data)), "transactions.contracts")


PERMIT2 = "0x000000000022d473030f116ddee9f6b43ac78ba3"


def permit2_approve(token: str, spender: str, amount: int, chain_id: int = CHAIN) -> TransactionFacts:
    """Permit2's own allowance (approve(token, spender, amount, expiration)), called on the Permit2 contract."""
    data = abi.encode_call("approve(address,address,uint160,uint48)", token, spender, amount, 2**47)
    return tx(to=PERMIT2, data=data, chain_id=chain_id)


def test_permit2_s_approve_is_a_grant_of_the_token_it_names():
    """The called contract is Permit2: the token is the first argument, and the limits on that token see the grant
    (with `raw` at its default, the call passed every limit on the token before)."""
    assert permit2_approve(TOKEN, BOB, 7).transfers == (Transfer(TOKEN_LOWER, 7, BOB),)
    limited = doc(transactions={"maxValue": {TOKEN: "50"}, "maxValuePer24h": {TOKEN: "100"}})
    allowed(decide(limited, permit2_approve(TOKEN, BOB, 50)), "transactions.maxValue")
    refused(decide(limited, permit2_approve(TOKEN, BOB, 51)), f"transactions.maxValue.{TOKEN_LOWER}")
    refused(
        decide(limited, permit2_approve(TOKEN, BOB, 41), Usage(spent={TOKEN_LOWER: 60})),
        f"transactions.maxValuePer24h.{TOKEN_LOWER}",
    )
    # Its largest amount (uint160's) never decreases in Permit2: unlimited, refused whatever the limit.
    unlimited = permit2_approve(TOKEN, BOB, 2**160 - 1)
    assert unlimited.transfers == (Transfer(TOKEN_LOWER, 2**160 - 1, BOB, unbounded=True),)
    decision = decide(doc(transactions={"maxValuePer24h": {TOKEN: "9" * 78}}), unlimited)
    refused(decision, f"transactions.maxValuePer24h.{TOKEN_LOWER}")
    assert "unlimited approval" in decision.reason
    # The spender is the recipient; a limit on Permit2 (no token) or on another token does not see it.
    refused(
        decide(doc(transactions={"destinations": {"allow": [ALICE]}}), permit2_approve(TOKEN, BOB, 0)),
        "transactions.destinations.allow",
    )
    allowed(
        decide(doc(transactions={"destinations": {"allow": [BOB]}}), permit2_approve(TOKEN, BOB, 1)),
        "transactions.destinations.allow",
    )
    allowed(
        decide(doc(transactions={"maxValue": {PERMIT2: "0", OTHER_TOKEN: "0"}}), permit2_approve(TOKEN, BOB, 5)),
        "default",
    )
    # An amount wider than uint160 is no call Permit2 takes: not decoded.
    good = abi.encode_call("approve(address,address,uint160,uint48)", TOKEN, BOB, 1, 2**47)
    wide = tx(to=PERMIT2, data=good[:68] + (2**160).to_bytes(32, "big") + good[100:])
    assert (wide.decoded, wide.transfers) == (False, ())


def test_an_erc721_approval_reads_the_token_id_as_its_amount():
    """approve and transferFrom share their selectors between ERC-20 and ERC-721: the id is read as an amount
    (never fewer than the one token it grants, but for id 0, which the destination lists still see)."""
    facts = tx(to=TOKEN, data=approve(BOB, 7))
    assert facts.transfers == (Transfer(TOKEN_LOWER, 7, BOB),)
    refused(decide(doc(transactions={"maxValue": {TOKEN: "6"}}), facts), f"transactions.maxValue.{TOKEN_LOWER}")


# Typed-data permits.


def _fields(*declarations: str) -> list[dict[str, str]]:
    return [{"name": d.split()[1], "type": d.split()[0]} for d in declarations]


DOMAIN_TYPE = _fields("string name", "uint256 chainId", "address verifyingContract")


def eip2612(value: Any, spender: str = BOB, *, token: str | None = TOKEN, chain_id: int = CHAIN) -> dict[str, Any]:
    domain: dict[str, Any] = {"name": "Token", "chainId": chain_id}
    domain_type = DOMAIN_TYPE[:2]
    if token is not None:
        domain["verifyingContract"] = token
        domain_type = DOMAIN_TYPE
    return {
        "types": {
            "EIP712Domain": domain_type,
            "Permit": _fields("address owner", "address spender", "uint256 value", "uint256 nonce", "uint256 deadline"),
        },
        "primaryType": "Permit",
        "domain": domain,
        "message": {"owner": ALICE, "spender": spender, "value": value, "nonce": 0, "deadline": 2**40},
    }


def permit2(primary: str, message: dict[str, Any], chain_id: int = CHAIN) -> dict[str, Any]:
    details = _fields("address token", "uint160 amount", "uint48 expiration", "uint48 nonce")
    permissions = _fields("address token", "uint256 amount")
    types = {
        "PermitSingle": {
            "PermitSingle": _fields("PermitDetails details", "address spender", "uint256 sigDeadline"),
            "PermitDetails": details,
        },
        "PermitBatch": {
            "PermitBatch": _fields("PermitDetails[] details", "address spender", "uint256 sigDeadline"),
            "PermitDetails": details,
        },
        "PermitTransferFrom": {
            "PermitTransferFrom": _fields(
                "TokenPermissions permitted", "address spender", "uint256 nonce", "uint256 deadline"
            ),
            "TokenPermissions": permissions,
        },
        "PermitBatchTransferFrom": {
            "PermitBatchTransferFrom": _fields(
                "TokenPermissions[] permitted", "address spender", "uint256 nonce", "uint256 deadline"
            ),
            "TokenPermissions": permissions,
        },
    }[primary]
    return {
        "types": {"EIP712Domain": DOMAIN_TYPE, **types},
        "primaryType": primary,
        "domain": {"name": "Permit2", "chainId": chain_id, "verifyingContract": PERMIT2},
        "message": message,
    }


def typed(document: dict[str, Any]) -> TypedDataFacts:
    facts = facts_of(digests.typed_data(document))
    assert isinstance(facts, TypedDataFacts)
    return facts


def detail(token: str, amount: int) -> dict[str, Any]:
    return {"token": token, "amount": amount, "expiration": 2**47, "nonce": 0}


def test_the_permits_are_read_strictly():
    facts = typed(eip2612("5"))
    assert (facts.chain_id, facts.verifying_contract, facts.primary_type) == (CHAIN, TOKEN_LOWER, "Permit")
    assert (facts.permit, facts.transfers, facts.revokes) == ("EIP-2612 permit", (Transfer(TOKEN_LOWER, 5, BOB),), ())
    assert typed(eip2612(2**256 - 1)).transfers == (Transfer(TOKEN_LOWER, 2**256 - 1, BOB, unbounded=True),)
    # Without the token (the domain's verifyingContract) it is not a permit any contract would take: as before.
    assert typed(eip2612(5, token=None)).permit is None

    dai = eip2612(0)
    dai["types"]["Permit"] = _fields(
        "address holder", "address spender", "uint256 nonce", "uint256 expiry", "bool allowed"
    )
    dai["message"] = {"holder": ALICE, "spender": BOB, "nonce": 0, "expiry": 0, "allowed": True}
    assert typed(dai).transfers == (Transfer(TOKEN_LOWER, 2**256 - 1, BOB, unbounded=True),)
    dai["message"]["allowed"] = False
    assert (typed(dai).permit, typed(dai).transfers, typed(dai).revokes) == ("DAI permit", (), (BOB,))

    single = typed(permit2("PermitSingle", {"details": detail(TOKEN, 7), "spender": CAROL, "sigDeadline": 1}))
    assert (single.permit, single.transfers) == ("Permit2 PermitSingle", (Transfer(TOKEN_LOWER, 7, CAROL),))
    unlimited = typed(
        permit2("PermitSingle", {"details": detail(TOKEN, 2**160 - 1), "spender": CAROL, "sigDeadline": 1})
    )
    assert unlimited.transfers == (Transfer(TOKEN_LOWER, 2**160 - 1, CAROL, unbounded=True),)
    batch = typed(
        permit2(
            "PermitBatch", {"details": [detail(TOKEN, 1), detail(OTHER_TOKEN, 2)], "spender": CAROL, "sigDeadline": 1}
        )
    )
    assert batch.transfers == (Transfer(TOKEN_LOWER, 1, CAROL), Transfer(OTHER_TOKEN, 2, CAROL))
    one = {"permitted": {"token": TOKEN, "amount": 9}, "spender": DEX, "nonce": 1, "deadline": 1}
    assert typed(permit2("PermitTransferFrom", one)).transfers == (Transfer(TOKEN_LOWER, 9, DEX),)
    many = {"permitted": [{"token": TOKEN, "amount": 3}] * 2, "spender": DEX, "nonce": 1, "deadline": 1}
    assert typed(permit2("PermitBatchTransferFrom", many)).transfers == (Transfer(TOKEN_LOWER, 3, DEX),) * 2


def test_a_near_miss_is_no_permit_but_an_unused_type_changes_nothing():
    renamed = eip2612(5)
    renamed["types"]["Permit"][2] = {"name": "amount", "type": "uint256"}
    renamed["message"]["amount"] = renamed["message"].pop("value")
    reordered = eip2612(5)
    fields = reordered["types"]["Permit"]
    fields[0], fields[1] = fields[1], fields[0]
    narrower = eip2612(5)
    narrower["types"]["Permit"][2] = {"name": "value", "type": "uint128"}
    longer = eip2612(5)
    longer["types"]["Permit"].append({"name": "memo", "type": "string"})
    longer["message"]["memo"] = ""
    other_name = eip2612(5)
    other_name["types"]["Permit2612"] = other_name["types"].pop("Permit")
    other_name["primaryType"] = "Permit2612"
    for document in (renamed, reordered, narrower, longer, other_name):
        facts = typed(document)
        assert (facts.permit, facts.transfers) == (None, ()), document["types"]
    unused = eip2612(5)
    unused["types"]["Mail"] = _fields("string contents")
    assert typed(unused) == typed(eip2612(5))


def test_a_permit_counts_against_the_value_rules_before_typed_data():
    listed = {"typedData": [{"primaryType": "Permit"}, {"primaryType": "PermitSingle"}]}
    document = doc(
        transactions={"maxValue": {TOKEN: "50"}, "maxValuePer24h": {TOKEN: "100"}, "destinations": {"deny": [CAROL]}},
        messages=listed,
    )
    allowed(decide(document, typed(eip2612(50))), "messages.typedData")
    over = decide(document, typed(eip2612(51)))
    refused(over, f"transactions.maxValue.{TOKEN_LOWER}")
    assert over.reason.startswith("This EIP-2612 permit grants 51 base units")
    refused(
        decide(document, typed(eip2612(40)), Usage(spent={TOKEN_LOWER: 61})),
        f"transactions.maxValuePer24h.{TOKEN_LOWER}",
    )
    refused(decide(document, typed(eip2612(2**256 - 1))), f"transactions.maxValue.{TOKEN_LOWER}")
    refused(decide(document, typed(eip2612(1, CAROL))), "transactions.destinations.deny")
    single = permit2("PermitSingle", {"details": detail(TOKEN, 51), "spender": BOB, "sigDeadline": 1})
    refused(decide(document, typed(single)), f"transactions.maxValue.{TOKEN_LOWER}")
    # The count is of transactions: a permit is not one.
    counted = doc(transactions={"maxCountPer24h": 0}, messages=listed)
    allowed(decide(counted, typed(eip2612(1)), Usage(count=5)), "messages.typedData")
    # The allow list: the spender must be on it.
    allow = doc(transactions={"destinations": {"allow": [ALICE]}})
    refused(decide(allow, typed(eip2612(1))), "transactions.destinations.allow")
    allowed(decide(allow, typed(eip2612(1, ALICE))), "default")
    # networks first; then what decides typed data decides a permit within the limits.
    refused(decide(doc(networks=["far"], transactions={"maxValue": {TOKEN: "1"}}), typed(eip2612(2))), "networks")
    refused(decide(doc(default="deny", transactions={"maxValue": {TOKEN: "9"}}), typed(eip2612(2))), "default")
    refused(decide(doc(transactions={}, messages={"typedData": []}), typed(eip2612(2))), "messages.typedData")
    # A near miss is decided as any typed data.
    reordered = eip2612(10**30)
    reordered["types"]["Permit"].reverse()
    allowed(decide(document, typed(reordered)), "messages.typedData")


# Typed data that is no permit.

USDC = "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48"
ENTRY_POINT = "0x4337084d9e255ff0702461cf8895ce9e3b5ff108"


def _document(
    primary: str, types: dict[str, list[dict[str, str]]], domain: dict[str, Any], message: dict[str, Any]
) -> dict[str, Any]:
    domain_types = {"name": "string", "version": "string", "chainId": "uint256", "verifyingContract": "address"}
    return {
        "types": {"EIP712Domain": [{"name": k, "type": domain_types[k]} for k in domain], **types},
        "primaryType": primary,
        "domain": domain,
        "message": message,
    }


def _flat(primary: str, domain: dict[str, Any], *fields: tuple[str, Any]) -> dict[str, Any]:
    """A document of one struct, from its ("type name", value) fields."""
    types = {primary: _fields(*(declaration for declaration, _ in fields))}
    message = {declaration.split()[1]: value for declaration, value in fields}
    return _document(primary, types, domain, message)


def transfer_with_authorization(value: int, to: str = BOB) -> dict[str, Any]:
    """USDC's EIP-3009 transfer: whoever holds the signature moves `value` to `to`."""
    return _flat(
        "TransferWithAuthorization",
        {"name": "USD Coin", "version": "2", "chainId": CHAIN, "verifyingContract": USDC},
        ("address from", ALICE),
        ("address to", to),
        ("uint256 value", value),
        ("uint256 validAfter", 0),
        ("uint256 validBefore", 2**40),
        ("bytes32 nonce", "0x" + "11" * 32),
    )


def witness_transfer(amount: int) -> dict[str, Any]:
    """Permit2's PermitWitnessTransferFrom (a UniswapX order's): a transfer the permits do not read."""
    types = {
        "PermitWitnessTransferFrom": _fields(
            "TokenPermissions permitted", "address spender", "uint256 nonce", "uint256 deadline", "Order witness"
        ),
        "TokenPermissions": _fields("address token", "uint256 amount"),
        "Order": _fields("address recipient"),
    }
    message = {
        "permitted": {"token": USDC, "amount": amount},
        "spender": BOB,
        "nonce": 1,
        "deadline": 2**40,
        "witness": {"recipient": BOB},
    }
    domain = {"name": "Permit2", "chainId": CHAIN, "verifyingContract": PERMIT2}
    return _document("PermitWitnessTransferFrom", types, domain, message)


def packed_user_operation() -> dict[str, Any]:
    """An ERC-4337 v0.8 user operation, signed as typed data: its call data may move anything."""
    return _flat(
        "PackedUserOperation",
        {"name": "ERC4337", "version": "1", "chainId": CHAIN, "verifyingContract": ENTRY_POINT},
        ("address sender", ALICE),
        ("uint256 nonce", 0),
        ("bytes initCode", "0x"),
        ("bytes callData", "0x" + erc20(BOB, 10**30).hex()),
        ("bytes32 accountGasLimits", "0x" + "00" * 32),
        ("uint256 preVerificationGas", 1),
        ("bytes32 gasFees", "0x" + "00" * 32),
        ("bytes paymasterAndData", "0x"),
    )


def safe_tx() -> dict[str, Any]:
    """A Safe transaction of a Safe the wallet owns."""
    return _flat(
        "SafeTx",
        {"chainId": CHAIN, "verifyingContract": DEX},
        ("address to", USDC),
        ("uint256 value", 0),
        ("bytes data", "0x" + erc20(BOB, 10**30).hex()),
        ("uint8 operation", 0),
        ("uint256 safeTxGas", 0),
        ("uint256 baseGas", 0),
        ("uint256 gasPrice", 0),
        ("address gasToken", ZERO),
        ("address refundReceiver", ZERO),
        ("uint256 nonce", 0),
    )


def opaque_typed_data() -> dict[str, TypedDataFacts]:
    return {
        "TransferWithAuthorization": typed(transfer_with_authorization(10**30)),
        "PermitWitnessTransferFrom": typed(witness_transfer(10**30)),
        "Permit": typed(eip2612(10**30, token=None)),  # no token: no permit the rules read
        "PackedUserOperation": typed(packed_user_operation()),
        "SafeTx": typed(safe_tx()),
    }


def test_typed_data_that_is_no_permit_is_refused_under_a_daily_cap_or_an_allow_list():
    """What the cosigner cannot read may move anything: under `maxValuePer24h` naming an asset or an allow list,
    only a `messages.typedData` entry that matches it allows it, never the default (allow or deny)."""
    guards = (
        {"maxValuePer24h": {USDC: "100"}},
        {"destinations": {"allow": [ALICE]}},
        {"maxValuePer24h": {USDC: "100"}, "destinations": {"allow": [ALICE, BOB]}},
    )
    for primary, facts in opaque_typed_data().items():
        assert facts.permit is None, primary
        for guard in guards:
            for default in ("allow", "deny"):
                decision = decide(doc(default=default, transactions=guard), facts)
                refused(decision, "messages.typedData")
                assert "not a permit" in decision.reason
            other = {"typedData": [{"primaryType": "Mail"}, {"chainId": 1}]}
            refused(decide(doc(transactions=guard, messages=other), facts), "messages.typedData")
            named = {"typedData": [{"primaryType": "Mail"}, {"primaryType": primary, "chainId": CHAIN}]}
            allowed(decide(doc(default="deny", transactions=guard, messages=named), facts), "messages.typedData")
            allowed(decide(doc(transactions=guard, messages={"typedData": [{}]}), facts), "messages.typedData")
            # networks first.
            refused(decide(doc(networks=["far"], transactions=guard, messages=named), facts), "networks")
        # Without either guard, as before: the entries, else the default.
        for rules in (None, {}, {"maxValue": {USDC: "1"}, "maxValuePer24h": {}, "destinations": {"deny": [CAROL]}}):
            allowed(decide(doc(transactions=rules), facts), "default")
            refused(decide(doc(default="deny", transactions=rules), facts), "default")
            refused(decide(doc(transactions=rules, messages={"typedData": []}), facts), "messages.typedData")


def test_a_permit_under_a_daily_cap_is_still_decided_by_its_grants_then_the_default():
    """The guard is for what cannot be read: a permit within the limits goes on to the entries and the default."""
    rules = {"maxValuePer24h": {TOKEN: "100"}, "destinations": {"allow": [BOB]}}
    allowed(decide(doc(transactions=rules), typed(eip2612(100))), "default")
    refused(decide(doc(transactions=rules), typed(eip2612(101))), f"transactions.maxValuePer24h.{TOKEN_LOWER}")
    refused(decide(doc(default="deny", transactions=rules), typed(eip2612(1))), "default")
    listed = {"typedData": [{"primaryType": "Permit"}]}
    allowed(decide(doc(default="deny", transactions=rules, messages=listed), typed(eip2612(1))), "messages.typedData")


# 32-byte messages.


def test_a_32_byte_message_needs_raw_hashes_under_a_daily_cap_or_an_allow_list():
    raw = PersonalMessageFacts(32)
    for guard in ({"maxValuePer24h": {"native": "1"}}, {"destinations": {"allow": []}}):
        refused(decide(doc(transactions=guard, messages={"personal": True}), raw), "messages.rawHashes")
        allowed(decide(doc(transactions=guard, messages={"rawHashes": True}), raw), "messages.rawHashes")
        # Any other length is a message as before.
        for size in (0, 31, 33):
            allowed(
                decide(doc(transactions=guard, messages={"personal": True}), PersonalMessageFacts(size)),
                "messages.personal",
            )
    # rawHashes decides 32-byte messages whatever `personal` says.
    allowed(decide(doc(messages={"personal": False, "rawHashes": True}), raw), "messages.rawHashes")
    refused(decide(doc(messages={"personal": True, "rawHashes": False}), raw), "messages.rawHashes")
    refused(decide(doc(messages={"personal": False, "rawHashes": True}), PersonalMessageFacts(31)), "messages.personal")
    # Absent, with neither guard: personal, then the default.
    for rules in (None, {"maxValue": {"native": "1"}, "maxValuePer24h": {}, "destinations": {"deny": [BOB]}}):
        allowed(decide(doc(transactions=rules, messages={"personal": True}), raw), "messages.personal")
        refused(decide(doc(transactions=rules, default="deny"), raw), "default")
    facts = facts_of(digests.personal_message(bytes(32)))
    refused(decide(doc(transactions={"maxValuePer24h": {TOKEN: "5"}}), facts), "messages.rawHashes")


def test_raw_hashes_is_a_boolean():
    with pytest.raises(PolicyDocumentError) as caught:
        doc(messages={"rawHashes": "true"})
    assert caught.value.field == "messages.rawHashes"
    assert doc(messages={"rawHashes": None}).messages.rawHashes is None  # type: ignore[union-attr]


# The examples of docs/policies.md, as written there.


def _docs_example(title: str) -> PolicyDocument:
    text = (Path(__file__).resolve().parents[2] / "docs" / "policies.md").read_text()
    section = text.split(f"### {title}\n", 1)[1]
    block = section.split("```json\n", 1)[1].split("```", 1)[0]
    return PolicyDocument.parse(json.loads(block), networks=["mainnet"])


MAINNET = {"mainnet": 1}
USDT = "0xdac17f958d2ee523a2206206994597c13d831ec7"


def _example(document: PolicyDocument, facts: Any, usage: Usage | None = None) -> tuple[bool, str]:
    decision = evaluate(document, facts, usage or Usage(), MAINNET)
    return decision.allowed, decision.rule


def test_the_allowlist_only_treasury_example():
    treasury = _docs_example("An allowlist-only treasury")
    listed, other = "0x" + "11" * 20, CAROL

    def on_mainnet(to: str, data: bytes = b"", value: int = 0) -> TransactionFacts:
        return tx(to=to, value=value, data=data, chain_id=1)

    rule = "transactions.destinations.allow"
    assert _example(treasury, on_mainnet(listed, value=1)) == (True, rule)
    assert _example(treasury, on_mainnet(TOKEN, erc20(listed, 5))) == (True, rule)
    assert _example(treasury, on_mainnet(other, value=1)) == (False, rule)
    assert _example(treasury, on_mainnet(TOKEN, approve(listed, 10**30))) == (True, rule)
    assert _example(treasury, on_mainnet(TOKEN, increase(listed, 1))) == (True, rule)
    assert _example(treasury, on_mainnet(TOKEN, approve(other, 1))) == (False, rule)
    assert _example(treasury, on_mainnet(TOKEN, approve(other, 0))) == (False, rule)
    assert _example(treasury, on_mainnet(TOKEN, operator(other, True))) == (False, rule)
    assert _example(treasury, on_mainnet(TOKEN, decrease(other, 1))) == (False, "default")
    assert _example(treasury, on_mainnet(DEX, UNKNOWN_CALL)) == (False, rule)
    assert _example(treasury, PersonalMessageFacts(5)) == (False, "messages.personal")
    assert _example(treasury, PersonalMessageFacts(32)) == (False, "messages.rawHashes")
    assert _example(treasury, typed(eip2612(1, chain_id=1))) == (False, rule)
    assert _example(treasury, typed(eip2612(1, listed, chain_id=1))) == (False, "default")
    to_listed = transfer_with_authorization(1, listed)
    to_listed["domain"]["chainId"] = 1
    assert _example(treasury, typed(to_listed)) == (False, "messages.typedData")


def test_the_per_user_daily_cap_example():
    cap = _docs_example("A per-user daily cap")

    def usdt(data: bytes) -> TransactionFacts:
        return tx(to=USDT, data=data, chain_id=1)

    rule = f"transactions.maxValuePer24h.{USDT}"
    assert _example(cap, usdt(approve(BOB, 150_000_000)))[0] is True
    spent = Usage(spent={USDT: 150_000_000})
    assert _example(cap, usdt(erc20(BOB, 50_000_000)), spent)[0] is True
    assert _example(cap, usdt(erc20(BOB, 50_000_001)), spent) == (False, rule)
    assert _example(cap, usdt(approve(BOB, 50_000_001)), spent) == (False, rule)
    assert _example(cap, usdt(increase(BOB, 50_000_001)), spent) == (False, rule)
    assert _example(cap, usdt(approve(BOB, 2**256 - 1))) == (False, rule)
    full = Usage(spent={USDT: 200_000_000}, count=3)
    assert _example(cap, usdt(approve(BOB, 0)), full)[0] is True
    assert _example(cap, usdt(decrease(BOB, 5)), full)[0] is True
    assert _example(cap, usdt(decrease(BOB, 5)), Usage(count=20)) == (False, "transactions.maxCountPer24h")
    single = permit2("PermitSingle", {"details": detail(USDT, 50_000_001), "spender": BOB, "sigDeadline": 1}, 1)
    assert _example(cap, typed(single), spent) == (False, rule)
    assert _example(cap, usdt(UNKNOWN_CALL)) == (False, rule)
    assert _example(cap, permit2_approve(USDT, BOB, 50_000_001, chain_id=1), spent) == (False, rule)
    assert _example(cap, permit2_approve(USDT, BOB, 50_000_000, chain_id=1), spent)[0] is True
    authorization = transfer_with_authorization(1)
    authorization["domain"]["chainId"] = 1
    assert _example(cap, typed(authorization)) == (False, "messages.typedData")
    assert _example(cap, PersonalMessageFacts(5)) == (True, "default")
    assert _example(cap, PersonalMessageFacts(32)) == (False, "messages.rawHashes")


def test_the_permit_only_typed_data_example():
    permits = _docs_example("Permit-only typed data")
    assert _example(permits, typed(eip2612(10**30, token=USDC, chain_id=1))) == (True, "messages.typedData")
    assert _example(permits, typed(eip2612(1, token=TOKEN, chain_id=1))) == (False, "messages.typedData")
    assert _example(permits, typed(eip2612(1, token=USDC, chain_id=10))) == (False, "messages.typedData")
    assert _example(permits, PersonalMessageFacts(5)) == (False, "messages.personal")
    assert _example(permits, PersonalMessageFacts(32)) == (False, "messages.personal")
    # With the cap the example adds: a listed permit over it, or unlimited, is refused.
    capped = PolicyDocument.parse(
        {**permits.model_dump(exclude_none=True), "transactions": {"maxValuePer24h": {USDC: "1000000000"}}}
    )
    rule = f"transactions.maxValuePer24h.{USDC}"
    assert _example(capped, typed(eip2612(1_000_000_000, token=USDC, chain_id=1))) == (True, "messages.typedData")
    assert _example(capped, typed(eip2612(1_000_000_001, token=USDC, chain_id=1))) == (False, rule)
    assert _example(capped, typed(eip2612(2**256 - 1, token=USDC, chain_id=1))) == (False, rule)
    spent = Usage(spent={USDC: 999_999_999})
    assert _example(capped, typed(eip2612(2, token=USDC, chain_id=1)), spent) == (False, rule)


# --- EIP-7702 authorizations ---------------------------------------------------------------------------------------

DELEGATE = "0x" + "d7" * 20


def auth(delegate: str = DELEGATE, chain_id: int = CHAIN, nonce: int = 0) -> Any:
    return facts_of(digests.authorization(chain_id, delegate, nonce))


def test_an_authorizations_facts_are_its_tuple_with_the_delegate_in_lower_case() -> None:
    checksummed = "0x5FbDB2315678afecb367f032d93F642f64180aa3"
    facts = facts_of(digests.authorization(0, checksummed, 9))
    assert (facts.chain_id, facts.delegate, facts.nonce) == (0, checksummed.lower(), 9)
    with pytest.raises(FactsError):
        facts_of(digests.Signable(kind="authorization", authorization={"chainId": 1, "address": DELEGATE}))


def test_the_delegates_list_decides_alone() -> None:
    listed = doc(default="deny", authorizations={"delegates": [DELEGATE.upper().replace("0X", "0x")]})
    allowed(decide(listed, auth()), "authorizations.delegates")
    refused(decide(listed, auth(delegate=CAROL)), "authorizations.delegates")
    permissive = doc(default="allow", authorizations={"delegates": []})
    refused(decide(permissive, auth()), "authorizations.delegates")


def test_without_authorizations_the_default_decides_except_for_any_chain() -> None:
    allowed(decide(doc(default="allow"), auth()), "default")
    refused(decide(doc(default="deny"), auth()), "default")
    refused(decide(doc(default="allow"), auth(chain_id=0)), "default")  # even under allow
    refused(decide(doc(default="allow", authorizations={}), auth(chain_id=0)), "authorizations.anyChain")


def test_any_chain_needs_any_chain_and_then_the_delegates() -> None:
    rules = {"anyChain": True, "delegates": [DELEGATE]}
    allowed(decide(doc(default="deny", authorizations=rules), auth(chain_id=0)), "authorizations.delegates")
    refused(decide(doc(authorizations=rules), auth(chain_id=0, delegate=CAROL)), "authorizations.delegates")
    allowed(decide(doc(default="allow", authorizations={"anyChain": True}), auth(chain_id=0)), "default")
    # `networks` bounds a specific chain, not an authorization for every chain that anyChain allows.
    allowed(decide(doc(networks=["far"], authorizations={"anyChain": True}), auth(chain_id=0)), "default")


def test_networks_bound_the_chain_of_an_authorization() -> None:
    refused(decide(doc(networks=["local-b"]), auth()), "networks")
    allowed(decide(doc(networks=["local-a"]), auth()), "default")


def test_revoking_is_always_allowed() -> None:
    strict = doc(default="deny", networks=["far"], authorizations={"delegates": [DELEGATE], "anyChain": False})
    for chain_id in (0, CHAIN):
        allowed(decide(strict, auth(delegate=ZERO, chain_id=chain_id)), "authorizations.revoke")


def test_under_a_daily_cap_or_an_allow_list_only_a_listed_delegate_is_allowed() -> None:
    capped = doc(default="allow", transactions={"maxValuePer24h": {"native": "1"}})
    refused(decide(capped, auth()), "authorizations.delegates")
    fenced = doc(default="allow", transactions={"destinations": {"allow": [ALICE]}})
    refused(decide(fenced, auth()), "authorizations.delegates")
    listed = doc(transactions={"maxValuePer24h": {"native": "1"}}, authorizations={"delegates": [DELEGATE]})
    allowed(decide(listed, auth()), "authorizations.delegates")
    # A per-transaction cap alone bounds each transaction the wallet signs, not what its code may do: the default.
    allowed(decide(doc(transactions={"maxValue": {"native": "1"}}), auth()), "default")


def test_the_authorizations_rule_is_validated_strictly() -> None:
    for bad, field in (
        ({"delegates": ["0x1234"]}, "authorizations.delegates.0"),
        ({"anyChain": "true"}, "authorizations.anyChain"),
        ({"delegates": DELEGATE}, "authorizations.delegates"),
        ({"other": 1}, "authorizations.other"),
    ):
        with pytest.raises(PolicyDocumentError) as refusal:
            doc(authorizations=bad)
        assert refusal.value.field == field, bad
