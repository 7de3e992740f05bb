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
"""

from __future__ import annotations

import uuid
from typing import Any

from chalicelib.platform import aws
from chalicelib.platform.clock import iso_now
from chalicelib.platform.pagination import AppendOnlyList, sequence_key

TABLE = "gas-tanks"
# The tank currency is USDT at 18 decimals: a top-up of any network's USDT (6 decimals on Ethereum, 18 on BSC)
# converts by multiplying, exactly; docs/smart-accounts.md.
DECIMALS = 18
TOKEN_NAME = "USDT"


def tank_key(tank_id: str) -> dict[str, str]:
    return {"pk": f"TANK#{tank_id}", "sk": "TANK"}


def new_tank(kind: str, holder: str) -> dict[str, Any]:
    now = iso_now()
    return {
        **tank_key(str(uuid.uuid4())),
        "kind": kind,
        "holder": holder,
        "balance": 0,
        "type": "token",
        "tokenName": TOKEN_NAME,
        "decimals": DECIMALS,
        "createdAt": now,
        "updatedAt": None,
    }


def tank_id(item: dict[str, Any]) -> str:
    return str(item["pk"]).removeprefix("TANK#")


def get_tank(tank_id_: str) -> dict[str, Any] | None:
    item: dict[str, Any] | None = aws.table(TABLE).get_item(Key=tank_key(tank_id_), ConsistentRead=True).get("Item")
    return item


def client_tank(client_id: str) -> dict[str, Any]:
    """The organization tank of a client, created (once, whatever the concurrency) on first use."""
    pointer_key = {"pk": f"CLIENT#{client_id}", "sk": "TANK"}
    pointer = aws.table(TABLE).get_item(Key=pointer_key, ConsistentRead=True).get("Item")
    if pointer is None:
        tank = new_tank("client", client_id)
        try:
            aws.transact(
                [
                    aws.put("pointer", TABLE, {**pointer_key, "tankId": tank_id(tank)}),
                    aws.put("tank", TABLE, tank),
                ]
            )
            return tank
        except aws.TransactionCancelledError as exc:
            if "pointer" not in exc.old:
                raise
            pointer = exc.old["pointer"]
    tank_item = get_tank(str(pointer["tankId"]))
    if tank_item is None:
        raise RuntimeError("organization tank pointer without a tank")
    return tank_item


def topups(tank_id_: str) -> AppendOnlyList:
    return AppendOnlyList(TABLE, f"TOPUPS#{tank_id_}")


def usage(tank_id_: str) -> AppendOnlyList:
    return AppendOnlyList(TABLE, f"USAGE#{tank_id_}")


def marker_key(chain_id: int, tx_hash: str) -> dict[str, str]:
    return {"pk": f"TOPUPTX#{chain_id}#{tx_hash.lower()}", "sk": "USED"}


def record_key(marker: dict[str, Any]) -> dict[str, str]:
    """The top-up record a transaction's marker names."""
    return {"pk": topups(str(marker["tankId"])).list_key, "sk": sequence_key(int(marker["seq"]))}


def get_marker(chain_id: int, tx_hash: str) -> dict[str, Any] | None:
    item: dict[str, Any] | None = (
        aws.table(TABLE).get_item(Key=marker_key(chain_id, tx_hash), ConsistentRead=True).get("Item")
    )
    return item
