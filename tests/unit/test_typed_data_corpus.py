"""EIP-712 digests proven against independent implementations: over the corpus in
tests/support/typed_data_corpus.json, chalicelib.evm.typed_data gives the digest and domain separator that
eth-account's encode_typed_data, ethers v6 (TypedDataEncoder.hash / hashDomain) and viem (hashTypedData /
hashDomain) give, and a signature over our digest verifies with ethers' and viem's verifyTypedData."""

from __future__ import annotations

import re
from typing import Any

import pytest
from eth_account import Account

from chalicelib.evm import typed_data
from tests.support.typed_data import corpus, eth_account_hashes, node_hashes, node_verify

CORPUS = corpus()
NAMES = [entry["name"] for entry in CORPUS]
DOCUMENTS = {entry["name"]: entry["document"] for entry in CORPUS}
# A throwaway key: the signatures only need to be made by someone the libraries can recover.
KEY = "0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"


@pytest.fixture(scope="session")
def references() -> dict[str, dict[str, Any]]:
    """ethers' and viem's hashes of the whole corpus, from one Node process."""
    return dict(zip(NAMES, node_hashes(list(DOCUMENTS.values())), strict=True))


def _types_used(document: dict[str, Any]) -> set[str]:
    return {field["type"] for fields in document["types"].values() for field in fields}


def test_the_corpus_covers_what_it_must() -> None:
    assert len(CORPUS) >= 40 and len(set(NAMES)) == len(NAMES)
    used = set().union(*(_types_used(d) for d in DOCUMENTS.values()))
    for atomic in (
        "address",
        "bool",
        "string",
        "bytes",
        "bytes1",
        "bytes4",
        "bytes32",
        "uint8",
        "uint256",
        "int8",
        "int256",
    ):
        assert atomic in used, atomic
    assert any(re.fullmatch(r"\w+\[\d+\]", t) for t in used), "a fixed array"
    assert any(re.fullmatch(r"\w+\[\]", t) for t in used), "a dynamic array"
    assert any(t.count("[") > 1 for t in used), "a nested array"
    assert any(t[0].isupper() and t.endswith("[]") for t in used), "an array of structs"
    with_domain_type = [d for d in DOCUMENTS.values() if "EIP712Domain" in d["types"]]
    assert with_domain_type and len(with_domain_type) < len(CORPUS), "EIP712Domain present and absent"
    assert any("salt" in d["domain"] for d in DOCUMENTS.values())
    text = str(DOCUMENTS)
    assert re.search(r"'-\d{70,}'", text), "a negative int256 near its bound"
    assert re.search(r"0x(?=[0-9a-f]*[A-F])(?=[0-9A-F]*[a-f])[0-9a-fA-F]{40}'", text), "a mixed-case address"
    assert any(ord(ch) > 0xFFFF for ch in text), "unicode beyond the BMP"


@pytest.mark.parametrize("name", NAMES)
def test_digest_and_domain_separator_match_eth_account_ethers_and_viem(
    name: str, references: dict[str, dict[str, Any]]
) -> None:
    document = DOCUMENTS[name]
    ours = typed_data.hashes(document)
    digest, separator = "0x" + ours.digest.hex(), "0x" + ours.domain_separator.hex()
    assert eth_account_hashes(document) == (digest, separator)
    assert references[name]["ethers"] == {"digest": digest, "domainSeparator": separator}
    assert references[name]["viem"] == {"digest": digest, "domainSeparator": separator}


def test_the_specification_example() -> None:
    """The Mail example of EIP-712 itself, with the digest the specification's reference code prints."""
    hashes = typed_data.hashes(DOCUMENTS["eip712_spec_mail_with_domain_type"])
    assert hashes.domain_separator.hex() == "f2cee375fa42b42143804025fc449deafd50cc031ca257e0b194a650a912090f"
    assert hashes.digest.hex() == "be609aee343fb3c4b28e1df9e632fca64fcfaede20f02e86244efddf30957bd2"
    # Deriving EIP712Domain from the domain's fields gives the same digest as declaring it.
    assert typed_data.hashes(DOCUMENTS["eip712_spec_mail_without_domain_type"]) == hashes


def test_domain_fields() -> None:
    assert typed_data.domain_fields(DOCUMENTS["eip2612_permit_unlimited_hex"]) == {
        "chainId": 10,
        "verifyingContract": "0x5FbDB2315678afecb367f032d93F642f64180aa3",
        "primaryType": "Permit",
    }
    assert typed_data.domain_fields(DOCUMENTS["domain_salt_only"]) == {
        "chainId": None,
        "verifyingContract": None,
        "primaryType": "Data",
    }


def test_a_signature_over_our_digest_verifies_with_ethers_and_viem() -> None:
    account = Account.from_key(KEY)
    names = ["eip2612_permit", "seaport_order_components", "permit2_transfer_from_witness", "domain_salt_only"]
    items = []
    for name in names:
        signature = account.unsafe_sign_hash(typed_data.hashes(DOCUMENTS[name]).digest).signature
        assert signature[64] in (27, 28)
        items.append((DOCUMENTS[name], "0x" + signature.hex(), account.address))
    # The same signature over a document that differs in one value does not verify.
    permit, signature, address = items[0]
    tampered = {**permit, "message": {**permit["message"], "value": "1000001"}}
    results = node_verify([*items, (tampered, signature, address)])
    for result in results[:-1]:
        assert result["ethers"] == {"valid": True, "recovered": account.address}
        assert result["viem"] == {"valid": True}
    assert results[-1]["ethers"]["valid"] is False and results[-1]["viem"] == {"valid": False}
