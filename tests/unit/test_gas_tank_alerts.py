"""Gas-tank alerts on moto: a low-balance alert is written once per crossing, whatever runs it concurrently or twice,
and only a top-up that lifts the balance arms it again; a refused sponsorship writes nothing but its (hourly) event."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from chalicelib.gas_tanks import alerts, store
from chalicelib.platform import aws
from tests.support.custody import outbox_events


def tank_with(balance: int) -> str:
    tank = store.new_tank("client", "client-1")
    aws.write(store.opened(tank))
    if balance:
        aws.write(store.credit(tank.id, balance, "2026-11-28T00:00:00.000Z"))
    return tank.id


def spend(tank_id: str, amount: int) -> None:
    aws.write(store.debit(tank_id, amount, "2026-11-28T00:00:00.000Z"))


def test_one_alert_per_crossing_even_when_settles_race(tenant):
    tank_id = tank_with(1_000)
    alerts.set_threshold(tank_id, 500)
    spend(tank_id, 400)
    alerts.after_spend(tank_id, tenant.appId)
    assert outbox_events(alerts.LOW_BALANCE) == []  # 600: above its threshold
    spend(tank_id, 200)
    with ThreadPoolExecutor(6) as pool:  # six settles of the tank at once, then one more
        list(pool.map(lambda _: alerts.after_spend(tank_id, tenant.appId), range(6)))
    alerts.after_spend(tank_id, tenant.appId)
    [alert] = outbox_events(alerts.LOW_BALANCE)
    assert alert["id"] == f"{alerts.LOW_BALANCE}:{tank_id}:1"
    assert alert["data"]["balance"] == "400" and alert["data"]["threshold"] == "500"
    assert alert["data"]["kind"] == "organization" and alert["data"]["spentLast24h"] == "0"

    aws.write(store.credit(tank_id, 50, "2026-11-28T00:00:00.000Z"))  # a refund: still below, not re-armed
    alerts.after_top_up(tank_id)
    spend(tank_id, 10)
    alerts.after_spend(tank_id, tenant.appId)
    assert len(outbox_events(alerts.LOW_BALANCE)) == 1

    aws.write(store.credit(tank_id, 100, "2026-11-28T00:00:00.000Z"))  # a top-up to 540: armed again
    alerts.after_top_up(tank_id)
    assert store.get_tank(tank_id).lowAlerted is False  # type: ignore[union-attr]
    spend(tank_id, 100)
    alerts.after_spend(tank_id, tenant.appId)
    ids = sorted(e["id"] for e in outbox_events(alerts.LOW_BALANCE))
    assert ids == [f"{alerts.LOW_BALANCE}:{tank_id}:1", f"{alerts.LOW_BALANCE}:{tank_id}:2"]


def test_no_threshold_no_alert_and_a_new_setting_arms_it(tenant):
    tank_id = tank_with(100)
    alerts.after_spend(tank_id, tenant.appId)
    alerts.set_threshold(tank_id, 1_000)
    alerts.after_spend(tank_id, tenant.appId)
    alerts.set_threshold(tank_id, 2_000)  # a new setting: the next look alerts again
    alerts.after_spend(tank_id, tenant.appId)
    alerts.set_threshold(tank_id, None)
    alerts.after_spend(tank_id, tenant.appId)
    assert [e["data"]["threshold"] for e in outbox_events(alerts.LOW_BALANCE)] in (["1000", "2000"], ["2000", "1000"])


def test_sponsorship_refusals_are_one_event_per_owner_rule_and_hour(tenant):
    for _ in range(3):
        alerts.sponsorship_denied(tenant.appId, "owner-1", "op", "networks", "not sponsored")
    alerts.sponsorship_denied(tenant.appId, "owner-1", "op", "perOperation.max", "too much")
    alerts.sponsorship_denied(tenant.appId, "owner-2", "op", "networks", "not sponsored")
    events = outbox_events(alerts.SPONSORSHIP_DENIED)
    assert sorted((e["data"]["ownerId"], e["data"]["rule"]) for e in events) == [
        ("owner-1", "networks"),
        ("owner-1", "perOperation.max"),
        ("owner-2", "networks"),
    ]


def test_an_alert_judged_on_a_stale_balance_is_not_written(tenant, monkeypatch):
    tank_id = tank_with(100)
    alerts.set_threshold(tank_id, 500)
    stale = store.get_tank(tank_id)  # below its threshold, as a settle read it
    aws.write(store.credit(tank_id, 1_000, "2026-11-28T00:00:00.000Z"))  # a top-up lands meanwhile
    monkeypatch.setattr(store, "get_tank", lambda _tank_id: stale)
    alerts.after_spend(tank_id, tenant.appId)
    monkeypatch.undo()
    assert outbox_events(alerts.LOW_BALANCE) == []
    assert store.get_tank(tank_id).lowAlerted is False  # type: ignore[union-attr]


def test_the_check_reads_the_organization_balance_without_making_its_tank(tenant):
    assert store.client_tank_balance(tenant.clientId) == 0
    assert [i for i in aws.table("gas-tanks").scan()["Items"] if str(i["pk"]).startswith("CLIENT#")] == []
    tank_id = store.client_tank_id(tenant.clientId)
    aws.write(store.credit(tank_id, 7, "2026-11-28T00:00:00.000Z"))
    assert store.client_tank_balance(tenant.clientId) == 7
