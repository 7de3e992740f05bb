"""Bad input and unknown routes against the local stack (`make dev`), over HTTP as an integrator sees them.

User-operation numbers above 2**256-1 and addresses with a wrong EIP-55 checksum are 400s with their stable code
(never a 500 from the ABI encoder); a path that matches no route is the envelope's 404, as API Gateway's gateway
responses answer on AWS; a method a path does not declare is 405 with `Allow`.
"""

from __future__ import annotations

import json
import os

import pytest
import requests

from infra.gateway_responses import NO_ROUTE
from tests.integration.devstack_client import signed

pytestmark = pytest.mark.integration

UINT256_MAX = 2**256 - 1
# EIP-55's own example address with the case of its last letter flipped.
WRONG_CHECKSUM = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD"


@pytest.fixture(scope="module")
def account_id(stack):
    owner = "0x" + os.urandom(20).hex()
    body = json.dumps({"owner": {"id": owner, "provider": "wallet"}}).encode()
    created = signed(stack["info"], "POST", "/api/v1/smart-account", body)
    assert created.status_code == 200, created.text
    return created.json()["data"]["accounts"][0]["id"]


def _post(stack, path, body):
    return signed(stack["info"], "POST", path, json.dumps(body).encode())


@pytest.mark.parametrize(
    ("kind", "field", "fields", "code"),
    [
        ("sendCoin", "amount", {"amount": str(UINT256_MAX + 1)}, "INVALID_AMOUNT"),
        ("sendCoin", "amount", {"amount": "9" * 78}, "INVALID_AMOUNT"),
        ("sendToken", "amount", {"tokenAddress": "0x" + "11" * 20, "amount": str(UINT256_MAX + 1)}, "INVALID_AMOUNT"),
        (
            "sendERC721",
            "tokenId",
            {"tokenAddress": "0x" + "11" * 20, "tokenId": str(UINT256_MAX + 1)},
            "INVALID_TOKEN_ID",
        ),
        ("signTransaction", "value", {"value": str(UINT256_MAX + 1), "callData": "0x"}, "INVALID_AMOUNT"),
        ("sendCoin", "to", {"amount": "1", "to": WRONG_CHECKSUM}, "INVALID_ADDRESS"),
        ("sendToken", "tokenAddress", {"tokenAddress": WRONG_CHECKSUM, "amount": "1"}, "INVALID_ADDRESS"),
    ],
)
def test_out_of_range_numbers_and_wrong_checksums_are_400(stack, account_id, kind, field, fields, code):
    body = {"accountId": account_id, "to": "0x" + "22" * 20, **fields}
    for step in ("estimate", "hash"):
        answer = _post(stack, f"/api/v1/userOp/{kind}/{step}", body)
        assert answer.status_code == 400, (step, answer.text)
        envelope = answer.json()
        assert envelope["status"] == 400 and envelope["data"]["code"] == code, envelope
        assert [e["field"] for e in envelope["data"]["errors"]] == [field], envelope


def test_the_largest_uint256_passes_validation(stack, account_id):
    """The bound is exact: 2**256-1 reaches the service (which refuses the transfer: the account has nothing)."""
    body = {"accountId": account_id, "to": "0x" + "22" * 20, "amount": str(UINT256_MAX)}
    answer = _post(stack, "/api/v1/userOp/sendCoin/estimate", body)
    assert answer.status_code not in (400, 500), answer.text
    assert answer.json()["status"] == answer.status_code


@pytest.mark.parametrize(
    ("method", "path", "headers"),
    [
        ("GET", "/no/such/route", {}),
        ("POST", "/api/v1/no-such-route", {"Content-Type": "application/json"}),
        ("GET", "/api/v1/userOp/sendCoin/estimate/extra", {}),
        # chalice local answered this one with a different 403 text (an AWS signature parse)
        ("GET", "/api/v1/nothing", {"Authorization": "Bearer abc"}),
    ],
)
def test_an_unknown_path_is_a_404_envelope(stack, method, path, headers):
    answer = requests.request(method, stack["info"]["apiUrl"] + path, headers=headers, data=b"{}", timeout=10)
    assert answer.status_code == 404, answer.text
    assert answer.headers["Content-Type"].startswith("application/json")
    assert (
        answer.json()
        == json.loads(NO_ROUTE.body())
        == {
            "status": 404,
            "message": "Not found",
            "data": {"code": "NOT_FOUND"},
        }
    )


def test_a_method_the_path_does_not_declare_is_a_405_envelope(stack):
    answer = requests.delete(stack["info"]["apiUrl"] + "/api/v1/userOp/submit", timeout=10)
    assert answer.status_code == 405, answer.text
    assert answer.json()["status"] == 405 and answer.json()["data"]["code"] == "METHOD_NOT_ALLOWED"
    assert answer.headers["Allow"] == "POST"
