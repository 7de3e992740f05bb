"""An account's spendable outputs on a UTXO network (Bitcoin): what its withdrawals spend.

An output enters the set when its deposit is credited (in the credit's own transaction) or when a withdrawal that
paid change back to the account succeeds; a withdrawal reserves the outputs it spends when it is requested (in
the request's transaction, each conditional on being available: two withdrawals never reserve one output) and
removes them when it succeeds (a withdrawal held for review keeps them reserved until an operator settles it, or
releases it and them).

Keys: `UTXO#<chainId>#<accountId>` / `<txid>:<vout>`, with `value` (satoshis), `address`, `addressType`,
`state` (`available` | `reserved` | `gone`: a reorg took it away after its credit) and, while reserved,
`withdrawalId`. `SPEND#<chainId>#<txid>` / `SPEND`: a
withdrawal's own transaction, recorded before its broadcast, so the watcher never takes its change for a deposit.
"""

from __future__ import annotations

from typing import Any

from chalicelib.custody.store import TABLE
from chalicelib.platform import aws


def utxo_key(chain_id: int, account_id: str, txid: str, vout: int) -> dict[str, str]:
    return {"pk": f"UTXO#{chain_id}#{account_id}", "sk": f"{txid}:{vout}"}


def spend_key(chain_id: int, txid: str) -> dict[str, str]:
    """A withdrawal's own transaction (written before its broadcast, with the account it spends from): its change
    back to that account is not a deposit."""
    return {"pk": f"SPEND#{chain_id}#{txid}", "sk": "SPEND"}


def add_item(
    name: str, chain_id: int, account_id: str, txid: str, vout: int, value: int, address: str, address_type: str
) -> aws.TxItem:
    """The output, available (a second add of the same output is a failed condition, unless a reorg took it away:
    `gone`)."""
    item = {
        **utxo_key(chain_id, account_id, txid, vout),
        "txid": txid,
        "vout": vout,
        "value": str(value),
        "address": address,
        "addressType": address_type,
        "state": "available",
    }
    return aws.put(
        name, TABLE, item, aws.Condition("attribute_not_exists(pk) OR #s = :gone", {"#s": "state"}, {":gone": "gone"})
    )


def available(chain_id: int, account_id: str) -> list[dict[str, Any]]:
    """The account's outputs no withdrawal has reserved (a consistent read of the whole set)."""
    from boto3.dynamodb.conditions import Key  # boto3 loads on first use, not at the function's import

    request: dict[str, Any] = {
        "KeyConditionExpression": Key("pk").eq(f"UTXO#{chain_id}#{account_id}"),
        "ConsistentRead": True,
    }
    found: list[dict[str, Any]] = []
    while True:
        answer = aws.table(TABLE).query(**request)
        found += [i for i in answer["Items"] if i.get("state") == "available"]
        if "LastEvaluatedKey" not in answer:
            return found
        request["ExclusiveStartKey"] = answer["LastEvaluatedKey"]


def reserve_item(name: str, output: dict[str, Any], withdrawal_id: str) -> aws.TxItem:
    return aws.update(
        name,
        TABLE,
        {"pk": output["pk"], "sk": output["sk"]},
        aws.Changes(set={"state": "reserved", "withdrawalId": withdrawal_id}),
        aws.Condition("#s = :available", {"#s": "state"}, {":available": "available"}),
    )


def release_item(name: str, key: dict[str, str], withdrawal_id: str) -> aws.TxItem:
    """Back to available: the withdrawal that reserved it ended without spending it (an operator's release)."""
    return aws.update(
        name,
        TABLE,
        key,
        aws.Changes(set={"state": "available"}, remove=["withdrawalId"]),
        aws.Condition("withdrawalId = :w", values={":w": withdrawal_id}),
    )


def spend_item(name: str, key: dict[str, str], withdrawal_id: str) -> aws.TxItem:
    """Spent by the withdrawal that reserved it (its transaction confirmed)."""
    return aws.delete(name, TABLE, key, aws.Condition("withdrawalId = :w", values={":w": withdrawal_id}))


def gone_item(name: str, key: dict[str, str]) -> aws.TxItem:
    """Gone from the chain (its deposit reverted after its credit): never spendable again, while a withdrawal that
    reserved it keeps its reservation (its transaction, if signed, can no longer be mined: an operator's review)."""
    return aws.update(name, TABLE, key, aws.Changes(set={"state": "gone"}), None)
