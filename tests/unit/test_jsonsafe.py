"""Deeply nested JSON from outside is refused, never parsed: with a raised recursion limit (py_ecc, pulled in by
the Ethereum stack, raises it) the standard parser overflows the C stack and the process dies."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from chalicelib.platform import jsonsafe

ROOT = Path(__file__).resolve().parents[2]


def test_shallow_documents_parse_as_usual():
    text = b'{"a": [1, {"b": "[[[[{{{{"}]}'  # brackets inside strings do not count
    assert jsonsafe.loads(text) == {"a": [1, {"b": "[[[[{{{{"}]}
    assert jsonsafe.depth_ok("[" * jsonsafe.MAX_DEPTH + "]" * jsonsafe.MAX_DEPTH)
    many = b"[" + b",".join([b"[[1]]"] * 10_000) + b"]"  # many brackets, little depth
    assert len(jsonsafe.loads(many)) == 10_000


@pytest.mark.parametrize("opener", [b"[", b'{"a":'])
def test_deep_documents_are_refused_before_parsing(opener):
    deep = opener * (jsonsafe.MAX_DEPTH + 1) + b"1" + (b"]" if opener == b"[" else b"}") * (jsonsafe.MAX_DEPTH + 1)
    with pytest.raises(jsonsafe.TooDeepError):
        jsonsafe.loads(deep)


def test_a_hostile_document_cannot_crash_the_process_even_with_a_raised_recursion_limit():
    script = (
        "import sys; sys.setrecursionlimit(10**6)\n"
        "from chalicelib.platform import jsonsafe\n"
        "try:\n    jsonsafe.loads(b'[' * 2_000_000 + b']' * 2_000_000)\nexcept ValueError:\n    print('refused')\n"
    )
    run = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and run.stdout.strip() == "refused", run.stderr[-500:]


def test_a_deep_request_body_is_a_400(api, tenant):
    body = b'{"subId": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    response = api.post(
        "/api/v1/auth/login",
        body=body,
        headers={"Content-Type": "application/json", "x-client-secret": tenant.clientSecret},
    )
    assert response.status_code == 400 and response.json_body["data"]["code"] == "MALFORMED_JSON"


def test_exact_numbers_keep_every_digit_and_strings_stay_strings():
    import json
    from decimal import Decimal

    from chalicelib.platform.jsonsafe import dumps_exact

    uint256 = Decimal("115792089237316195423570985008687907853269984665640564039457.584007913129639935")
    text = dumps_exact({"a": Decimal("1.000000000000000001"), "b": uint256, "c": Decimal(0), "d": "12.5"})
    assert '"b":115792089237316195423570985008687907853269984665640564039457.584007913129639935,' in text
    parsed = json.loads(text, parse_float=Decimal)
    assert parsed["a"] == Decimal("1.000000000000000001") and parsed["b"] == uint256 and parsed["d"] == "12.5"
    # A client string shaped like the encoder's stand-in never becomes a number (its marker is random per call).
    sneaky = dumps_exact({"reference": "deadbeefdeadbeef:1", "n": Decimal("2")})
    assert json.loads(sneaky)["reference"] == "deadbeefdeadbeef:1"
