"""Gas-tank top-ups refused before the chain is asked (or when it cannot be), the organization tank and the history
lists (moto). Credits, chain refusals, delayed top-ups and their checker run against anvil in
tests/integration/test_top_ups.py."""

from __future__ import annotations

import json

import pytest

from chalicelib.gas_tanks import confirmations as checks
from chalicelib.gas_tanks import verification
from chalicelib.platform import aws
from tests.support.family_s import call, create
from tests.support.networks import aa_network

TX = "0x" + "ab" * 32
SIGNATURE = "0x" + "11" * 65


@pytest.fixture
def network(use_networks):
    use_networks([aa_network("local-a", 31337)])
    return aa_network("local-a", 31337)


def body(network, **changes):
    return {
        "txHash": TX,
        "chainId": network["chainId"],
        "tokenAddress": network["tokens"]["usdt"],
        "poolAddress": network["poolAddress"],
        "immediate": True,
        "signature": SIGNATURE,
        **changes,
    }


def nothing_recorded():
    items = aws.table("gas-tanks").scan()["Items"]
    return not [i for i in items if i["pk"].startswith(("TOPUPS#", "TOPUPTX#"))]


def nothing_queued():
    return not aws.client("sqs").receive_message(QueueUrl=aws.queue("topup-checks")).get("Messages")


@pytest.mark.parametrize(
    ("changes", "status", "code"),
    [
        ({"chainId": 1}, 400, "NETWORK_WITHOUT_GAS_TANKS"),
        ({"tokenAddress": "0x" + "99" * 20}, 400, "NOT_USDT"),
        ({"poolAddress": "0x" + "99" * 20}, 400, "NOT_THE_POOL"),
        ({"poolAddress": "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD"}, 400, "INVALID_ADDRESS"),  # wrong checksum
        ({"tokenAddress": "0x12"}, 400, "INVALID_ADDRESS"),
        ({"txHash": "0x1234"}, 400, "VALIDATION_ERROR"),
        ({"signature": "0x" + "11" * 64}, 400, "VALIDATION_ERROR"),
        ({"immediate": "yes"}, 400, "VALIDATION_ERROR"),
        ({"receiverOwnerId": "0x" + "77" * 20}, 404, "OWNER_NOT_FOUND"),
        ({"receiverOwnerId": "not-an-id"}, 404, "OWNER_NOT_FOUND"),
    ],
)
def test_refusals_before_the_chain_change_nothing(api, tenant, network, changes, status, code):
    owner = create(api, tenant).json_body["data"]
    request = {**body(network, receiverOwnerId=owner["id"]), **changes}
    answer = call(api, tenant, "POST", "/api/v1/smart-account/topUp", request)
    assert answer.status_code == status and answer.json_body["data"]["code"] == code, answer.json_body
    assert nothing_recorded()


@pytest.mark.parametrize("immediate", [True, False])
def test_a_node_that_is_down_is_502_and_records_nothing(api, tenant, network, immediate):
    """A delayed top-up too: nothing is stored before the chain shows the signature is the sender's."""
    answer = call(api, tenant, "POST", "/api/v1/client/gasTank/topUp", body(network, immediate=immediate))
    assert answer.status_code == 502 and answer.json_body["data"]["code"] == "UPSTREAM_UNAVAILABLE"
    assert nothing_recorded() and nothing_queued()


def test_the_organization_tank_is_one_per_client(api, tenant, network):
    first = call(api, tenant, "GET", "/api/v1/client/gasTank").json_body["data"]
    assert first == call(api, tenant, "GET", "/api/v1/client/gasTank").json_body["data"]
    assert set(first) == {"id", "clientId", "balance", "type", "tokenName", "decimals", "createdAt", "updatedAt"}
    assert first["balance"] == "0" and first["clientId"] == tenant.clientId and first["decimals"] == 18


@pytest.mark.parametrize(
    "path",
    ["/api/v1/client/gasTank/topUp/history", "/api/v1/gasTank/organization/usage/history"],
)
def test_history_lists_page_like_the_seed(api, tenant, network, path):
    answer = call(api, tenant, "GET", path)
    assert answer.status_code == 200
    assert answer.json_body["data"] == {
        "data": [],
        "pagination": {"total": 0, "page": 1, "limit": 10, "totalPages": 0, "hasNext": False, "hasPrev": False},
    }
    for bad in ("limit=0", "limit=101", "page=0", "limit=x"):
        refused = call(api, tenant, "GET", f"{path}?{bad}")
        assert refused.status_code == 400 and refused.json_body["data"]["code"] == "VALIDATION_ERROR"
    assert call(api, tenant, "GET", f"{path}?limit=100").status_code == 200


def test_owner_history_needs_an_owner_of_the_app(api, tenant, network):
    record = create(api, tenant).json_body["data"]
    assert call(api, tenant, "GET", f"/api/v1/smart-account/{record['id']}/topUp/history").status_code == 200
    missing = call(api, tenant, "GET", "/api/v1/smart-account/0x" + "77" * 20 + "/topUp/history")
    assert missing.status_code == 404 and missing.json_body["data"]["code"] == "OWNER_NOT_FOUND"
    assert json.dumps(record)


def test_a_check_for_a_top_up_that_is_not_pending_does_nothing(api, tenant, network, monkeypatch):
    """A message for a top-up that is not (or no longer) pending is dropped without touching the chain."""
    monkeypatch.setattr(verification, "prove", lambda *a: pytest.fail("the chain must not be asked"))
    checks.check({"chainId": 31337, "txHash": TX, "topUpId": "lost", "signature": SIGNATURE, "signedText": "x"})
    assert nothing_recorded() and nothing_queued()
