"""The custody ledger: per account and token an `activeBalance`, `pendingBalance` and `heldBalance`, and an
append-only journal of every change to them.

Every change is a journal entry (kind, the three deltas, reason, reference) written in the SAME transaction as
the balance item it changes (conditional on the balance's `version`: a concurrent change makes the writer
re-read and re-plan: `Posting.replan_on`) and as the record that caused it. Amounts are integers of the token's
smallest unit, stored as decimal strings (DynamoDB numbers hold 38 digits; uint256 needs 78). Balances are
therefore recomputable from the journal alone (`replay`), which a test does after a randomized run.

Double entry: every entry also names the ledger account it debits and the one it credits, with one positive
`amount`. An account's balances are ledger accounts `account:<id>:<network>:<token>:active|pending|held`
(credit-normal: what the service owes); the other side of money coming or going is a house account of the
network and token
(`house:<network>:<token>:unconfirmed-deposits`, `...:reorg-corrections`, `...:withdrawals-sent`). House accounts
are derived from the journal only, never kept as an item (an item updated by every transaction of the service
would be a hot key). Per ledger account, credits minus debits over the journal equals its balance.

Kinds: `pending` (a deposit seen), `pending_void` (its transaction left the chain), `credit` (confirmed:
pending -> active), `correction` (a credited deposit whose transaction left the chain afterwards: active
decreases, possibly below zero, and an alert is logged), and for withdrawals `hold`, `release`, `debit`.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any, NamedTuple

from chalicelib.custody.store import TABLE, get
from chalicelib.custody.tokens import TokenOnNetwork
from chalicelib.platform import aws, clock
from chalicelib.platform.errors import ApiError
from chalicelib.platform.pagination import AppendOnlyList, PageQuery

INSUFFICIENT_BALANCE = "INSUFFICIENT_BALANCE"
FIELDS = ("active", "pending", "held")
HOUSE = {  # the house account on the other side of an entry that changes the account's total
    "pending": "unconfirmed-deposits",
    "pending_void": "unconfirmed-deposits",
    "correction": "reorg-corrections",
    "debit": "withdrawals-sent",
}


@dataclass(frozen=True)
class Movement:
    active: int = 0
    pending: int = 0
    held: int = 0


class Posting(NamedTuple):
    """One change of a balance, for the caller's plan: the balance's write and its journal entry."""

    item: aws.TxItem
    entry: tuple[AppendOnlyList, dict[str, Any]]

    @property
    def replan_on(self) -> frozenset[str]:
        """The plan's `replan_on`: the balance moved since it was read, so the plan is built again."""
        return frozenset({self.item.name})


def balance_key(account_id: str, pair_key: str) -> dict[str, str]:
    return {"pk": f"ACCOUNT#{account_id}", "sk": f"BALANCE#{pair_key}"}


def journal(account_id: str) -> AppendOnlyList:
    return AppendOnlyList(TABLE, f"ENTRIES#{account_id}")


def post(
    account_id: str,
    pair: TokenOnNetwork,
    movement: Movement,
    kind: str,
    reason: str,
    reference: tuple[str, str],
    *,
    allow_negative: bool = False,
    name: str = "balance",
) -> Posting:
    """The balance write and the journal entry of one change, for the caller's transaction. Reads the balance
    now: the write is conditional on it being unchanged (when it fails, the plan is built again: `replan_on`).
    422 INSUFFICIENT_BALANCE when a balance would go below zero (unless `allow_negative`, for corrections)."""
    key = balance_key(account_id, pair.key)
    item = get(key["pk"], key["sk"]) or {}
    before = {f: int(item.get(f, "0")) for f in FIELDS}
    delta = {"active": movement.active, "pending": movement.pending, "held": movement.held}
    after = {f: before[f] + delta[f] for f in FIELDS}
    if not allow_negative and any(after[f] < 0 for f in FIELDS):
        raise ApiError(422, INSUFFICIENT_BALANCE, f"Not enough {pair.token.symbol} in the account's balance")
    now = clock.iso_now()
    version = int(item.get("version", 0))
    condition = (
        aws.Condition("#v = :v", {"#v": "version"}, {":v": version})
        if item
        else aws.Condition("attribute_not_exists(pk)")
    )
    balance = {
        **key,
        "accountId": account_id,
        "network": pair.network.name,
        "chainId": pair.network.chainId,
        "tokenCode": pair.token.tokenCode,
        **{f: str(after[f]) for f in FIELDS},
        "version": version + 1,
        "updatedAt": now,
    }
    debit, credit, amount = _sides(account_id, pair, delta, kind)
    entry = {
        "id": str(uuid.uuid4()),
        "debitAccount": debit,
        "creditAccount": credit,
        "amount": str(amount),
        "accountId": account_id,
        "network": pair.network.name,
        "chainId": pair.network.chainId,
        "tokenCode": pair.token.tokenCode,
        "kind": kind,
        "reason": reason,
        "referenceType": reference[0],
        "referenceId": reference[1],
        **{f"{f}Delta": str(delta[f]) for f in FIELDS},
        **{f"{f}After": str(after[f]) for f in FIELDS},
        "createdAt": now,
    }
    return Posting(aws.put(name, TABLE, balance, condition), (journal(account_id), entry))


def _sides(account_id: str, pair: TokenOnNetwork, delta: dict[str, int], kind: str) -> tuple[str, str, int]:
    """(debited ledger account, credited ledger account, amount) of a change of the account's balances."""
    down = [f for f in FIELDS if delta[f] < 0]
    up = [f for f in FIELDS if delta[f] > 0]
    where = f"{pair.network.name}:{pair.token.tokenCode}"
    house = f"house:{where}:{HOUSE.get(kind, kind)}"
    mine = f"account:{account_id}:{where}"
    if len(down) == 1 and len(up) == 1 and -delta[down[0]] == delta[up[0]]:
        return f"{mine}:{down[0]}", f"{mine}:{up[0]}", delta[up[0]]
    if len(up) == 1 and not down:
        return house, f"{mine}:{up[0]}", delta[up[0]]
    if len(down) == 1 and not up:
        return f"{mine}:{down[0]}", house, -delta[down[0]]
    raise ValueError(f"a {kind} entry must move one amount between two ledger accounts")


def balances(account_id: str) -> list[dict[str, Any]]:
    from boto3.dynamodb.conditions import Key

    items: list[dict[str, Any]] = aws.table(TABLE).query(
        KeyConditionExpression=Key("pk").eq(f"ACCOUNT#{account_id}") & Key("sk").begins_with("BALANCE#"),
        ConsistentRead=True,
    )["Items"]
    return items


def entries(account_id: str, query: PageQuery) -> tuple[list[dict[str, Any]], int]:
    return journal(account_id).page(query)


def replay(account_id: str) -> dict[str, dict[str, int]]:
    """Balances recomputed from the journal alone: `<network>#<tokenCode>` -> {active, pending, held}."""
    total = journal(account_id).count()
    sums: dict[str, dict[str, int]] = {}
    page = 1
    while (page - 1) * 100 < total:
        found, _ = journal(account_id).page(PageQuery(page=page, limit=100))
        for entry in found:
            pair = sums.setdefault(f"{entry['network']}#{entry['tokenCode']}", dict.fromkeys(FIELDS, 0))
            for f in FIELDS:
                pair[f] += int(entry[f"{f}Delta"])
        page += 1
    return sums
