"""Amounts kept or compared as DynamoDB numbers (38 significant digits; boto3 refuses more with a decimal error): a
gas tank's alert threshold is bounded where the API takes it, answering 400 INVALID_AMOUNT and changing nothing,
and a decimal error in the alerts is not swallowed as "an alert lost". Sponsorship caps are not such numbers."""

from __future__ import annotations

import decimal

import pytest

from chalicelib.gas_tanks import alerts, sponsorship, store
from chalicelib.platform import aws
from chalicelib.platform.amounts import MAX_NUMBER
from tests.support.custody import outbox_events
from tests.support.family_s import call, create

DIGITS_38 = "9" * 38
DIGITS_39 = "1" + "0" * 38


def _refused(answer, field: str) -> None:
    body = answer.json_body
    assert answer.status_code == 400 and body["status"] == 400, body
    assert body["data"]["code"] == "INVALID_AMOUNT", body
    assert [e["field"] for e in body["data"]["errors"]] == [field], body


def test_a_threshold_over_38_digits_is_400_invalid_amount_and_changes_nothing(api, tenant):
    path = "/api/v1/client/gasTank/settings"
    assert call(api, tenant, "PUT", path, {"lowBalanceThreshold": "5000"}).status_code == 200
    for value in (DIGITS_39, "9" * 60, "0" + DIGITS_38):
        _refused(call(api, tenant, "PUT", path, {"lowBalanceThreshold": value}), "lowBalanceThreshold")
    assert call(api, tenant, "GET", path).json_body["data"]["lowBalanceThreshold"] == "5000"
    kept = call(api, tenant, "PUT", path, {"lowBalanceThreshold": DIGITS_38})  # the bound is exact
    assert kept.status_code == 200 and kept.json_body["data"]["lowBalanceThreshold"] == DIGITS_38

    owner = create(api, tenant).json_body["data"]["id"]
    owner_path = f"/api/v1/smart-account/{owner}/gasTank/settings"
    _refused(call(api, tenant, "PUT", owner_path, {"lowBalanceThreshold": DIGITS_39}), "lowBalanceThreshold")
    assert call(api, tenant, "GET", owner_path).json_body["data"]["lowBalanceThreshold"] is None


@pytest.mark.parametrize("cap", ["perOwner.maxPerDay", "perOwner.maxPerMonth", "perOperation.max", "total.maxPerDay"])
def test_sponsorship_caps_are_no_dynamodb_numbers_and_keep_their_60_digits(api, tenant, cap):
    """The caps live in the policy's JSON document and are compared in Python: a cap beyond 38 digits is set, read
    back and judged (no decimal error, no 5xx); beyond 60 digits it is refused as before."""
    group, name = cap.split(".")
    path = "/api/v1/client/gasTank/policy"
    assert call(api, tenant, "PUT", path, {group: {name: "9" * 61}}).status_code == 400
    assert call(api, tenant, "GET", path).json_body["data"]["policy"] is None
    answer = call(api, tenant, "PUT", path, {group: {name: DIGITS_39}})
    assert answer.status_code == 200, answer.json_body
    assert call(api, tenant, "GET", path).json_body["data"]["policy"][group][name] == DIGITS_39
    seen = sponsorship.standing(tenant.appId, "owner-1")  # what a sponsored submit reads and judges
    assert seen.policy is not None and sponsorship.judge(_operation(10**20), seen) is None


def _operation(cost: int) -> sponsorship.Operation:
    return sponsorship.Operation("app", "owner-1", "local-a", (("0x" + "11" * 20, b""),), cost)


def _tank(balance: int) -> str:
    tank = store.new_tank("client", "client-1")
    aws.write(store.opened(tank))
    aws.write(store.credit(tank.id, balance, "2026-11-28T00:00:00.000Z"))
    return tank.id


def test_a_threshold_stored_before_the_bound_still_alerts(tenant):
    """One set above what a DynamoDB number holds is above every balance: the alert is written (it was lost to a
    decimal error before)."""
    tank_id = _tank(100)
    legacy = "1" + "0" * 44
    aws.table("gas-tanks").update_item(
        Key=store.tank_key(tank_id),
        UpdateExpression="SET lowBalanceThreshold = :t, lowAlerted = :f",
        ExpressionAttributeValues={":t": legacy, ":f": False},
    )
    assert alerts.threshold_of(store.get_tank(tank_id)) == MAX_NUMBER  # type: ignore[arg-type]
    alerts.after_spend(tank_id, tenant.appId)
    [alert] = outbox_events(alerts.LOW_BALANCE)
    assert alert["data"]["threshold"] == legacy and alert["data"]["balance"] == "100"


def test_a_decimal_error_in_the_alerts_is_not_swallowed(tenant, monkeypatch):
    tank_id = _tank(100)
    alerts.set_threshold(tank_id, 500)
    monkeypatch.setattr(alerts, "threshold_of", lambda tank: 10**40)  # a number DynamoDB cannot hold
    with pytest.raises(decimal.DecimalException):
        alerts.after_spend(tank_id, tenant.appId)
    assert outbox_events(alerts.LOW_BALANCE) == []
