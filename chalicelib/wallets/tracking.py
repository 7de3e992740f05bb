"""Records of sent transactions and the tracker that follows each to its end.

Table `wallet-transactions`:
* pk `TX#<hash>`, sk `TX`: the record (wallet, network, nonce, kind, status, the
  receipt answered at send time, and once known the block, gas used and fee);
* each wallet's list (`WALLET#<walletId>`, pagination.AppendOnlyList) of
  `{hash, createdAt}`, written in the same transaction as the record.

Status: `signing` (written before the broadcast, so a crash leaves a trace),
`pending` (sent, or possibly sent when no node answered), then `mined`, `failed`
(reverted on chain, or refused at broadcast) or `dropped` (never broadcast because
its request died, or unknown to the nodes for UNSEEN_CHECKS_BEFORE_DROPPED checks in
a row; its nonce is given back if nobody used it). The tracker is an SQS consumer:
each message checks one hash and, while it is pending, re-broadcasts it if the node
does not know it and sends itself again with a growing delay (SQS allows up to
15 min). After MAX_CHECKS (about two days) tracking stops and the record stays
`pending`.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

from chalicelib.platform import aws
from chalicelib.platform.chain import RpcError, rpc_call
from chalicelib.platform.clock import iso_now
from chalicelib.platform.errors import ApiError, not_found
from chalicelib.platform.logging import logger
from chalicelib.platform.networks import Network, resolve
from chalicelib.platform.pagination import AppendOnlyList, PageQuery
from chalicelib.wallets.transactions import SignedTx

TABLE = "wallet-transactions"
QUEUE = "tx-tracker"
TRANSACTION_NOT_FOUND = "TRANSACTION_NOT_FOUND"
FIRST_CHECK_S = 2
MAX_DELAY_S = 900
MAX_CHECKS = 200  # about two days at the longest delay
UNSEEN_CHECKS_BEFORE_DROPPED = 5  # in a row, re-broadcasting each time
ORPHAN_CHECK_S = 120  # a record still `signing` then belongs to a request that died


def _key(tx_hash: str) -> dict[str, str]:
    return {"pk": f"TX#{tx_hash.lower()}", "sk": "TX"}


def _list(wallet_id: str) -> AppendOnlyList:
    return AppendOnlyList(TABLE, f"WALLET#{wallet_id}")


def record(
    wallet_id: str, network: Network, signed: SignedTx, kind: str, receipt: dict[str, Any], chosen_nonce: bool = False
) -> None:
    """Write the record (status `signing`) before the broadcast, and a late check of it: if the
    request dies before it can say how the broadcast went, that check settles the record."""
    from boto3.dynamodb.types import TypeSerializer

    now = iso_now()
    item = {
        **_key(signed.hash),
        "hash": signed.hash,
        "walletId": wallet_id,
        "network": network.name,
        "chainId": network.chainId,
        "kind": kind,
        "from": signed.sender,
        "to": signed.tx.to,
        "value": str(signed.tx.value),
        "nonce": signed.tx.nonce,
        "status": "signing",
        "receipt": json.dumps(receipt, separators=(",", ":")),
        "raw": "0x" + signed.raw.hex(),  # re-broadcast while the node does not know it
        "chosenNonce": chosen_nonce,
        "createdAt": now,
        "updatedAt": now,
        "checks": 0,
    }
    serialize = TypeSerializer().serialize
    put = {
        "Put": {
            "TableName": aws.table(TABLE).name,
            "Item": {k: serialize(v) for k, v in item.items() if v is not None},
            "ConditionExpression": "attribute_not_exists(pk)",
        }
    }
    _list(wallet_id).append({"hash": signed.hash, "createdAt": now}, also=[put])
    enqueue(signed.hash, ORPHAN_CHECK_S)


def mark_pending(tx_hash: str, receipt: dict[str, Any]) -> None:
    _update(tx_hash, {"status": "pending", "receipt": json.dumps(receipt, separators=(",", ":"))})
    enqueue(tx_hash, FIRST_CHECK_S)


def mark_failed(tx_hash: str, reason: str) -> None:
    _update(tx_hash, {"status": "failed", "failedReason": reason[:300]})


def enqueue(tx_hash: str, delay_s: int) -> None:
    aws.send_message(QUEUE, {"hash": tx_hash}, min(delay_s, MAX_DELAY_S))


def get(tx_hash: str) -> dict[str, Any] | None:
    item: dict[str, Any] | None = aws.table(TABLE).get_item(Key=_key(tx_hash), ConsistentRead=True).get("Item")
    return item


def view(wallet_id: str, tx_hash: str) -> dict[str, Any]:
    item = get(tx_hash)
    if item is None or item["walletId"] != wallet_id:
        raise not_found(TRANSACTION_NOT_FOUND, "No transaction with this hash was sent from this wallet")
    return public(item)


def page(wallet_id: str, query: PageQuery) -> tuple[list[dict[str, Any]], int]:
    entries, total = _list(wallet_id).page(query)
    hashes = [str(e["hash"]) for e in entries]
    if not hashes:
        return [], total
    by_hash = {item["hash"]: item for item in aws.batch_get(TABLE, [_key(h) for h in hashes])}
    return [public(by_hash[h]) for h in hashes if h in by_hash], total


def public(item: dict[str, Any]) -> dict[str, Any]:
    """The record as the API shows it: numbers as in the receipt, money as decimal strings."""
    return {
        "hash": item["hash"],
        "status": item["status"],
        "network": item["network"],
        "chainId": str(item["chainId"]),
        "kind": item["kind"],
        "from": item["from"],
        "to": item.get("to"),
        "value": item["value"],
        "nonce": int(item["nonce"]),
        "blockNumber": int(item["blockNumber"]) if "blockNumber" in item else None,
        "blockHash": item.get("blockHash"),
        "gasUsed": item.get("gasUsed"),
        "effectiveGasPrice": item.get("effectiveGasPrice"),
        "failedReason": item.get("failedReason"),
        "createdAt": item["createdAt"],
        "updatedAt": item["updatedAt"],
        "txReceipt": json.loads(item["receipt"]),
    }


def check(tx_hash: str) -> None:
    """One tracker step (the SQS handler): settle the transaction or look again later."""
    item = get(tx_hash)
    if item is None or item["status"] not in ("pending", "signing"):
        return
    network = resolve(None, str(item["chainId"]))
    checks = int(item.get("checks", 0)) + 1
    try:
        receipt = rpc_call(network, "eth_getTransactionReceipt", [tx_hash])
        seen = receipt is not None or rpc_call(network, "eth_getTransactionByHash", [tx_hash]) is not None
    except (RpcError, ApiError):
        _again(tx_hash, checks, int(item.get("unseen", 0)))  # the node is unreachable: no verdict
        return
    if receipt is not None:
        ok = receipt.get("status") == "0x1"
        _update(
            tx_hash,
            {
                "status": "mined" if ok else "failed",
                "blockNumber": int(receipt["blockNumber"], 16),
                "blockHash": receipt["blockHash"],
                "gasUsed": str(int(receipt["gasUsed"], 16)),
                "effectiveGasPrice": str(int(receipt.get("effectiveGasPrice") or "0x0", 16)),
                **({} if ok else {"failedReason": "reverted on chain"}),
                "checks": checks,
            },
        )
        logger.info("transaction settled", extra={"hash": tx_hash, "status": "mined" if ok else "failed"})
        return
    if item["status"] == "signing":
        # Its request died between recording and broadcasting (or could not record the outcome).
        if seen:
            _update(tx_hash, {"status": "pending", "checks": checks})
            enqueue(tx_hash, FIRST_CHECK_S)
        else:  # never broadcast: the caller got an error, so it must not go out now
            _drop(item, network, checks, "its request ended before the broadcast")
        return
    unseen = 0 if seen else int(item.get("unseen", 0)) + 1
    if unseen >= UNSEEN_CHECKS_BEFORE_DROPPED:
        _drop(item, network, checks, "the nodes do not know it")
        return
    if not seen:
        with contextlib.suppress(RpcError, ApiError):  # e.g. a node restarted and lost its pool
            rpc_call(network, "eth_sendRawTransaction", [item["raw"]])
    _again(tx_hash, checks, unseen)


def _again(tx_hash: str, checks: int, unseen: int) -> None:
    _update(tx_hash, {"checks": checks, "unseen": unseen}, only_if_pending=True)
    if checks < MAX_CHECKS:
        enqueue(tx_hash, min(FIRST_CHECK_S * 2**checks, MAX_DELAY_S))
    else:
        logger.warning("transaction still pending; tracking stops", extra={"hash": tx_hash})


def _drop(item: dict[str, Any], network: Network, checks: int, reason: str) -> None:
    from chalicelib.wallets import nonces

    _update(item["hash"], {"status": "dropped", "failedReason": reason, "checks": checks})
    if item.get("chosenNonce"):
        return  # the caller chose that nonce; the counter never handed it out
    try:
        used = int(rpc_call(network, "eth_getTransactionCount", [item["from"], "latest"]), 16)
    except (RpcError, ApiError, TypeError, ValueError):
        return
    if used <= int(item["nonce"]):  # nobody used its nonce: give it back so the next send fills the gap
        nonces.release(item["from"], int(item["chainId"]), int(item["nonce"]))


def _update(tx_hash: str, values: dict[str, Any], only_if_pending: bool = False) -> None:
    values = {**values, "updatedAt": iso_now()}
    names = {f"#{k}": k for k in values}
    table = aws.table(TABLE)
    condition = "attribute_exists(pk)" + (" AND #status_now = :pending" if only_if_pending else "")
    extra_names = {"#status_now": "status"} if only_if_pending else {}
    extra_values = {":pending": "pending"} if only_if_pending else {}
    # The record moved on meanwhile (another check settled it): nothing to do.
    with contextlib.suppress(table.meta.client.exceptions.ConditionalCheckFailedException):
        table.update_item(
            Key=_key(tx_hash),
            UpdateExpression="SET " + ", ".join(f"#{k} = :{k}" for k in values),
            ConditionExpression=condition,
            ExpressionAttributeNames={**names, **extra_names},
            ExpressionAttributeValues={**{f":{k}": v for k, v in values.items()}, **extra_values},
        )
