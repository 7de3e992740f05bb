"""Bad input and unknown routes against the local stack (`make dev`), over HTTP as an integrator sees them.

User-operation numbers above 2**256-1 and addresses with a wrong EIP-55 checksum are 400s with their stable code
(never a 500 from the ABI encoder); a path that matches no route is the envelope's 404, as API Gateway's gateway
responses answer on AWS; a method a path does not declare is 405 with `Allow`. An id in a path that cannot be one
(2 KB, characters outside RFC 3986's unreserved set) is the route's own not-found answer, in the API and the
console; an amount stored or compared as a DynamoDB number has at most 38 digits (400 INVALID_AMOUNT beyond).
"""

from __future__ import annotations

import json
import os
import re
import urllib.parse

import pytest
import requests

from infra.gateway_responses import NO_ROUTE
from tests.support.devstack import signed
from tests.support.operator import fill_aux_pool, operator

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


# --- ids in paths, amounts DynamoDB holds --------------------------------------------------------------------------

# Values that cannot be an id (platform/path_ids.py), as sent on the wire: 2 KB (over DynamoDB's key size), and
# percent-encoded characters outside RFC 3986's unreserved set (the API decodes them before the route sees them).
BAD_PATH_IDS = ["a" * 2048, "caf%C3%A9", "a%3Ab", "a%00b", "a%23b", "a%20b", "a%27b", "%F0%9F%98%80", "a%5Cb"]


@pytest.fixture(scope="module")
def own_tenant(stack):
    """An organization of its own (the operator's command): its app, client and first admin's invite."""
    return json.loads(operator(stack, "create-tenant", "--name", f"Input {os.urandom(3).hex()}"))


def _signed_as(stack, tenant, method, path, body=None):
    raw = json.dumps(body).encode() if body is not None else b""
    return signed(stack["info"], method, path, raw, app_id=tenant["appId"], secret=tenant["appSecret"])


def _answer(response):
    assert response.headers["Content-Type"].startswith("application/json"), response.text[:300]
    envelope = response.json()
    assert envelope["status"] == response.status_code, envelope
    return response.status_code, envelope["data"]["code"]


@pytest.mark.parametrize("bad", BAD_PATH_IDS, ids=lambda v: v[:12])
@pytest.mark.parametrize(
    ("method", "template", "expected"),
    [
        ("GET", "/api/v1/userOp/{}", (404, "USER_OP_NOT_FOUND")),
        ("POST", "/api/v1/webhooks/deliveries/{}/retry", (404, "DELIVERY_NOT_FOUND")),
        ("GET", "/api/v1/smart-account/{}", (404, "OWNER_NOT_FOUND")),
        ("GET", "/api/v1/smart-account/{}/usage/history", (404, "OWNER_NOT_FOUND")),
        ("GET", "/api/v1/custody/withdrawals/{}", (404, "WITHDRAWAL_NOT_FOUND")),
        ("GET", "/api/v1/custody/networks/{}/watcher", (400, "UNKNOWN_NETWORK")),
    ],
)
def test_an_id_that_cannot_be_one_is_the_routes_answer_never_a_500(stack, own_tenant, method, template, expected, bad):
    assert _answer(_signed_as(stack, own_tenant, method, template.format(bad))) == expected


def test_a_transaction_hash_that_cannot_be_one_is_404_for_a_wallet(stack, own_tenant):
    fill_aux_pool(stack, 1)  # the wallet's key material
    url = stack["info"]["apiUrl"]
    client = {"x-client-secret": own_tenant["clientSecret"]}
    login = requests.post(f"{url}/api/v1/auth/login", json={"subId": "path-ids"}, headers=client, timeout=10)
    access = login.json()["data"]["accessToken"]
    created = requests.post(
        f"{url}/api/v1/account/create", json={}, headers={**client, "Authorization": f"Bearer {access}"}, timeout=120
    )
    assert created.status_code == 200, created.text
    wallet = {**client, "Authorization": f"Bearer {created.json()['data']['walletToken']}"}
    for bad in BAD_PATH_IDS:
        answer = requests.get(f"{url}/api/v1/wallet/transactions/{bad}", headers=wallet, timeout=10)
        assert _answer(answer) == (404, "TRANSACTION_NOT_FOUND"), bad
    unknown = requests.get(f"{url}/api/v1/wallet/transactions/0x{'ab' * 32}", headers=wallet, timeout=10)
    assert _answer(unknown) == (404, "TRANSACTION_NOT_FOUND")


def test_console_pages_answer_an_id_that_cannot_be_one_with_their_not_found_page(stack, own_tenant):
    url = stack["info"]["apiUrl"]
    admin = requests.Session()
    invite = urllib.parse.urlsplit(own_tenant["adminInvite"]["url"]).path
    form = admin.get(url + invite, timeout=10)
    [token] = re.findall(r'name="csrf" value="([^"]+)"', form.text)
    password = "a long console password 42"
    joined = admin.post(
        url + invite,
        data={
            "csrf": token,
            "email": f"{os.urandom(4).hex()}@example.com",
            "password": password,
            "passwordConfirm": password,
        },
        allow_redirects=False,
        timeout=30,
    )
    assert joined.status_code == 303, joined.text[:500]
    page = admin.get(url + "/console/team", timeout=10)
    [csrf] = set(re.findall(r'name="csrf" value="([^"]+)"', page.text))
    app = own_tenant["appId"]
    for bad in BAD_PATH_IDS:
        for path, code in [
            (f"/console/apps/{app}/webhooks/deliveries/{bad}", "DELIVERY_NOT_FOUND"),
            (f"/console/apps/{bad}/webhooks", "APP_NOT_FOUND"),
            (f"/console/user-ops/{bad}", "USER_OP_NOT_FOUND"),
            (f"/console/invite/{bad}", "INVITE_NOT_FOUND"),
        ]:
            answer = admin.get(url + path, timeout=10)
            assert answer.status_code == 404 and code in answer.text, (path[:80], answer.status_code)
        for action in ("role", "remove"):
            answer = admin.post(f"{url}/console/team/{bad}/{action}", data={"csrf": csrf, "role": "viewer"}, timeout=10)
            assert answer.status_code == 404 and "MEMBER_NOT_FOUND" in answer.text, (action, answer.status_code)


def test_a_threshold_over_38_digits_is_400_invalid_amount_and_changes_nothing(stack, own_tenant):
    path = "/api/v1/client/gasTank/settings"
    assert _signed_as(stack, own_tenant, "PUT", path, {"lowBalanceThreshold": "5000"}).status_code == 200
    refused = _signed_as(stack, own_tenant, "PUT", path, {"lowBalanceThreshold": "1" + "0" * 38})
    assert _answer(refused) == (400, "INVALID_AMOUNT")
    assert [e["field"] for e in refused.json()["data"]["errors"]] == ["lowBalanceThreshold"]
    assert _signed_as(stack, own_tenant, "GET", path).json()["data"]["lowBalanceThreshold"] == "5000"
    largest = _signed_as(stack, own_tenant, "PUT", path, {"lowBalanceThreshold": "9" * 38})
    assert largest.status_code == 200 and largest.json()["data"]["lowBalanceThreshold"] == "9" * 38

    # Sponsorship caps are kept in the policy's JSON document, not as DynamoDB numbers: 39 digits are set and read.
    policy = "/api/v1/client/gasTank/policy"
    capped = _signed_as(stack, own_tenant, "PUT", policy, {"perOwner": {"maxPerDay": "1" + "0" * 38}})
    assert capped.status_code == 200, capped.text
    read = _signed_as(stack, own_tenant, "GET", policy).json()["data"]["policy"]
    assert read["perOwner"]["maxPerDay"] == "1" + "0" * 38
