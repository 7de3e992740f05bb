"""Typed records and declared transitions (platform/records.py, platform/transitions.py), against moto."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from boto3.dynamodb.conditions import Key
from pydantic import ValidationError

from chalicelib.platform import aws
from chalicelib.platform.records import Record
from chalicelib.platform.transitions import (
    ABSENT,
    Machine,
    Move,
    Stateful,
    UndeclaredMoveError,
    condition,
    create,
    moved,
    refused_moves,
    transition,
)

TABLE = "custody"


class Payout(Stateful):
    """A sample kind shaped like a withdrawal: indexed by status, `failed` left only when kept for review."""

    machine = Machine(
        name="payout",
        table=TABLE,
        states=frozenset({"pending", "sending", "sent", "success", "failed"}),
        initial=frozenset({"pending"}),
        final=frozenset({"success", "failed"}),
        moves=(
            Move("pending", "sending"),
            Move("sending", "sending"),
            Move("sending", "pending"),
            Move("sending", "sent"),
            Move("sending", "failed"),
            Move("sent", "sent"),
            Move("sent", "pending"),
            Move("sent", "success"),
            Move("sent", "failed"),
            Move("failed", "success", requires={"released": False}),
            Move("failed", "failed", requires={"released": False}),
        ),
    )

    id: str
    appId: str
    status: str
    amountInDecimals: int
    attempts: int = 0
    released: bool | None = None
    createdAt: str = "2024-01-01T00:00:00.000Z"
    updatedAt: str | None = None

    def status_index(self) -> aws.Changes:
        return aws.Changes(
            set={"statusKey": f"PAYOUT#{self.appId}#{self.status}", "listKey": f"{self.createdAt}#{self.id}"}
        )


class Tracked(Stateful):
    """A sample kind shaped like a sent transaction: every move is conditional on its version."""

    machine = Machine(
        name="record",
        table="wallet-transactions",
        states=frozenset({"signing", "pending", "mined", "failed", "dropped"}),
        initial=frozenset({"signing"}),
        final=frozenset({"failed", "dropped"}),
        moves=(
            Move("signing", "signing"),
            Move("signing", "pending"),
            Move("signing", "dropped"),
            Move("pending", "pending"),
            Move("pending", "mined"),
            Move("pending", "failed"),
            Move("pending", "dropped"),
            Move("mined", "pending"),
        ),
        version="version",
    )

    hash: str
    status: str
    checks: int = 0


def payout(status: str, n: int = 0, **extra: Any) -> Payout:
    return Payout(
        pk=f"PAYOUT#{n}", sk="PAYOUT", id=str(n), appId="app", status=status, amountInDecimals=10**30, **extra
    )


def stored(record: Record) -> dict[str, Any]:
    item: dict[str, Any] = aws.table(TABLE).get_item(Key=record.key(), ConsistentRead=True)["Item"]
    return item


def put(record: Stateful) -> None:
    """A record as the domain left it in its state (index attributes included)."""
    aws.write(aws.put("as-left", TABLE, {**record.to_item(), **record.status_index().set}, None))


def kept(source: str) -> dict[str, Any]:
    return {"released": False} if source == "failed" else {}


@pytest.mark.parametrize("move", Payout.machine.moves, ids=lambda m: f"{m.source}->{m.target}")
def test_every_declared_move_writes_the_status_and_its_index_keys(aws_env: None, move: Move) -> None:
    record = payout(move.source, **kept(move.source))
    put(record)
    aws.write(transition(Payout.from_item(stored(record)), move.target, attempts=3))

    item = stored(record)
    assert item["status"] == move.target
    assert item["statusKey"] == f"PAYOUT#app#{move.target}"
    assert item["listKey"] == "2024-01-01T00:00:00.000Z#0"
    assert item["attempts"] == 3 and item["updatedAt"]
    listed = aws.table(TABLE).query(IndexName="status", KeyConditionExpression=Key("statusKey").eq(item["statusKey"]))
    assert [i["id"] for i in listed["Items"]] == ["0"]


@pytest.mark.parametrize("pair", refused_moves(Payout.machine), ids=lambda p: f"{p[0]}->{p[1]}")
def test_every_undeclared_move_raises_before_writing(aws_env: None, pair: tuple[str, str]) -> None:
    source, target = pair
    record = payout(source, **kept(source))
    put(record)
    before = stored(record)
    with pytest.raises(UndeclaredMoveError):
        aws.write(transition(record, target, attempts=3))
    assert stored(record) == before


def test_a_final_state_is_left_only_when_the_move_requires_it(aws_env: None) -> None:
    released = payout("failed", released=True)
    put(released)
    with pytest.raises(UndeclaredMoveError, match="released"):
        transition(released, "success")
    # The store is the judge too: a record released meanwhile refuses the reviewer's move.
    kept_one = payout("failed", 1, released=False)
    put(kept_one)
    aws.write(transition(kept_one, "failed", released=True))
    with pytest.raises(aws.ConditionFailedError):
        aws.write(transition(kept_one, "success"))
    assert stored(kept_one)["status"] == "failed"


def test_a_record_that_moved_meanwhile_fails_the_write_by_the_tables_item_name(aws_env: None) -> None:
    record = payout("pending")
    put(record)
    read_by_one, read_by_other = Payout.from_item(stored(record)), Payout.from_item(stored(record))
    aws.transact([transition(read_by_one, "sending", attempts=1)])
    with pytest.raises(aws.TransactionCancelledError) as lost:
        aws.transact(
            [transition(read_by_other, "sending", attempts=1), aws.put("other", TABLE, {"pk": "X", "sk": "X"})]
        )
    assert lost.value.condition_failed("payout")
    assert not lost.value.condition_failed("other")
    assert aws.table(TABLE).get_item(Key={"pk": "X", "sk": "X"}).get("Item") is None


def test_expect_guards_attributes_as_read_and_their_absence(aws_env: None) -> None:
    record = payout("sending", attempts=1)
    put(record)
    with pytest.raises(aws.ConditionFailedError):
        aws.write(transition(record, "pending", expect={"attempts": 2}))
    with pytest.raises(aws.ConditionFailedError):
        aws.write(transition(record, "pending", expect={"attempts": ABSENT}))
    aws.write(transition(record, "sent", expect={"attempts": 1, "txHash": ABSENT}, txHash="0xabc"))
    assert stored(record)["txHash"] == "0xabc"


def test_removed_attributes_leave_the_item(aws_env: None) -> None:
    record = payout("sent", txHash="0xabc", lease="l")
    put(record)
    aws.write(transition(record, "pending", remove=("txHash", "lease")))
    item = stored(record)
    assert "txHash" not in item and "lease" not in item and item["status"] == "pending"
    with pytest.raises(ValueError, match="both set and removed"):
        transition(record, "pending", remove=("txHash",), txHash="0x1")
    with pytest.raises(ValueError, match="itself"):
        transition(record, "pending", status="success")


def test_changes_are_typed_by_the_record(aws_env: None) -> None:
    with pytest.raises(ValidationError):
        transition(payout("pending"), "sending", attempts="many")


def test_versioned_moves_fail_on_any_change_since_the_read(aws_env: None) -> None:
    table = aws.table("wallet-transactions")
    first = Tracked(pk="TX#0xa", sk="TX", hash="0xa", status="signing", version=0)
    aws.write(create(first))
    read = Tracked.from_item(table.get_item(Key=first.key())["Item"])
    aws.write(transition(read, "signing", checks=1))  # a tracker step: same status, version moves on
    with pytest.raises(aws.ConditionFailedError):
        aws.write(transition(read, "dropped"))  # the read is stale though its status is the same
    # A writer that did not read the version (the send's claim) is guarded by the status alone.
    aws.write(transition(read, "pending", any_version=True))
    item = table.get_item(Key=first.key())["Item"]
    assert (item["status"], item["version"], item["checks"]) == ("pending", 2, 1)
    with pytest.raises(aws.ConditionFailedError):
        aws.write(transition(read, "pending", any_version=True))  # no longer `signing`


def test_a_versioned_record_without_its_version_is_refused_before_writing(aws_env: None) -> None:
    table = aws.table("wallet-transactions")
    table.put_item(Item={"pk": "TX#0xb", "sk": "TX", "hash": "0xb", "status": "pending"})
    read = Tracked.from_item(table.get_item(Key={"pk": "TX#0xb", "sk": "TX"})["Item"])
    for any_version in (False, True):
        with pytest.raises(TypeError, match="version"):
            transition(read, "mined", any_version=any_version)
    with pytest.raises(TypeError, match="version"):
        condition(read, "mined")
    with pytest.raises(TypeError, match="version"):
        create(Tracked(pk="TX#0xc", sk="TX", hash="0xc", status="signing"))
    assert table.get_item(Key=read.key())["Item"] == {"pk": "TX#0xb", "sk": "TX", "hash": "0xb", "status": "pending"}


def test_create_puts_a_new_record_in_an_initial_state_once(aws_env: None) -> None:
    record = payout("pending", 7)
    aws.write(create(record))
    assert stored(record)["statusKey"] == "PAYOUT#app#pending"
    with pytest.raises(aws.TransactionCancelledError) as again:
        aws.transact([create(record)])
    assert again.value.condition_failed("payout")
    with pytest.raises(UndeclaredMoveError):
        create(payout("sent", 8))


def test_moved_is_the_record_as_the_write_leaves_it(aws_env: None) -> None:
    record = payout("sending", attempts=1, lease="l")
    put(record)
    after = moved(record, "sent", remove=("lease",), txHash="0xabc")
    aws.write(transition(record, "sent", remove=("lease",), txHash="0xabc"))
    expected = {k: v for k, v in after.to_item().items() if k != "updatedAt"}
    assert {k: v for k, v in Payout.from_item(stored(record)).to_item().items() if k != "updatedAt"} == expected
    assert after.status_index().set["statusKey"] == "PAYOUT#app#sent"


def test_from_item_and_to_item_round_trip_with_decimals(aws_env: None) -> None:
    uint256 = 2**256 - 1  # beyond DynamoDB's 38 digits: stored as a string, as the domains do
    record = payout("pending", 3, blockNumber=12, rate=Decimal("0.5"), nested={"n": 5, "l": [1, Decimal("2.25")]})
    record = Payout.from_item({**record.to_item(), "amountInDecimals": 10**37 + 1, "big": str(uint256)})
    put(record)
    item = stored(record)
    assert isinstance(item["amountInDecimals"], Decimal)  # what DynamoDB answers
    back = Payout.from_item(item)
    assert back.amountInDecimals == 10**37 + 1 and type(back.amountInDecimals) is int
    assert type(back.attempts) is int
    extra = back.to_item()
    assert extra["blockNumber"] == 12 and type(extra["blockNumber"]) is int
    assert extra["rate"] == Decimal("0.5") and extra["nested"] == {"n": 5, "l": [1, Decimal("2.25")]}
    assert int(extra["big"]) == uint256
    assert {k: v for k, v in extra.items() if k not in ("statusKey", "listKey")} == record.to_item()
    assert "updatedAt" not in extra  # a default None is not written; an explicit None is
    assert Payout.from_item({**item, "updatedAt": None}).to_item()["updatedAt"] is None


def test_a_table_must_be_consistent() -> None:
    with pytest.raises(ValueError, match="not among"):
        Machine("x", TABLE, frozenset({"a"}), frozenset({"a"}), frozenset(), (Move("a", "b"),))
    with pytest.raises(ValueError, match="unconditional"):
        Machine("x", TABLE, frozenset({"a", "b"}), frozenset({"a"}), frozenset({"b"}), (Move("b", "a"),))
    with pytest.raises(ValueError, match="twice"):
        Machine("x", TABLE, frozenset({"a", "b"}), frozenset({"a"}), frozenset(), (Move("a", "b"), Move("a", "b")))


def test_condition_serves_a_domains_own_put() -> None:
    cond = condition(payout("failed", released=False), "success")
    assert cond.expression == "#st = :st AND #e0 = :e0"
    assert dict(cond.values) == {":st": "failed", ":e0": False}
