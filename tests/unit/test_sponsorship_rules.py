"""The sponsorship policy's rules and its rolling windows (pure: no AWS, no chain)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from chalicelib.gas_tanks import sponsorship
from chalicelib.gas_tanks.models import SponsorshipPolicy
from chalicelib.platform import windows

NOW = 1_796_000_000  # a Unix time
TOKEN = "0xc2132D05D31c914a87C6611C10748AEb04B58e8F"


def operation(dest: str | None = TOKEN, data: bytes = b"", **changes):
    """One call of `dest` with `data` (none when `dest` is None); `calls` given: a batch."""
    calls = () if dest is None else ((dest, data),)
    base = {"app_id": "app", "owner_id": "owner", "network": "local-a", "calls": calls, "cost": 100}
    return sponsorship.Operation(**{**base, **changes})


def standing(document, owner_hours=None, owner_days=None, app_hours=None, now=NOW):
    policy = None if document is None else SponsorshipPolicy.model_validate(document)
    return sponsorship.Standing(policy, owner_hours or {}, owner_days or {}, 1, app_hours or {}, 1, now)


def rule(document, op=None, **windows_):
    refusal = sponsorship.judge(op or operation(), standing(document, **windows_))
    return None if refusal is None else refusal.rule


def test_no_policy_or_an_empty_one_sponsors_everything():
    assert rule(None) is None and rule({}) is None


def test_each_rule_refuses_what_it_bounds():
    hour, day = sponsorship.DAY.bucket(NOW), sponsorship.MONTH.bucket(NOW)
    assert rule({"networks": ["local-b"]}) == "networks"
    assert rule({"networks": ["local-a"]}) is None
    assert rule({"perOperation": {"max": "99"}}) == "perOperation.max"
    assert rule({"perOperation": {"max": "100"}}) is None
    assert rule({"perOwner": {"maxCountPerDay": 2}}, owner_hours={hour: (2, 10)}) == "perOwner.maxCountPerDay"
    assert rule({"perOwner": {"maxCountPerDay": 3}}, owner_hours={hour: (2, 10)}) is None
    assert rule({"perOwner": {"maxPerDay": "109"}}, owner_hours={hour: (1, 10)}) == "perOwner.maxPerDay"
    assert rule({"perOwner": {"maxPerDay": "110"}}, owner_hours={hour: (1, 10)}) is None
    assert rule({"perOwner": {"maxPerMonth": "149"}}, owner_days={day - 20: (1, 50)}) == "perOwner.maxPerMonth"
    assert rule({"perOwner": {"maxPerMonth": "149"}}, owner_days={day - 31: (1, 50)}) is None  # out of the window
    assert rule({"total": {"maxPerDay": "150"}}, app_hours={hour - 3: (5, 51)}) == "total.maxPerDay"
    assert rule({"total": {"maxPerDay": "150"}}, app_hours={hour - 25: (5, 51)}) is None


def test_contracts_and_selectors():
    transfer = bytes.fromhex("a9059cbb") + bytes(64)
    listed = {"contracts": [{"address": TOKEN.lower(), "selectors": ["0xA9059CBB"]}]}
    assert rule(listed, operation(data=transfer)) is None
    assert rule(listed, operation(data=bytes.fromhex("095ea7b3") + bytes(64))) == "contracts"  # approve
    assert rule(listed, operation(data=b"")) == "contracts"  # a plain transfer to it calls no function
    assert rule({"contracts": [{"address": TOKEN}]}, operation(data=b"")) is None
    assert rule(listed, operation(dest=None)) == "contracts"  # a deployment alone calls nothing
    # A batch is sponsored whole: every call listed, or none of it.
    assert rule(listed, operation(calls=((TOKEN, transfer), (TOKEN, transfer)))) is None
    assert rule(listed, operation(calls=((TOKEN, transfer), ("0x" + "11" * 20, transfer)))) == "contracts"
    assert rule({"contracts": []}) == "contracts"


def test_the_activation_window():
    assert rule({"activeFrom": "2100-01-01T00:00:00Z"}) == "activeFrom"
    assert rule({"activeUntil": "2020-01-01T00:00:00+02:00"}) == "activeUntil"
    assert rule({"activeFrom": "2020-01-01T00:00:00Z", "activeUntil": "2100-01-01T00:00:00Z"}) is None


@pytest.mark.parametrize(
    "document",
    [
        {"perOwner": {"maxPerDay": "-1"}},
        {"perOwner": {"maxPerDay": 5}},
        {"perOwner": {"maxCountPerDay": -1}},
        {"perOperation": {"max": "1.5"}},
        {"contracts": [{"address": "0x1234", "selectors": []}]},
        {"contracts": [{"address": TOKEN, "selectors": ["0xa9059c"]}]},
        {"activeFrom": "2026-12-01T00:00:00"},  # no offset
        {"activeFrom": "2026-12-02T00:00:00Z", "activeUntil": "2026-12-01T00:00:00Z"},
        {"unknown": 1},
        {"perOwner": {"maxPerWeek": "1"}},
    ],
)
def test_malformed_documents_are_refused(document):
    with pytest.raises(ValidationError):
        SponsorshipPolicy.model_validate(document)


def test_windows_roll_and_give_back_refunds():
    span = windows.Span(3_600, 86_400)
    buckets = span.added({}, NOW, 100)
    buckets = span.added(buckets, NOW + 1_800, 50)
    assert span.total(buckets, NOW + 1_800) == (2, 150)
    later = span.added(buckets, NOW + 86_400 + 7_200, 7)  # a day and two hours later: the old buckets are gone
    assert span.total(later, NOW + 86_400 + 7_200) == (1, 7) and len(later) == 1
    back = windows.taken_back(buckets, span.bucket(NOW), 30)
    assert span.total(back, NOW) == (2, 120)
    assert windows.taken_back(buckets, span.bucket(NOW) - 100, 30) == buckets  # dropped already: nothing to give
    assert windows.read(windows.stored(back)) == back


def test_operations_are_counted_only_under_a_policy():
    op = operation()
    assert sponsorship.counted(op, standing(None)) == ([], {})
    items, where = sponsorship.counted(op, standing({}))
    assert [i.name for i in items] == [sponsorship.OWNER_WINDOW, sponsorship.APP_WINDOW]
    assert where == {"hour": sponsorship.DAY.bucket(NOW), "day": sponsorship.MONTH.bucket(NOW)}


def test_an_operation_that_cost_nothing_leaves_the_count():
    span = windows.Span(3_600, 86_400)
    buckets = span.added({}, NOW, 100)
    assert span.total(windows.taken_back(buckets, span.bucket(NOW), 100, n=1), NOW) == (0, 0)
