"""Records with a status that moves only along a declared table, one conditional write per move.

A domain declares its table as data (`Machine`: the states, the moves, the initial and final states) on its
record class (`Stateful`), and writes every move with `transition(record, to, **changes)`: the update that sets
the new status and the changes, rewrites the record's status-index attributes (`Stateful.status_index`), and is
conditional on the record still being in the status it was read in (and at its version, when the table keeps
one). The item carries the table's `name`, so `aws.TransactionCancelledError.condition_failed(name)` (or
`aws.ConditionFailedError` for a single write) says that the record moved meanwhile. A move the table does not
declare raises UndeclaredMoveError before anything is written: it is a programming error, not a lost race.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final, TypeVar

from chalicelib.platform import aws, clock
from chalicelib.platform.records import Record


class _Absent:
    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Final = _Absent()  # in `requires`/`expect`: the record must not have the attribute


class UndeclaredMoveError(Exception):
    """A move its table does not declare (or whose requirements the record does not meet): a programming error."""


@dataclass(frozen=True)
class Move:
    """An allowed move. `requires`: attributes the record must hold for it (ABSENT: must lack), checked on the
    record in hand and again in the write's condition; e.g. a final state left only by a record kept aside."""

    source: str
    target: str
    requires: Mapping[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class Machine:
    """A record kind's transition table, and where and how its moves are written.

    `name`: the transaction item's name for every move (stable: callers test `condition_failed(name)`);
    `attribute`: the status attribute; `version`: an attribute every record is created with, that every move adds
    1 to and conditions on as read (None: the status alone guards a move; a record without it is a TypeError);
    `stamp`: an attribute set to the time of each move (None: none)."""

    name: str
    table: str
    states: frozenset[str]
    initial: frozenset[str]
    final: frozenset[str]
    moves: tuple[Move, ...]
    attribute: str = "status"
    version: str | None = None
    stamp: str | None = "updatedAt"

    def __post_init__(self) -> None:
        declared = self.initial | self.final | {s for m in self.moves for s in (m.source, m.target)}
        if undeclared := declared - self.states:
            raise ValueError(f"{self.name}: states {sorted(undeclared)} are not among its states")
        pairs = [(m.source, m.target) for m in self.moves]
        if len(set(pairs)) != len(pairs):
            raise ValueError(f"{self.name}: a move is declared twice")
        leaving = [m for m in self.moves if m.source in self.final and not m.requires]
        if leaving:
            raise ValueError(f"{self.name}: final state {leaving[0].source!r} has an unconditional move")

    def move(self, source: str, target: str) -> Move:
        """The declared move, or UndeclaredMoveError."""
        for candidate in self.moves:
            if candidate.source == source and candidate.target == target:
                return candidate
        raise UndeclaredMoveError(f"{self.name}: no move from {source!r} to {target!r}")

    def allows(self, source: str, target: str) -> bool:
        return any(m.source == source and m.target == target for m in self.moves)


class Stateful(Record):
    """A record whose status moves along its class's `machine`."""

    machine: ClassVar[Machine]

    def status_index(self) -> aws.Changes:
        """The attributes that index the record in its status (rewritten by every move), or removed by it."""
        return aws.Changes()


S = TypeVar("S", bound=Stateful)


def status_of(record: Stateful) -> str:
    """The record's status, whatever its table calls the attribute."""
    machine = type(record).machine
    value = record.to_item().get(machine.attribute)
    if not isinstance(value, str):
        raise TypeError(f"{machine.name}: status {machine.attribute!r} is {value!r}")
    return value


def _version_of(record: Stateful) -> int:
    """The record's version, for a table that keeps one (every record of such a table is written with it)."""
    machine = type(record).machine
    value = record.to_item().get(machine.version) if machine.version is not None else None
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{machine.name}: version {machine.version!r} is {value!r}")
    return value


def moved(record: S, to: str, *, remove: Sequence[str] = (), **changes: Any) -> S:
    """The record as the move to `to` leaves it (validated: a change of the wrong type raises here)."""
    machine = type(record).machine
    _allowed(record, to)
    reserved = {machine.attribute, "pk", "sk", *([machine.version] if machine.version else [])}
    if clash := reserved & (set(changes) | set(remove)):
        raise ValueError(f"{machine.name}: a move may not change {sorted(clash)} itself")
    if overlap := set(changes) & set(remove):
        raise ValueError(f"{machine.name}: {sorted(overlap)} both set and removed")
    item = {k: v for k, v in record.to_item().items() if k not in remove}
    item.update(changes)
    item[machine.attribute] = to
    if machine.stamp is not None and machine.stamp not in changes:
        item[machine.stamp] = clock.iso_now()
    if machine.version is not None:
        item[machine.version] = _version_of(record) + 1
    index = type(record).model_validate(item).status_index()
    item = {k: v for k, v in item.items() if k not in index.remove}
    return type(record).model_validate({**item, **index.set})


def transition(
    record: S,
    to: str,
    *,
    remove: Sequence[str] = (),
    expect: Mapping[str, object] | None = None,
    any_version: bool = False,
    **changes: Any,
) -> aws.TxItem:
    """The update that moves `record` (as read) to `to` with `changes` (attribute -> value) and without the
    attributes `remove`, for `aws.transact`/`aws.write`. Conditional on the record's status as read, its
    version as read (unless `any_version`: a writer that did not read it, e.g. before a broadcast), the move's
    `requires`, and `expect` (attribute -> value as read; ABSENT: must lack it, e.g. a lease or a due time).
    The status-index attributes follow the new status. UndeclaredMoveError, before any write, for a move the
    table does not declare."""
    machine = type(record).machine
    after = moved(record, to, remove=remove, **changes)
    values = after.model_dump(mode="python")
    index = after.status_index()
    written = [machine.attribute, *changes, *index.set, *([machine.stamp] if machine.stamp else [])]
    update = aws.Changes(
        set={k: values[k] for k in dict.fromkeys(written)},
        add={machine.version: 1} if machine.version else {},
        remove=[*dict.fromkeys([*remove, *index.remove])],
    )
    return aws.update(machine.name, machine.table, record.key(), update, condition(record, to, expect, any_version))


def condition(
    record: Stateful, to: str, expect: Mapping[str, object] | None = None, any_version: bool = False
) -> aws.Condition:
    """The condition of the move of `record` to `to` (also for a domain's own put that replaces the record)."""
    machine = type(record).machine
    move = _allowed(record, to)
    clauses = ["#st = :st"]
    names = {"#st": machine.attribute}
    values: dict[str, Any] = {":st": status_of(record)}
    if machine.version is not None and not any_version:
        clauses.append("#ver = :ver")
        names["#ver"] = machine.version
        values[":ver"] = _version_of(record)
    for n, (attribute, value) in enumerate({**move.requires, **(expect or {})}.items()):
        names[f"#e{n}"] = attribute
        if value is ABSENT:
            clauses.append(f"attribute_not_exists(#e{n})")
        else:
            clauses.append(f"#e{n} = :e{n}")
            values[f":e{n}"] = value
    return aws.Condition(" AND ".join(clauses), names, values)


def create(record: Stateful) -> aws.TxItem:
    """The put of a new record in an initial state, with its status-index attributes; fails if it exists."""
    machine = type(record).machine
    if status_of(record) not in machine.initial:
        raise UndeclaredMoveError(f"{machine.name}: a record is not created in {status_of(record)!r}")
    if machine.version is not None:
        _version_of(record)
    index = record.status_index()
    item = {k: v for k, v in record.to_item().items() if k not in index.remove}
    return aws.put(machine.name, machine.table, {**item, **index.set})


def refused_moves(machine: Machine) -> Collection[tuple[str, str]]:
    """Every (source, target) pair the table does not declare (for tests of the declared table)."""
    return [(a, b) for a in sorted(machine.states) for b in sorted(machine.states) if not machine.allows(a, b)]


def _allowed(record: Stateful, to: str) -> Move:
    machine = type(record).machine
    source = status_of(record)
    move = machine.move(source, to)
    item = record.to_item()
    for attribute, value in move.requires.items():
        held = item.get(attribute, ABSENT)
        if held != value and not (value is ABSENT and held is ABSENT):
            raise UndeclaredMoveError(
                f"{machine.name}: {source!r} -> {to!r} requires {attribute}={value!r}, the record has {held!r}"
            )
    return move
