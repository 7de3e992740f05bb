"""Malformed typed data is refused before any hashing, with INVALID_TYPED_DATA (or TYPED_DATA_TOO_LARGE) naming
the field. tests/support/typed_data_malformed.json records, per document, whether ethers, viem and eth-account
refuse it too, and whether those that hash it agree: every refusal where they do not all refuse is a document the
libraries would read differently or guess at, which is why the service refuses it."""

from __future__ import annotations

import json
from typing import Any

import pytest
from eth_abi.exceptions import EncodingError
from eth_utils.exceptions import ValidationError

from chalicelib.evm import typed_data
from chalicelib.evm.typed_data import MAX_TYPED_DATA_BYTES, TypedDataError
from tests.support.typed_data import eth_account_hashes, malformed, node_hashes

MALFORMED = malformed()
NAMES = [entry["name"] for entry in MALFORMED]
ENTRIES = {entry["name"]: entry for entry in MALFORMED}


@pytest.fixture(scope="session")
def library_results() -> dict[str, dict[str, Any]]:
    return dict(zip(NAMES, node_hashes([e["document"] for e in MALFORMED]), strict=True))


def _eth_account(document: Any) -> str | None:
    try:
        return eth_account_hashes(document)[0]
    except (ValueError, TypeError, LookupError, AttributeError, EncodingError, ValidationError):
        return None


@pytest.mark.parametrize("name", NAMES)
def test_refused_with_a_stable_code_naming_the_field(name: str) -> None:
    entry = ENTRIES[name]
    with pytest.raises(TypedDataError) as raised:
        typed_data.hashes(entry["document"])
    assert (raised.value.code, raised.value.field) == (entry["code"], entry["field"])
    assert raised.value.message and isinstance(raised.value, ValueError)
    with pytest.raises(TypedDataError):
        typed_data.domain_fields(entry["document"])


@pytest.mark.parametrize("name", NAMES)
def test_what_the_other_implementations_make_of_it(name: str, library_results: dict[str, dict[str, Any]]) -> None:
    entry, result = ENTRIES[name], library_results[name]
    theirs = {"ethers": result["ethers"].get("digest"), "viem": result["viem"].get("digest")}
    theirs["eth_account"] = _eth_account(entry["document"])
    for library, digest in theirs.items():
        assert ("hashes" if digest else "refuses") == entry[library], library
    digests = {d for d in theirs.values() if d}
    hashed = sum(1 for d in theirs.values() if d)
    assert ("differ" if len(digests) > 1 else "agree" if hashed > 1 else "n/a") == entry["digests"]


def test_the_corpus_of_malformed_documents_covers_each_kind() -> None:
    fields = {entry["field"] for entry in MALFORMED}
    for field in (
        "typedData.types.Mail.0.type",  # unknown type
        "typedData.message.contents",  # a missing field
        "typedData.message.cc",  # an extra one
        "typedData.types.Node.1.type",  # a cycle
        "typedData.primaryType",  # absent from types
        "typedData.domain.foo",
        "typedData.types.EIP712Domain",
    ):
        assert field in fields, field
    # Every library refuses some document that another one hashes: the rules are not any one library's.
    for library in ("ethers", "viem", "eth_account"):
        assert any(e[library] == "hashes" for e in MALFORMED), library


def _padded(size: int) -> dict[str, Any]:
    """A valid document whose canonical JSON is exactly `size` bytes (multi-byte characters included)."""
    document: dict[str, Any] = {
        "types": {"Note": [{"name": "text", "type": "string"}]},
        "primaryType": "Note",
        "domain": {"name": "Notes"},
        "message": {"text": "€"},
    }
    base = len(json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode())
    missing = size - base
    document["message"]["text"] = "€" * (missing // 3 + 1) + "a" * (missing % 3)
    return document


def test_at_most_64_kib_of_canonical_json() -> None:
    typed_data.hashes(_padded(MAX_TYPED_DATA_BYTES))
    with pytest.raises(TypedDataError) as raised:
        typed_data.hashes(_padded(MAX_TYPED_DATA_BYTES + 1))
    assert (raised.value.code, raised.value.field) == ("TYPED_DATA_TOO_LARGE", "typedData")
    # White space does not count: the same document sent pretty-printed is measured the same.
    assert len(json.dumps(_padded(MAX_TYPED_DATA_BYTES), indent=4, ensure_ascii=False).encode()) > MAX_TYPED_DATA_BYTES


def test_a_long_chain_of_types_is_refused_without_exhausting_the_stack() -> None:
    count = 1500  # beyond the interpreter's recursion limit, within 64 KiB
    types = {f"S{i}": [{"name": "n", "type": f"S{i + 1}"}] for i in range(count)}
    types[f"S{count}"] = [{"name": "v", "type": "uint8"}]
    document = {"types": types, "primaryType": "S0", "domain": {}, "message": {}}
    with pytest.raises(TypedDataError) as raised:
        typed_data.hashes(document)
    assert (raised.value.code, raised.value.field) == ("INVALID_TYPED_DATA", "typedData.types.S0")
    types[f"S{count}"] = [{"name": "v", "type": "S0"}]  # and a cycle through all of them
    with pytest.raises(TypedDataError) as raised:
        typed_data.hashes(document)
    assert raised.value.code == "INVALID_TYPED_DATA" and raised.value.field.startswith("typedData.types.S")


def test_a_document_that_is_not_json_is_refused() -> None:
    with pytest.raises(TypedDataError) as raised:
        typed_data.hashes({"types": {}, "primaryType": "T", "domain": {}, "message": {"v": b"\x00"}})
    assert (raised.value.code, raised.value.field) == ("INVALID_TYPED_DATA", "typedData")
