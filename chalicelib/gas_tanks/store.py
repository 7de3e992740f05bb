"""Gas tanks in table `gas-tanks`.

- `TANK#<id>` / `TANK`: a tank; `balance` is a Number in base units of the tank currency (never negative:
  every debit is conditional), `holder` the owner record id or the client id, `kind` owner|client.
- `CLIENT#<clientId>` / `TANK`: the organization tank of a client (`tankId`), created on first use.
- `TOPUPS#<tankId>` and `USAGE#<tankId>`: the tank's top-up and usage lists (platform/pagination).
- `TOPUPTX#<chainId>#<txHash>` / `USED`: the service-wide marker of a transaction a top-up used, any tenant,
  either kind of tank (`state` pending|credited|failed, `tankId`, `topUpId`, `seq`).
A pending top-up's record also keeps what its checks need (`signedText`, `signature`, `checkAttempt`) and, while
pending, `duePk`/`dueAt`: the table's sparse index `due` (platform/due.py) by which the schedule finds a top-up
whose checks went quiet; the transaction that ends it removes them.

Every write of a tank's balance is built here (`debit`, `credit`) and committed inside its caller's plan, with the
record that explains it.
"""

from __future__ import annotations

import uuid
from typing import Any

from chalicelib.gas_tanks import models
from chalicelib.gas_tanks.models import Tank, TopUp, TopUpMarker
from chalicelib.platform import aws, unit_of_work
from chalicelib.platform.cache import TtlCache
from chalicelib.platform.clock import iso_now
from chalicelib.platform.pagination import AppendOnlyList, sequence_key
from chalicelib.platform.unit_of_work import Plan

TABLE = models.TABLE
# The tank currency is USDT at 18 decimals: a top-up of any network's USDT (6 decimals on Ethereum, 18 on BSC)
# converts by multiplying, exactly; docs/smart-accounts.md.
DECIMALS = 18
TOKEN_NAME = "USDT"
_CLIENT_TANK_IDS: TtlCache[str, str] = TtlCache("client-tank-ids", None, max_entries=4096)


def tank_key(tank_id: str) -> dict[str, str]:
    return {"pk": f"TANK#{tank_id}", "sk": "TANK"}


def new_tank(kind: str, holder: str, now: str | None = None) -> Tank:
    """An empty tank (not written: `opened` is its put)."""
    return Tank(
        **tank_key(str(uuid.uuid4())),
        kind=kind,
        holder=holder,
        balance=0,
        type="token",
        tokenName=TOKEN_NAME,
        decimals=DECIMALS,
        createdAt=now or iso_now(),
        updatedAt=None,
    )


def opened(tank: Tank) -> aws.TxItem:
    """The put of a new tank: item `tank`."""
    return aws.put("tank", TABLE, tank.to_item())


def debit(tank_id_: str, amount: int, now: str) -> aws.TxItem:
    """Take `amount` from the tank, only if it holds that much (the balance never goes below zero): item `tank`,
    whose failed condition means the tank holds less."""
    return aws.update(
        "tank",
        TABLE,
        tank_key(tank_id_),
        aws.Changes(add={"balance": -amount}, set={"updatedAt": now}),
        aws.Condition("balance >= :cost", values={":cost": amount}),
    )


def credit(tank_id_: str, amount: int, now: str) -> aws.TxItem:
    """Add `amount` to an existing tank (a top-up, or the unspent part of a user operation's debit): item `tank`."""
    return aws.update(
        "tank",
        TABLE,
        tank_key(tank_id_),
        aws.Changes(add={"balance": amount}, set={"updatedAt": now}),
        aws.EXISTS,
    )


def get_tank(tank_id_: str) -> Tank | None:
    item = aws.table(TABLE).get_item(Key=tank_key(tank_id_), ConsistentRead=True).get("Item")
    return Tank.from_item(item) if item is not None else None


def client_tank(client_id: str) -> Tank:
    """The organization tank of a client, created (once, whatever the concurrency) on first use."""
    pointer_key = _pointer_key(client_id)
    pointer = aws.table(TABLE).get_item(Key=pointer_key, ConsistentRead=True).get("Item")
    if pointer is None:
        tank = new_tank("client", client_id)
        try:
            unit_of_work.commit(
                Plan(
                    items=[
                        aws.put("pointer", TABLE, {**pointer_key, "tankId": tank.id}),
                        opened(tank),
                    ]
                )
            )
            return tank
        except aws.TransactionCancelledError as exc:
            if "pointer" not in exc.old:
                raise
            pointer = exc.old["pointer"]
    found = get_tank(str(pointer["tankId"]))
    if found is None:
        raise RuntimeError("organization tank pointer without a tank")
    return found


def client_tank_balance(client_id: str) -> int:
    """The organization tank's balance, without making the tank (0 when it has none yet)."""
    pointer = aws.table(TABLE).get_item(Key=_pointer_key(client_id), ConsistentRead=True).get("Item")
    tank = get_tank(str(pointer["tankId"])) if pointer is not None else None
    return tank.balance if tank is not None else 0


def client_tank_id(client_id: str) -> str:
    """The id of the client's organization tank (made on first use); a client's tank never changes, so a warm
    function asks once."""
    known = _CLIENT_TANK_IDS.get(client_id)
    return known if known is not None else _CLIENT_TANK_IDS.put(client_id, client_tank(client_id).id)


def _pointer_key(client_id: str) -> dict[str, str]:
    return {"pk": f"CLIENT#{client_id}", "sk": "TANK"}


def topups(tank_id_: str) -> AppendOnlyList:
    return AppendOnlyList(TABLE, f"TOPUPS#{tank_id_}")


def usage(tank_id_: str) -> AppendOnlyList:
    return AppendOnlyList(TABLE, f"USAGE#{tank_id_}")


def usage_key(tank_id_: str, seq: int) -> dict[str, str]:
    """The usage record at `seq` of the tank's usage list."""
    return {"pk": usage(tank_id_).list_key, "sk": sequence_key(seq)}


def usage_settled(tank_id_: str, seq: int, changes: dict[str, str]) -> aws.TxItem:
    """The usage record's actual amounts and refund, once its operation is settled: item `usage`."""
    return aws.update("usage", TABLE, usage_key(tank_id_, seq), aws.Changes(set=changes), aws.EXISTS)


def usage_records(refs: list[tuple[str, int]]) -> list[dict[str, Any]]:
    """The usage records at (tank id, seq), in one batch; missing ones are left out."""
    return aws.batch_get(TABLE, [usage_key(t, s) for t, s in refs]) if refs else []


def marker_key(chain_id: int, tx_hash: str) -> dict[str, str]:
    return {"pk": f"TOPUPTX#{chain_id}#{tx_hash.lower()}", "sk": "USED"}


def record_key(tank_id_: str, seq: int) -> dict[str, str]:
    """The top-up record at `seq` of the tank's top-up list (the one a transaction's marker names)."""
    return {"pk": topups(tank_id_).list_key, "sk": sequence_key(seq)}


def get_record(tank_id_: str, seq: int) -> TopUp | None:
    item = aws.table(TABLE).get_item(Key=record_key(tank_id_, seq), ConsistentRead=True).get("Item")
    return TopUp.from_item(item) if item is not None else None


def get_marker(chain_id: int, tx_hash: str) -> TopUpMarker | None:
    item = aws.table(TABLE).get_item(Key=marker_key(chain_id, tx_hash), ConsistentRead=True).get("Item")
    return TopUpMarker.from_item(item) if item is not None else None
