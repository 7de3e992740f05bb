"""The signing-policy engine: the document's validation, the facts read from a payload, and every rule's decision
(allowed and refused, with the deciding rule's path). Pure: no AWS, no chain."""

from __future__ import annotations

import json
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


STANDARD_CALLS = [
    # (signature, arguments, expected transfer as (amount, recipient) or None)
    ("transfer(address,uint256)", [BOB, 7], (7, BOB)),
    ("transferFrom(address,address,uint256)", [ALICE, BOB, 8], (8, BOB)),
    ("safeTransferFrom(address,address,uint256)", [ALICE, BOB, 12345], (1, BOB)),
    ("safeTransferFrom(address,address,uint256,bytes)", [ALICE, BOB, 12345, b"hi"], (1, BOB)),
    ("safeTransferFrom(address,address,uint256,uint256,bytes)", [ALICE, BOB, 3, 40, b""], (40, BOB)),
    ("safeBatchTransferFrom(address,address,uint256[],uint256[],bytes)", [ALICE, BOB, [1, 2], [5, 6], b"x"], (11, BOB)),
    ("approve(address,uint256)", [BOB, 2**256 - 1], None),
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
    ]


@pytest.mark.parametrize(("signature", "arguments", "expected"), STANDARD_CALLS, ids=[c[0] for c in STANDARD_CALLS])
def test_each_standard_call_is_decoded(signature: str, arguments: list[Any], expected: tuple[int, str] | None):
    facts = tx(to=TOKEN, data=abi.encode_call(signature, *arguments))
    assert (facts.to, facts.selector, facts.has_data, facts.decoded) == (TOKEN_LOWER, _selector(signature), True, True)
    assert facts.transfers == (() if expected is None else (Transfer(TOKEN_LOWER, *expected),))


@pytest.mark.parametrize(("signature", "arguments", "expected"), STANDARD_CALLS, ids=[c[0] for c in STANDARD_CALLS])
def test_a_malformed_standard_call_is_not_decoded(signature: str, arguments: list[Any], expected: Any):
    good = abi.encode_call(signature, *arguments)
    dirty_address = good[:4] + b"\x01" + good[5:]  # a non-zero byte in the first address's padding
    for data in (good[:-1], good[:4], good[:20], dirty_address):
        facts = tx(to=TOKEN, data=data)
        assert (facts.selector, facts.decoded, facts.transfers) == (_selector(signature), False, ()), data.hex()


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
    assert facts_of(digests.personal_message(b"hello")) == PersonalMessageFacts()
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
    # approve moves nothing: no recipient to refuse.
    allowed(decide(document, tx(to=TOKEN, data=abi.encode_call("approve(address,uint256)", BOB, 1))), "default")


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
    allowed(decide(document, PersonalMessageFacts(), Usage(count=3)), "default")


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
    # approve moves nothing: no recipient matched the allow list, so the default decides.
    refused(decide(allow_list, tx(to=TOKEN, data=abi.encode_call("approve(address,uint256)", ALICE, 1))), "default")

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
    message = PersonalMessageFacts()
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
