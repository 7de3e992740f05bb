"""The watcher's confirmation of recorded deposits: every watched deposit at or past its confirmations is
re-checked against the chain (receipt, canonical block hash at its height, the log itself) and credited,
followed to another block, or reverted. Credited deposits stay watched for REORG_WATCH_BLOCKS more blocks: a
deeper reorg gets a correcting entry.
"""

from __future__ import annotations

import contextlib
from typing import Any

from chalicelib.custody.deposits import lifecycle as deposits
from chalicelib.custody.deposits.records import WATCHED, Deposit, deposit_key
from chalicelib.custody.deposits.scan import (
    ChainReads,
    NodeReads,
    StepReport,
    out_of_time,
    topic_address,
    transfer_value,
)
from chalicelib.custody.store import TABLE
from chalicelib.custody.tokens import TRANSFER_TOPIC
from chalicelib.evm.rpc import RpcError, quantity
from chalicelib.platform import aws
from chalicelib.platform.networks import AnyNetwork, Network

REORG_WATCH_BLOCKS = 64  # how long credited deposits are still re-checked
MAX_DUE_PER_STEP = 500  # deposits re-checked per step (the rest next step)


def confirm(network: Network, report: StepReport, chain: ChainReads | None = None) -> None:
    """Re-check the deposits due at the report's head against `chain` (the network's nodes unless given):
    credit, follow or revert each."""
    reads = chain if chain is not None else NodeReads(network)
    checks = due(network, report.head)
    if not checks:
        return
    found = reads.receipts(sorted({d.txHash for d, _ in checks}))
    heights = sorted(
        {quantity(r["blockNumber"]) for r in found.values() if isinstance(r, dict)} | {d.blockNumber for d, _ in checks}
    )
    canonical = dict(zip(heights, reads.blocks(heights, full=False, allow_missing=True), strict=True))
    for deposit, account in checks:
        if out_of_time():
            return
        _check(network, report, deposit, account, found.get(deposit.txHash), canonical)


def due(network: AnyNetwork, head: int) -> list[tuple[Deposit, dict[str, Any]]]:
    """The watched deposits at or past the network's confirmations at `head` (at most MAX_DUE_PER_STEP), each
    with its account; a watch whose deposit is no longer watched is dropped."""
    from boto3.dynamodb.conditions import Key

    request: dict[str, Any] = {
        "KeyConditionExpression": Key("pk").eq(f"WATCH#{network.chainId}"),
        "ConsistentRead": True,
    }
    needed = max(network.confirmations, 1)
    watches: list[dict[str, Any]] = []
    while len(watches) < MAX_DUE_PER_STEP:
        answer = aws.table(TABLE).query(**request)
        watches += [w for w in answer["Items"] if head - int(w["blockNumber"]) + 1 >= needed]
        if "LastEvaluatedKey" not in answer:
            break
        request["ExclusiveStartKey"] = answer["LastEvaluatedKey"]
    watches = watches[:MAX_DUE_PER_STEP]
    if not watches:
        return []
    records = {
        d.id: d for d in map(Deposit.from_item, aws.batch_get(TABLE, [deposit_key(str(w["sk"])) for w in watches]))
    }
    owners = {
        str(a["id"]): a
        for a in aws.batch_get(
            TABLE,
            [{"pk": f"ACCOUNT#{i}", "sk": "ACCOUNT"} for i in sorted({d.accountId for d in records.values()})],
        )
    }
    checks = []
    for watch in watches:
        deposit = records.get(str(watch["sk"]))
        if deposit is None or deposit.status not in WATCHED:
            with contextlib.suppress(Exception):
                deposits.stop_watching(network.chainId, str(watch["sk"]))
            continue
        account = owners.get(deposit.accountId)
        if account is not None:
            checks.append((deposit, account))
    return checks


def _check(
    network: Network,
    report: StepReport,
    deposit: Deposit,
    account: dict[str, Any],
    receipt: Any,
    canonical: dict[int, Any],
) -> None:
    if isinstance(receipt, RpcError):
        return  # no verdict
    credited = deposit.status == "credited"
    if receipt is None:
        # No receipt: proof that the transaction left the chain only if the deposit's block did too (a node that
        # lags, or is behind a load balancer, may answer null for a transaction it does not have yet).
        block = canonical.get(deposit.blockNumber)
        gone = block["hash"] != deposit.blockHash if block is not None else report.head >= deposit.blockNumber
        if gone and deposits.revert(deposit, account):
            report.reverted += 1
        return
    height = quantity(receipt["blockNumber"])
    block = canonical.get(height)
    if block is None or block["hash"] != receipt["blockHash"]:
        return  # the node's view is moving: next step
    if receipt.get("status") != "0x1" or not _log_matches(deposit, receipt):
        if deposits.revert(deposit, account):  # mined (canonically) again, but failing or not paying the address
            report.reverted += 1
        return
    if receipt["blockHash"] != deposit.blockHash:
        log_index = _log_index(deposit, receipt)
        deposits.follow(deposit, height, receipt["blockHash"], log_index)  # re-checked at its new height
        return
    confirmations = report.head - height + 1
    if credited:
        if report.head - height >= REORG_WATCH_BLOCKS:
            deposits.stop_watching(network.chainId, deposit.id)
        return
    if confirmations >= max(network.confirmations, 1) and deposits.credit(deposit, account, confirmations):
        report.credited += 1


def _log_matches(deposit: Deposit, receipt: dict[str, Any]) -> bool:
    if deposit.ordinal == "native":
        return True  # the hash commits to the value and recipient
    logs = receipt.get("logs", [])
    position = int(deposit.ordinal)
    if position >= len(logs):
        return False
    log = logs[position]
    pair = deposits.pair_of(deposit)
    topics = log.get("topics", [])
    return (
        log.get("address", "").lower() == pair.token.tokenAddress.lower()
        and len(topics) == 3
        and topics[0] == TRANSFER_TOPIC
        and topic_address(topics[2]).lower() == deposit.to.lower()
        and transfer_value(log) == deposit.amount
    )


def _log_index(deposit: Deposit, receipt: dict[str, Any]) -> int | None:
    if deposit.ordinal == "native":
        return None
    return quantity(receipt["logs"][int(deposit.ordinal)]["logIndex"])
