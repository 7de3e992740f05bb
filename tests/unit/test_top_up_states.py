"""The delayed top-up's two transition tables (models.TopUp, models.TopUpMarker), the check's judgement
(confirmations.judge) and a whole check written to moto, with the chain's proof stood in for: no node."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from chalicelib.gas_tanks import confirmations, service, store, verification
from chalicelib.gas_tanks.models import TopUp, TopUpMarker
from chalicelib.platform import aws, clock
from chalicelib.platform.deadline import DeadlineExceededError
from chalicelib.platform.errors import UPSTREAM_UNAVAILABLE, upstream_unavailable
from chalicelib.platform.transitions import Move, Stateful, UndeclaredMoveError, refused_moves, transition
from tests.support.networks import aa_network

CHAIN_ID = 31337
TX = "0x" + "ab" * 32
TANK = "tank-1"


def top_up(status: str, **extra: Any) -> TopUp:
    fields: dict[str, Any] = {
        **store.record_key(TANK, 1),
        "id": "top-up-1",
        "status": status,
        "chainId": CHAIN_ID,
        "txHash": TX,
        "gasTankId": TANK,
        "createdAt": "2026-01-01T00:00:00.000Z",
        "amount": "0",
        "signedText": f"{CHAIN_ID}.{TX}",
        "signature": "0x" + "11" * 65,
        "checkAttempt": 1,
    }
    if status == "pending":
        fields.update(duePk="due", dueAt=clock.iso_in(60))
    return TopUp.model_validate({**fields, **extra})


def marker(state: str, **extra: Any) -> TopUpMarker:
    fields: dict[str, Any] = {
        **store.marker_key(CHAIN_ID, TX),
        "state": state,
        "tankId": TANK,
        "topUpId": "top-up-1",
        "seq": 1,
        "createdAt": "2026-01-01T00:00:00.000Z",
    }
    return TopUpMarker.model_validate({**fields, **extra})


def put(record: Stateful) -> None:
    aws.write(aws.put("as-left", store.TABLE, record.to_item(), None))


def stored(record: Stateful) -> dict[str, Any]:
    item: dict[str, Any] = aws.table(store.TABLE).get_item(Key=record.key(), ConsistentRead=True)["Item"]
    return item


def test_the_tables_are_the_ones_the_code_moves_along() -> None:
    assert {(m.source, m.target) for m in TopUp.machine.moves} == {
        ("pending", "pending"),
        ("pending", "success"),
        ("pending", "failed"),
    }
    assert TopUp.machine.initial == {"pending", "success"}
    assert {(m.source, m.target) for m in TopUpMarker.machine.moves} == {
        ("pending", "credited"),
        ("pending", "failed"),
        ("failed", "pending"),
        ("failed", "credited"),
    }
    assert TopUpMarker.machine.attribute == "state" and TopUpMarker.machine.final == {"credited"}


@pytest.mark.parametrize("move", TopUp.machine.moves, ids=lambda m: f"{m.source}->{m.target}")
def test_every_declared_move_of_the_record_is_written(aws_env: None, move: Move) -> None:
    record = top_up(move.source)
    put(record)
    aws.write(transition(record, move.target, expect={"id": record.id}, checkAttempt=2))

    item = stored(record)
    assert item["status"] == move.target and item["checkAttempt"] == 2
    assert ("dueAt" in item) is (move.target == "pending")  # an ended top-up leaves the due index


@pytest.mark.parametrize("move", TopUpMarker.machine.moves, ids=lambda m: f"{m.source}->{m.target}")
def test_every_declared_move_of_the_marker_is_written(aws_env: None, move: Move) -> None:
    held = marker(move.source)
    put(held)
    aws.write(transition(held, move.target, expect={"topUpId": held.topUpId}))
    assert stored(held)["state"] == move.target


@pytest.mark.parametrize(
    ("make", "pair"),
    [(top_up, p) for p in refused_moves(TopUp.machine)] + [(marker, p) for p in refused_moves(TopUpMarker.machine)],
    ids=lambda v: v.__name__ if callable(v) else f"{v[0]}->{v[1]}",
)
def test_every_undeclared_move_raises_before_writing(
    aws_env: None, make: Callable[[str], Stateful], pair: tuple[str, str]
) -> None:
    source, target = pair
    record = make(source)
    put(record)
    before = stored(record)
    with pytest.raises(UndeclaredMoveError):
        aws.write(transition(record, target))
    assert stored(record) == before


def test_a_marker_another_top_up_took_is_not_moved(aws_env: None) -> None:
    put(marker("pending", topUpId="another"))
    with pytest.raises(aws.ConditionFailedError):
        aws.write(transition(marker("pending"), "credited", expect={"topUpId": "top-up-1"}))


# The judgement of one check, given what the chain proves.


def proof(answer: int | Exception) -> Callable[[], int]:
    def proven() -> int:
        if isinstance(answer, Exception):
            raise answer
        return answer

    return proven


NOT_MINED = verification.TopUpRefusedError(verification.TX_NOT_FOUND, "not mined")
UNCONFIRMED = verification.TopUpRefusedError(verification.TX_NOT_CONFIRMED, "1 of 3")
REVERTED = verification.TopUpRefusedError(verification.TX_FAILED, "failed on chain")
NODE_DOWN = upstream_unavailable(UPSTREAM_UNAVAILABLE, "no node reachable")


@pytest.mark.parametrize(
    ("answer", "attempt", "expected"),
    [
        (1_000_000, 1, confirmations.Judgement(amount=1_000_000)),
        (NOT_MINED, 1, confirmations.AGAIN),
        (UNCONFIRMED, 4, confirmations.AGAIN),
        (NOT_MINED, 5, confirmations.Judgement(failed=confirmations.OUT_OF_CHECKS)),
        (REVERTED, 1, confirmations.Judgement(failed=verification.TX_FAILED)),
        (NODE_DOWN, 1, confirmations.AGAIN),
        (NODE_DOWN, 5, confirmations.Judgement(failed=UPSTREAM_UNAVAILABLE)),
        (DeadlineExceededError("rpc call"), 2, confirmations.AGAIN),
    ],
    ids=[
        "proven and final",
        "not mined yet",
        "not final yet",
        "out of checks",
        "refuted: at once",
        "node down",
        "node down at the last check",
        "out of time",
    ],
)
def test_the_judgement_of_a_check(answer: Any, attempt: int, expected: confirmations.Judgement) -> None:
    assert confirmations.judge(proof(answer), attempt, attempts=5) == expected


def test_a_fault_that_is_not_the_chains_is_not_waited_out() -> None:
    with pytest.raises(KeyError):
        confirmations.judge(proof(KeyError("a bug")), 1, attempts=5)


# Whole checks, written to moto; the chain's proof is stood in for.


@pytest.fixture
def pending(aws_env: None, use_networks: Any, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """A delayed top-up as the request leaves it: its record pending and due, the marker taken, an empty tank."""
    use_networks([aa_network("local-a", CHAIN_ID)])
    aws.write(store.opened(store.new_tank("owner", "owner").model_copy(update=store.tank_key(TANK))))
    put(top_up("pending"))
    put(marker("pending"))
    sent: list[dict[str, Any]] = []
    monkeypatch.setattr(aws, "send_message", lambda queue, body, **k: sent.append(body))
    return {"message": service.check_message(stored(top_up("pending"))), "sent": sent}


def prove_with(monkeypatch: pytest.MonkeyPatch, answer: int | Exception) -> None:
    def prove(*args: Any) -> Any:
        if isinstance(answer, Exception):
            raise answer
        return verification.Proven(sender="0x" + "aa" * 20, amount=answer, mined=None)  # type: ignore[arg-type]

    monkeypatch.setattr(verification, "prove", prove)
    monkeypatch.setattr(verification, "require_final", lambda network, proven: None)


def balance() -> int:
    tank = store.get_tank(TANK)
    assert tank is not None
    return tank.balance


def test_a_final_top_up_is_credited_once(pending: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    prove_with(monkeypatch, 2_500_000)  # 2.5 USDT at 6 decimals
    for _ in range(2):  # a message delivered twice
        confirmations.check(pending["message"])

    assert balance() == 2_500_000 * 10**12
    assert stored(marker("pending"))["state"] == "credited"
    record = stored(top_up("pending"))
    assert record["status"] == "success" and record["amount"] == "2500000"
    assert "dueAt" not in record and "duePk" not in record
    assert pending["sent"] == []


def test_a_check_without_a_word_moves_the_due_time_on_and_queues_the_next(
    pending: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    prove_with(monkeypatch, NODE_DOWN)
    confirmations.check(pending["message"])

    record = stored(top_up("pending"))
    assert record["status"] == "pending" and record["checkAttempt"] == 2
    assert record["dueAt"] != pending["message"]["due"]
    assert [m["due"] for m in pending["sent"]] == [record["dueAt"]]
    confirmations.check(pending["message"])  # the same message again: its chain was moved on, it ends
    assert stored(top_up("pending"))["checkAttempt"] == 2 and len(pending["sent"]) == 1


def test_a_refuted_top_up_fails_and_frees_its_transaction(
    pending: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    prove_with(monkeypatch, REVERTED)
    confirmations.check(pending["message"])

    assert balance() == 0
    assert stored(marker("pending"))["state"] == "failed"
    record = stored(top_up("pending"))
    assert record["status"] == "failed" and record["failedReason"] == verification.TX_FAILED
    assert "dueAt" not in record
