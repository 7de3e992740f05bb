"""The one way to compose a write: items, list entries, one event, the idempotency effect, explicit re-planning."""

from __future__ import annotations

import pytest

from chalicelib.platform import aws, outbox, unit_of_work
from chalicelib.platform.errors import ApiError
from chalicelib.platform.hooks import Hooks
from chalicelib.platform.pagination import AppendOnlyList
from chalicelib.platform.unit_of_work import Event, Plan
from chalicelib.webhooks import events

TABLE = "tenancy"


def _item(pk: str) -> dict[str, str]:
    found: dict[str, str] | None = aws.table(TABLE).get_item(Key={"pk": pk, "sk": "x"}, ConsistentRead=True).get("Item")
    return found or {}


def test_items_lists_and_numbered_items_commit_together(aws_env):
    first, second = AppendOnlyList(TABLE, "UOW#a"), AppendOnlyList(TABLE, "UOW#b")
    committed = unit_of_work.commit(
        Plan(
            items=[aws.put("thing", TABLE, {"pk": "UOW#thing", "sk": "x"})],
            lists=[(first, {"n": 1}), (second, {"n": 1})],
            numbered=lambda seqs: [aws.put("seq", TABLE, {"pk": "UOW#seq", "sk": "x", "seqs": seqs})],
        )
    )
    assert committed is not None and committed.seqs == (1, 1) and not committed.event_written
    assert _item("UOW#thing") and _item("UOW#seq")["seqs"] == [1, 1]
    assert first.count() == 1 and second.count() == 1


def test_a_failed_condition_writes_nothing_and_is_reported_by_name(aws_env):
    entries = AppendOnlyList(TABLE, "UOW#nothing")
    taken = aws.put("claim", TABLE, {"pk": "UOW#claim", "sk": "x"})
    aws.transact([taken])
    event = Event("app-1", "webhook.test", "uow-nothing", {})
    with pytest.raises(aws.TransactionCancelledError) as error:
        unit_of_work.commit(Plan(items=[taken], lists=[(entries, {"n": 1})], event=event))
    assert error.value.condition_failed("claim")
    assert entries.count() == 0 and events.get("uow-nothing") is None


def test_an_event_that_exists_is_not_written_again_but_the_change_is(aws_env):
    """A state that comes back (a deposit mined again after a reorg) still happens, without a second event."""
    event = Event("app-1", "deposit.pending", "uow-again", {"n": 1})
    assert unit_of_work.commit(Plan(event=event)).event_written  # type: ignore[union-attr]
    again = unit_of_work.commit(Plan(items=[aws.put("state", TABLE, {"pk": "UOW#state", "sk": "x"})], event=event))
    assert again is not None and not again.event_written and again.delivery_id is None
    assert _item("UOW#state")


def test_an_event_without_a_subscriber_fails_and_nothing_is_written(aws_env, monkeypatch):
    """An event is never dropped: with no recorder subscribed (a wiring error), the whole change fails."""
    monkeypatch.setattr(outbox, "SUBSCRIBER", Hooks("event subscriber"))
    state = aws.put("state", TABLE, {"pk": "UOW#unheard", "sk": "x"})
    with pytest.raises(outbox.NoSubscriberError):
        unit_of_work.commit(Plan(items=[state], event=Event("app-1", "webhook.test", "uow-unheard", {})))
    assert not _item("UOW#unheard") and events.get("uow-unheard") is None


def test_the_subscriber_says_what_an_event_writes(aws_env, monkeypatch):
    heard: list[tuple[str, str]] = []
    written: list[str] = []

    def record(event: Event, now: str) -> outbox.Emission:
        heard.append((event.id, now))
        item = aws.put(outbox.EVENT_ITEM, TABLE, {"pk": f"UOW#{event.id}", "sk": "x", **event.envelope(now)})
        return outbox.Emission([item], after_commit=lambda: written.append(event.id))

    monkeypatch.setattr(outbox, "SUBSCRIBER", Hooks("event subscriber"))
    outbox.subscribe(record)
    committed = unit_of_work.commit(Plan(event=Event("app-1", "webhook.test", "uow-heard", {"n": 1})))
    assert committed is not None and committed.event_written and committed.delivery_id is None
    assert [i for i, _ in heard] == ["uow-heard"] and written == ["uow-heard"]
    assert _item("UOW#uow-heard")["data"] == {"n": 1} and _item("UOW#uow-heard")["apiVersion"] == outbox.API_VERSION


def test_an_item_named_in_replan_on_builds_the_plan_again_from_fresh_reads(aws_env):
    aws.transact([aws.put("balance", TABLE, {"pk": "UOW#balance", "sk": "x", "v": 1}, None)])
    builds = []

    def build() -> Plan:
        seen = int(_item("UOW#balance")["v"])
        builds.append(seen)
        if len(builds) == 1:  # a concurrent change moves the balance after this plan read it
            aws.transact([aws.put("rival", TABLE, {"pk": "UOW#balance", "sk": "x", "v": seen + 1}, None)])
        condition = aws.Condition("v = :seen", values={":seen": seen})
        change = aws.update(
            "balance", TABLE, {"pk": "UOW#balance", "sk": "x"}, aws.Changes(set={"v": seen + 10}), condition
        )
        return Plan(items=[change], replan_on=frozenset({"balance"}))

    assert unit_of_work.commit(build) is not None
    assert builds == [1, 2] and int(_item("UOW#balance")["v"]) == 12


def test_without_replan_on_the_same_failure_is_the_callers_to_answer(aws_env):
    aws.transact([aws.put("balance", TABLE, {"pk": "UOW#fixed", "sk": "x", "v": 2}, None)])
    condition = aws.Condition("v = :seen", values={":seen": 1})
    change = aws.update("balance", TABLE, {"pk": "UOW#fixed", "sk": "x"}, aws.Changes(set={"v": 3}), condition)
    with pytest.raises(aws.TransactionCancelledError):
        unit_of_work.commit(Plan(items=[change]))


def test_a_race_that_never_ends_is_busy_and_writes_nothing(aws_env):
    def build() -> Plan:
        aws.transact([aws.update("rival", TABLE, {"pk": "UOW#hot", "sk": "x"}, aws.Changes(add={"v": 1}), None)])
        seen = int(_item("UOW#hot")["v"]) - 1  # always one behind
        condition = aws.Condition("v = :seen", values={":seen": seen})
        return Plan(
            items=[aws.update("hot", TABLE, {"pk": "UOW#hot", "sk": "x"}, aws.Changes(set={"mine": 1}), condition)],
            replan_on=frozenset({"hot"}),
        )

    with pytest.raises(ApiError) as error:
        unit_of_work.commit(build, attempts=3)
    assert error.value.status == 503 and error.value.code == unit_of_work.LIST_BUSY
    assert "mine" not in _item("UOW#hot")


def test_nothing_to_do_writes_nothing(aws_env):
    assert unit_of_work.commit(lambda: None) is None
