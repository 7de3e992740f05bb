"""The user operation's transition table (models.UserOpRecord.machine) and the tracker's decisions
(settlement.decide / decide_refused / check) against a stand-in chain reader, on moto: no node, no bundler."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, TypeVar

import pytest

from chalicelib.gas_tanks import charges
from chalicelib.gas_tanks import store as tanks
from chalicelib.platform import aws, clock, networks
from chalicelib.platform.transitions import Move, UndeclaredMoveError, refused_moves, transition
from chalicelib.user_ops import settlement, store
from chalicelib.user_ops.chain import ChainUnavailableError
from chalicelib.user_ops.inclusion import UNDECIDED, Receipt, Verdict
from chalicelib.user_ops.models import UserOpRecord
from tests.support.networks import aa_network

MACHINE = UserOpRecord.machine
T = TypeVar("T")
CHAIN_ID = 31337
VALID_UNTIL = 2_000_000_000
DEDUCTED = 10**18
TX = "0x" + "cd" * 32


def operation(status: str, n: int = 0, **extra: Any) -> UserOpRecord:
    fields: dict[str, Any] = {
        **store.key(f"op-{n}"),
        "id": f"op-{n}",
        "status": status,
        "appId": "app",
        "chainId": CHAIN_ID,
        "userOpHash": "0x" + "ef" * 32,
        "validUntilEpoch": VALID_UNTIL,
        "ownerAddress": "0x" + "aa" * 20,
        "ownerId": "owner",
        "ownerTankId": "tank",
        "accountId": "account",
        "op": json.dumps({"sender": "0x" + "bb" * 20, "nonce": "0x0"}),
        "createdAt": "2026-01-01T00:00:00.000Z",
        # the rest of the wire's fields, as hash_operation writes them
        "updatedAt": None,
        "clientId": "client",
        "signature": None,
        "txHash": None,
        "type": "send_coin",
        "network": "local-a",
        "payer": None,
        "validUntil": clock.iso_at(VALID_UNTIL),
        "failedReason": None,
        "successAt": None,
        "failedAt": None,
        "sentAt": None,
    }
    return UserOpRecord.model_validate({**fields, **extra})


def in_flight(status: str, n: int = 0, **extra: Any) -> UserOpRecord:
    """As the submit leaves it (the charge, the block, the due index) for an operation past `created`."""
    if status == "created":
        return operation(status, n, **extra)
    due = {"duePk": "due", "dueAt": "2026-01-01T00:05:00.000Z"} if status == "on_process" else {}
    charge = {"payerTankId": "tank", "usageSeq": 1, "deducted": DEDUCTED, "deductedNative": 10**15}
    return operation(status, n, submittedBlock=7, **charge, **due, **extra)


def put(op: UserOpRecord) -> None:
    aws.write(aws.put("as-left", store.TABLE, op.to_item(), None))


def stored(op: UserOpRecord) -> dict[str, Any]:
    item: dict[str, Any] = aws.table(store.TABLE).get_item(Key=op.key(), ConsistentRead=True)["Item"]
    return item


def test_the_table_is_the_one_the_code_moves_along() -> None:
    assert {(m.source, m.target) for m in MACHINE.moves} == {
        ("created", "on_process"),
        ("created", "failed"),
        ("on_process", "on_process"),
        ("on_process", "success"),
        ("on_process", "failed"),
    }
    assert MACHINE.initial == {"created"} and MACHINE.final == {"success", "failed"}


@pytest.mark.parametrize("move", MACHINE.moves, ids=lambda m: f"{m.source}->{m.target}")
def test_every_declared_move_is_written_and_an_ended_operation_leaves_the_due_index(aws_env: None, move: Move) -> None:
    op = in_flight(move.source)
    put(op)
    changes: dict[str, Any] = (
        {"dueAt": "2026-01-01T00:10:00.000Z", "duePk": "due"} if move.target == "on_process" else {}
    )
    aws.write(transition(store.get(op.id) or op, move.target, updatedAt="2026-01-01T00:01:00.000Z", **changes))

    item = stored(op)
    assert item["status"] == move.target
    assert item["updatedAt"] == "2026-01-01T00:01:00.000Z"
    if move.target in MACHINE.final:
        assert "duePk" not in item and "dueAt" not in item
    else:
        assert item["dueAt"] == "2026-01-01T00:10:00.000Z"


@pytest.mark.parametrize("pair", refused_moves(MACHINE), ids=lambda p: f"{p[0]}->{p[1]}")
def test_every_undeclared_move_raises_before_writing(aws_env: None, pair: tuple[str, str]) -> None:
    source, target = pair
    op = in_flight(source)
    put(op)
    before = stored(op)
    with pytest.raises(UndeclaredMoveError):
        aws.write(transition(op, target))
    assert stored(op) == before


def test_a_move_from_a_status_the_record_has_left_is_a_lost_race(aws_env: None) -> None:
    op = in_flight("on_process")
    put(op)
    aws.write(transition(op, "success", successAt="now"))
    with pytest.raises(aws.ConditionFailedError):
        aws.write(transition(op, "failed", failedReason="late"))
    assert stored(op)["status"] == "success"


# The tracker's decisions, against a stand-in for the bundler and the node.


@dataclass
class FakeChain:
    """Answers as scripted; an Exception instance is raised instead. Records what was asked."""

    bundler: Receipt | Exception | None = None
    judged: Verdict | Exception = UNDECIDED
    holds: Receipt | Exception | None = None
    asked: list[str] = field(default_factory=list)

    def receipt(self, network: networks.Network, op: UserOpRecord) -> Receipt | None:
        self.asked.append("receipt")
        return self._or_raise(self.bundler)

    def verdict(self, network: networks.Network, op: UserOpRecord) -> Verdict:
        self.asked.append("verdict")
        return self._or_raise(self.judged)

    def included(self, network: networks.Network, op: UserOpRecord) -> Receipt | None:
        self.asked.append("included")
        return self._or_raise(self.holds)

    @staticmethod
    def _or_raise(answer: T | Exception) -> T:
        if isinstance(answer, Exception):
            raise answer
        return answer


DOWN = ChainUnavailableError("no endpoint reachable")
MINED = Receipt(success=True, actual_gas_cost=10**14, tx_hash=TX)
REVERTED = Receipt(success=False, actual_gas_cost=10**14, reason="0x", tx_hash=TX)
BEFORE = VALID_UNTIL + settlement.GRACE_S  # the last second the bundler's silence is not yet the chain's question
AFTER = BEFORE + 1


@pytest.fixture
def network(use_networks: Any) -> networks.Network:
    use_networks([aa_network("local-a", CHAIN_ID)])
    found = networks.registry().by_chain_id(CHAIN_ID)
    assert found is not None
    return found


def test_the_bundlers_receipt_settles_without_asking_the_chain(network: networks.Network) -> None:
    chain = FakeChain(bundler=MINED)
    assert settlement.decide(in_flight("on_process"), network, chain, BEFORE) == settlement.Decision(receipt=MINED)
    assert chain.asked == ["receipt"]


@pytest.mark.parametrize("bundler", [None, DOWN], ids=["no receipt", "bundler down"])
def test_before_valid_until_and_the_grace_the_tracker_looks_again(network: networks.Network, bundler: Any) -> None:
    chain = FakeChain(bundler=bundler, judged=Verdict(excluded=True))
    assert settlement.decide(in_flight("on_process"), network, chain, BEFORE) == settlement.LOOK_AGAIN
    assert chain.asked == ["receipt"]  # the chain is not asked yet: the operation may still be included


@pytest.mark.parametrize(
    ("judged", "expected"),
    [
        (Verdict(receipt=REVERTED), settlement.Decision(receipt=REVERTED)),
        (Verdict(excluded=True), settlement.Decision(failed_reason=settlement.EXPIRED)),
        (UNDECIDED, settlement.LOOK_AGAIN),
        (DOWN, settlement.LOOK_AGAIN),
    ],
    ids=["included", "never included", "undecided", "node down"],
)
def test_past_valid_until_the_chain_judges(network: networks.Network, judged: Any, expected: Any) -> None:
    chain = FakeChain(bundler=None, judged=judged)
    assert settlement.decide(in_flight("on_process"), network, chain, AFTER) == expected
    assert chain.asked == ["receipt", "verdict"]


def test_an_operation_whose_network_left_the_configuration_is_kept() -> None:
    chain = FakeChain(bundler=MINED)
    assert settlement.decide(in_flight("on_process"), None, chain, AFTER) == settlement.LOOK_AGAIN
    assert chain.asked == []


@pytest.mark.parametrize(
    ("holds", "expected"),
    [
        (MINED, settlement.Decision(receipt=MINED)),
        (None, settlement.Decision(failed_reason="AA25 invalid account nonce")),
        (DOWN, settlement.LOOK_AGAIN),
    ],
    ids=["the chain holds it", "refused for good", "chain unreadable: the tracker decides"],
)
def test_a_bundlers_refusal_at_submit(network: networks.Network, holds: Any, expected: Any) -> None:
    chain = FakeChain(holds=holds)
    op = in_flight("on_process")
    assert settlement.decide_refused(op, network, chain, "AA25 invalid account nonce") == expected


# A whole check, written to moto: the settlement's one transaction, once.


def charged(network: networks.Network, tenant: Any) -> UserOpRecord:
    """An operation in flight whose submit debited DEDUCTED from a tank left holding 5."""
    tank = tanks.new_tank("owner", "owner", "2026-01-01T00:00:00.000Z").model_copy(update={"balance": 5})
    aws.write(tanks.opened(tank))
    tank_id = tank.id
    cost = charges.charge(network, 10**15)
    usage = charges.usage_record(cost, network, tank_id, tenant.clientId, tenant.appId, "op-0", "2026")
    aws.write(aws.put("usage", tanks.TABLE, {**usage, **tanks.usage_key(tank_id, 1)}))
    op = operation(
        "on_process",
        appId=tenant.appId,
        submittedBlock=7,
        payerTankId=tank_id,
        usageSeq=1,
        deducted=cost.total,
        deductedNative=cost.native,
        duePk="due",
        dueAt=clock.iso_in(60),
    )
    put(op)
    return op


def test_a_check_settles_once_and_refunds_the_unspent_debit_to_the_payer(
    network: networks.Network, tenant: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(aws, "send_message", lambda *a, **k: pytest.fail("a settled operation queues no check"))
    op = charged(network, tenant)
    assert op.payerTankId is not None and op.deducted is not None
    chain = FakeChain(bundler=MINED)

    for _ in range(2):  # a message delivered twice
        settlement.check({"userOpId": op.id, "attempt": 1, "due": op.dueAt}, chain)

    item = stored(op)
    assert item["status"] == "success" and item["txHash"] == TX
    assert "duePk" not in item and "dueAt" not in item
    spent = charges.charge(network, MINED.actual_gas_cost).total
    tank = tanks.get_tank(op.payerTankId)
    assert tank is not None and tank.balance == 5 + op.deducted - spent
    usage = aws.table(tanks.TABLE).get_item(Key=tanks.usage_key(op.payerTankId, 1))["Item"]
    assert usage["refundedAmountInGasTank"] == str(op.deducted - spent)
    assert chain.asked == ["receipt"]  # the second delivery found it settled and read nothing


def test_a_check_without_a_verdict_moves_the_due_time_on_and_queues_the_next(
    network: networks.Network, tenant: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent: list[dict[str, Any]] = []
    monkeypatch.setattr(aws, "send_message", lambda queue, body, **k: sent.append(body))
    op = charged(network, tenant)
    aws.write(aws.update("age", store.TABLE, op.key(), aws.Changes(set={"dueAt": clock.iso_now()})))
    seen = str(stored(op)["dueAt"])

    settlement.check({"userOpId": op.id, "attempt": 1, "due": seen}, FakeChain(bundler=None))

    item = stored(op)
    assert item["status"] == "on_process" and item["dueAt"] > seen
    assert sent == [{"userOpId": op.id, "attempt": 2, "due": item["dueAt"]}]
    settlement.check({"userOpId": op.id, "attempt": 1, "due": seen}, FakeChain(bundler=MINED))  # a stale message
    assert stored(op)["status"] == "on_process"
