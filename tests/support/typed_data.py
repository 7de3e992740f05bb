"""EIP-712 references independent of the service, for tests: ethers v6 and viem through
tests/support/typed_data_hashes.mjs (one Node process per call, so pass many documents at once), and eth-account
called directly on the document; the corpora of valid and malformed typed data."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from eth_account.messages import _hash_eip191_message, encode_typed_data

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tests" / "support" / "typed_data_hashes.mjs"
CORPUS = ROOT / "tests" / "support" / "typed_data_corpus.json"
MALFORMED = ROOT / "tests" / "support" / "typed_data_malformed.json"


def corpus() -> list[dict[str, Any]]:
    """[{"name", "document"}]: documents every implementation accepts and hashes the same."""
    return json.loads(CORPUS.read_text(encoding="utf-8"))


def malformed() -> list[dict[str, Any]]:
    """[{"name", "document", "code", "field", "ethers", "viem"}]: documents the service refuses with `code` naming
    `field`; "ethers"/"viem" say whether that library refuses it too ("refuses") or hashes it ("hashes")."""
    return json.loads(MALFORMED.read_text(encoding="utf-8"))


def _node(request: dict[str, Any]) -> list[dict[str, Any]]:
    done = subprocess.run(
        ["node", str(SCRIPT)],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: list[dict[str, Any]] = json.loads(done.stdout)
    return result


def node_hashes(documents: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per document {"ethers": {"digest", "domainSeparator"} | {"error"}, "viem": the same}."""
    return _node({"action": "hash", "documents": documents})


def node_verify(items: list[tuple[dict[str, Any], str, str]]) -> list[dict[str, Any]]:
    """Per (document, signature 0x r‖s‖v, address): {"ethers": {"valid", "recovered"} | {"error"},
    "viem": {"valid"} | {"error"}}."""
    return _node(
        {
            "action": "verify",
            "items": [{"document": d, "signature": s, "address": a} for d, s, a in items],
        }
    )


def eth_account_hashes(document: dict[str, Any]) -> tuple[str, str]:
    """(digest, domain separator) as 0x-hex from eth-account's encode_typed_data on the document as given, but
    for its types: like ethers, eth-account derives the primary type (the one no other type uses) and checks it
    against primaryType, so it gets EIP712Domain (if declared) and the struct types primaryType reaches."""
    types = document["types"]
    reached = {}
    pending = [document["primaryType"]]
    while pending:
        name = pending.pop()
        if name in types and name not in reached and name != "EIP712Domain":
            reached[name] = types[name]
            pending.extend(field["type"].split("[")[0] for field in types[name])
    if "EIP712Domain" in types:
        reached["EIP712Domain"] = types["EIP712Domain"]
    signable = encode_typed_data(full_message={**document, "types": reached})
    return "0x" + _hash_eip191_message(signable).hex(), "0x" + signable.header.hex()
