"""The policy-signing snippets of docs/examples, run as an integrator runs them: the Python one (PyNaCl + rfc8785)
and the Node one (node:crypto + canonicalize) sign the same RFC 8785 bytes, and what they print verifies with the
service's own check (chalicelib.policies.signed) for the app it was signed for, and for no other."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from nacl.signing import SigningKey

from chalicelib.policies import signed
from chalicelib.policies.document import PolicyDocument
from tests.support.scripts import ROOT

EXAMPLES = ROOT / "docs" / "examples"
SNIPPETS = {
    "python": [sys.executable, str(EXAMPLES / "sign_policy.py")],
    "node": ["node", str(EXAMPLES / "sign-policy.mjs")],
}
TOKEN = "0x5FbDB2315678afecb367f032d93F642f64180aa3"
APP_ID = "3f1c2a9e-0000-4000-8000-00000000c0de"
OTHER_APP_ID = "3f1c2a9e-0000-4000-8000-0000000051a9"

# A policy the service accepts, with what canonicalization can get wrong: keys out of order at every depth, numbers,
# non-ASCII strings (one outside the BMP, whose UTF-16 surrogates sort before U+FB01 although its code point is
# higher), and an address in mixed case (signed as written).
POLICY: dict[str, Any] = {
    "version": 7,
    "default": "deny",
    "networks": ["local-b", "local-a"],
    "transactions": {
        "raw": False,
        "maxValue": {TOKEN: "500000000", "native": "1000000000000000000"},
        "maxCountPer24h": 100,
        "contracts": [{"selectors": ["0xa9059cbb", "0x095ea7b3"], "address": TOKEN}],
    },
    "messages": {
        "typedData": [
            {"primaryType": "Permit", "verifyingContract": TOKEN, "chainId": 31337},
            {"primaryType": "Überweisung 😀"},
            {"primaryType": "ﬁnal"},
        ],
        "personal": True,
    },
}
# Any JSON the snippets may be given: JCS's number forms and escapes, where implementations differ most.
ODD: dict[str, Any] = {
    "numbers": [0, -0.0, 1.5, 0.1, 1e21, 1e-7, 123456789012345, -42, 5e-324],
    "strings": ['\u0000\u001f"\\/', "\u2028\u2029", "é", "😀", "\u007f"],
    "nested": {"😀": {"b": [], "a": {}}, "ﬁ": None, "\u00e9": True, "e": False, "": "empty key"},
}


def run(snippet: str, *args: str) -> tuple[str, str]:
    done = subprocess.run(
        [*SNIPPETS[snippet], *args], capture_output=True, text=True, encoding="utf-8", timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout, done.stderr


def printed_public_key(stderr: str) -> bytes:
    [line] = [line for line in stderr.splitlines() if line.startswith("public key: ")]
    return signed.parse_public_key(line.removeprefix("public key: "))


@pytest.fixture
def key_file(tmp_path: Path) -> tuple[Path, bytes]:
    """A key made by the Python snippet's new-key: (the seed file, its public key)."""
    seed, _ = run("python", "new-key")
    path = tmp_path / "policy-key.b64"
    path.write_text(seed)
    return path, bytes(SigningKey(base64.b64decode(seed)).verify_key)


@pytest.mark.parametrize("document", [POLICY, ODD], ids=["policy", "odd-json"])
def test_both_snippets_sign_the_same_canonical_bytes_and_the_service_verifies_them(tmp_path, key_file, document):
    path, public_key = key_file
    policy_file = tmp_path / "policy.json"
    policy_file.write_text(json.dumps(document, indent=2, ensure_ascii=False), encoding="utf-8")
    signatures = {}
    for snippet in SNIPPETS:
        stdout, stderr = run(snippet, "sign", APP_ID, str(policy_file), str(path))
        assert printed_public_key(stderr) == public_key
        body = json.loads(stdout)  # the body of PUT /api/v1/policies, as the service parses it
        assert set(body) == {"policy", "signature"} and body["policy"] == document
        signature = base64.b64decode(body["signature"], validate=True)
        assert signed.verify(public_key, signed.policy_message(APP_ID, document), signature), snippet
        assert signed.verify(public_key, signed.policy_message(APP_ID, body["policy"]), signature), snippet
        signatures[snippet] = signature
    # Ed25519 is deterministic: one key, one signature per message, so equal signatures mean equal canonical bytes.
    assert signatures["python"] == signatures["node"]
    changed = {**document, "version": 8}
    assert not signed.verify(public_key, signed.policy_message(APP_ID, changed), signatures["python"])
    # Bound to its app: the same document on another app (one key registered for both) does not verify.
    assert not signed.verify(public_key, signed.policy_message(OTHER_APP_ID, document), signatures["python"])
    assert not signed.verify(public_key, signed.canonical(document), signatures["python"])


def test_the_signed_example_policy_is_one_the_service_accepts():
    parsed = PolicyDocument.parse(POLICY, networks=["local-a", "local-b"])
    assert parsed.version == 7 and parsed.default == "deny"


def test_both_snippets_sign_the_same_key_rotation(key_file):
    path, public_key = key_file
    new_public = base64.b64encode(bytes(SigningKey.generate().verify_key)).decode()
    app_id = APP_ID
    signatures = set()
    for snippet in SNIPPETS:
        stdout, stderr = run(snippet, "rotate", app_id, new_public, "2", str(path))
        assert printed_public_key(stderr) == public_key
        body = json.loads(stdout)  # the body of PUT /api/v1/policies/key
        assert body["publicKey"] == new_public
        signature = base64.b64decode(body["signature"], validate=True)
        assert signed.verify(public_key, signed.rotation_message(app_id, new_public, 2), signature), snippet
        assert not signed.verify(public_key, signed.rotation_message(app_id, new_public, 3), signature)
        signatures.add(signature)
    assert len(signatures) == 1


def test_a_key_made_by_the_node_snippet_signs_with_the_python_one(tmp_path):
    seed, _ = run("node", "new-key")
    assert len(base64.b64decode(seed.strip(), validate=True)) == 32
    path = tmp_path / "policy-key.b64"
    path.write_text(seed)
    policy_file = tmp_path / "policy.json"
    policy_file.write_text(json.dumps({"version": 1}))
    public_keys = {
        printed_public_key(run(snippet, "sign", APP_ID, str(policy_file), str(path))[1]) for snippet in SNIPPETS
    }
    assert public_keys == {bytes(SigningKey(base64.b64decode(seed)).verify_key)}
