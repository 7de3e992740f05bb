"""Gas-tank top-ups refused before the chain is asked, the organization tank and the history lists (moto).
Credits, chain refusals and the delayed checker run against anvil in tests/integration/test_top_ups.py."""

from __future__ import annotations

import json

import pytest

from chalicelib.platform import aws
from tests.unit.test_smart_accounts import OWNER, aa_network, call, create

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


@pytest.mark.parametrize(
    ("changes", "status", "code"),
    [
        ({"chainId": 1}, 400, "NETWORK_WITHOUT_GAS_TANKS"),
        ({"tokenAddress": "0x" + "99" * 20}, 400, "NOT_USDT"),
        ({"poolAddress": "0x" + "99" * 20}, 400, "NOT_THE_POOL"),
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


def test_a_node_that_is_down_is_502_and_records_nothing(api, tenant, network):
    answer = call(api, tenant, "POST", "/api/v1/client/gasTank/topUp", body(network))
    assert answer.status_code == 502 and answer.json_body["data"]["code"] == "UPSTREAM_UNAVAILABLE"
    assert nothing_recorded()


def test_a_delayed_top_up_is_pending_with_a_delayed_check(api, tenant, network):
    answer = call(api, tenant, "POST", "/api/v1/client/gasTank/topUp", body(network, immediate=False))
    assert answer.status_code == 200 and set(answer.json_body) == {"status", "message"}, answer.json_body
    history = call(api, tenant, "GET", "/api/v1/client/gasTank/topUp/history").json_body["data"]
    [record] = history["data"]
    assert record["status"] == "pending" and record["amount"] == "0" and record["txHash"] == TX
    assert set(record) == {
        "id",
        "createdAt",
        "updatedAt",
        "clientId",
        "gasTankId",
        "txHash",
        "network",
        "chainId",
        "poolAddress",
        "amount",
        "tokenAddress",
        "status",
    }
    messages = aws.client("sqs").receive_message(QueueUrl=aws.queue("topup-checks"), MaxNumberOfMessages=10)
    assert messages.get("Messages") is None  # delayed: not visible yet
    again = call(api, tenant, "POST", "/api/v1/client/gasTank/topUp", body(network, immediate=False))
    assert again.status_code == 409 and again.json_body["data"]["code"] == "TOPUP_ALREADY_USED"
    other_tank = call(api, tenant, "POST", "/api/v1/smart-account/topUp", body(network, receiverOwnerId=OWNER))
    assert other_tank.status_code in (404, 409)


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


def test_a_check_for_a_top_up_that_never_committed_does_nothing(api, tenant, network, monkeypatch):
    """The delayed path sends its message before it commits the record: a crash (or refusal) in between leaves a
    message for nothing, which the checker drops without touching the chain."""
    from chalicelib.gas_tanks import checks, verification

    monkeypatch.setattr(verification, "verify", lambda *a: pytest.fail("the chain must not be asked"))
    checks.check({"chainId": 31337, "txHash": TX, "topUpId": "lost", "signature": SIGNATURE, "signedText": "x"})
    assert nothing_recorded()


def test_a_crash_after_the_message_leaves_the_transaction_usable(api, tenant, network, monkeypatch):
    from chalicelib.gas_tanks import service

    def crash(*_, **__):
        raise RuntimeError("the function died here")

    monkeypatch.setattr(service, "_append", crash)
    answer = call(api, tenant, "POST", "/api/v1/client/gasTank/topUp", body(network, immediate=False))
    assert answer.status_code == 500 and nothing_recorded()
    monkeypatch.undo()
    again = call(api, tenant, "POST", "/api/v1/client/gasTank/topUp", body(network, immediate=False))
    assert again.status_code == 200
