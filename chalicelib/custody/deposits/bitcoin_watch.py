"""The watcher on a Bitcoin network: the same cursor, deposit records and lifecycle as on EVM (scan.py,
confirm.py, lifecycle.py), read from a Bitcoin node.

Scan: the hashes of the next blocks in one batch (`getblockhash`), then each block with its transactions
(`getblock <hash> 2`: one call per block), chained onto the hashes the cursor kept (else the cursor steps back
over the reorg, as on EVM). Every output is turned into its address (embit, for the network's chain) and the
distinct addresses are looked up in the address index (one batch read per 100): the cost grows with the blocks'
outputs, never with the number of deposit addresses. Outputs of the withdrawals' own transactions (their change) are
not deposits (its outputs to any other account are). A deposit is keyed by (txid, output index): several outputs
of one transaction to one account are several deposits, each credited once. A deposit is first seen in its first
block (pending), not in the mempool.

Confirm: the deposits due are re-checked by the canonical block hash at their height (one batch of
`getblockhash`). Still there: credited at the network's confirmations. Gone: the node's `getrawtransaction`
says where the transaction is now: in another canonical block (followed there), or in no block (reverted: back
in the mempool, or dropped). A transaction mined again later is seen again and credited once. The txid commits
to the outputs, so a deposit found again by its txid pays the same address the same amount.
"""

from __future__ import annotations

import itertools
from typing import Any

from chalicelib.bitcoin import addresses, rpc
from chalicelib.custody import utxos
from chalicelib.custody.deposits import lifecycle as deposits
from chalicelib.custody.deposits.confirm import REORG_WATCH_BLOCKS, due
from chalicelib.custody.deposits.records import Deposit
from chalicelib.custody.deposits.scan import (
    RangeError,
    StepReport,
    addressed,
    advance,
    next_range,
    out_of_time,
    step_back,
)
from chalicelib.custody.store import TABLE
from chalicelib.custody.tokens import TokenOnNetwork
from chalicelib.platform import aws
from chalicelib.platform.networks import BitcoinNetwork


def scan(network: BitcoinNetwork, report: StepReport) -> None:
    """Scan the blocks after the cursor up to the report's head, and move the cursor on."""
    scanned = next_range(network, report)
    if scanned is None:
        return
    saved, first, last, hashes = scanned.saved, scanned.first, scanned.last, scanned.hashes
    block_hashes = rpc.block_hashes(network, list(range(first, last + 1)))
    if any(h is None for h in block_hashes):
        raise RangeError("a block of the range could not be read")
    blocks = [rpc.block_at(network, str(h)) for h in block_hashes]
    known_parent = hashes.get(str(first - 1))
    if known_parent is not None and blocks[0].previous != known_parent:
        report.stepped_back = step_back(network, saved, hashes, lambda heights: rpc.block_hashes(network, heights))
        return
    for before, after in itertools.pairwise(blocks):
        if after.previous != before.hash:
            raise RangeError("the chain moved while its blocks were read")
    report.scanned_from, report.scanned_to = first, last
    pair = TokenOnNetwork(network, network.custodyTokens[0])
    outputs = []
    for block in blocks:
        for output in block.outputs:
            address = addresses.address_of(output.script_pubkey, network.chain)
            # A block reward paid to a deposit address is not a deposit: it could not be spent for 100 blocks.
            if address is not None and output.value > 0 and not output.coinbase:
                outputs.append({"to": address, "output": output, "block": block})
    report.transfers = len(outputs)
    matched = addressed(network, outputs)
    spenders = _own_spends(network, {found["output"].txid for found, _ in matched})
    for found, account in matched:
        if spenders.get(found["output"].txid) == account["id"]:
            continue  # a withdrawal's change back to its own account: the account's already
        if out_of_time():
            raise RangeError("out of time: the range is scanned again next step (recorded deposits stay once)")
        output, block = found["output"], found["block"]
        transfer = deposits.Transfer(
            pair=pair,
            tx_hash=output.txid,
            ordinal=str(output.vout),
            log_index=None,
            sender="",  # a Bitcoin payment has inputs, not one sender
            to=found["to"],
            value=output.value,
            block_number=block.height,
            block_hash=block.hash,
            block_time=block.time,
        )
        if deposits.seen(transfer, account) in ("new", "again"):
            report.recorded += 1
    advance(saved, hashes, {b.height: b.hash for b in blocks}, blocks[-1].time)


def _own_spends(network: BitcoinNetwork, txids: set[str]) -> dict[str, str]:
    """Which of `txids` are withdrawals' own transactions (recorded before their broadcast), with the account each
    spends from: its outputs to that account are the change; to any other account they are deposits."""
    keys = [utxos.spend_key(network.chainId, txid) for txid in sorted(txids)]
    found: dict[str, str] = {}
    for start in range(0, len(keys), 100):
        for item in aws.batch_get(TABLE, keys[start : start + 100]):
            found[str(item["pk"]).rsplit("#", 1)[1]] = str(item["accountId"])
    return found


def confirm(network: BitcoinNetwork, report: StepReport) -> None:
    """Re-check the deposits due at the report's head: credit, follow or revert each."""
    checks = due(network, report.head)
    if not checks:
        return
    heights = sorted({d.blockNumber for d, _ in checks})
    canonical = dict(zip(heights, rpc.block_hashes(network, heights), strict=True))
    for deposit, account in checks:
        if out_of_time():
            return
        _check(network, report, deposit, account, canonical.get(deposit.blockNumber))


def _check(
    network: BitcoinNetwork, report: StepReport, deposit: Deposit, account: dict[str, Any], canonical: str | None
) -> None:
    if canonical == deposit.blockHash:
        if deposit.status == "credited":
            if report.head - deposit.blockNumber >= REORG_WATCH_BLOCKS:
                deposits.stop_watching(network.chainId, deposit.id)
            return
        confirmations = report.head - deposit.blockNumber + 1
        if confirmations >= max(network.confirmations, 1) and deposits.credit(deposit, account, confirmations):
            report.credited += 1
        return
    if canonical is None:
        return  # the node is below the deposit's height (catching up): no verdict
    found = rpc.transaction(network, deposit.txHash)
    mined_in = found.get("blockhash") if found else None
    if mined_in:
        height = report.head - int(found.get("confirmations", 0)) + 1 if found else -1
        if height >= 0 and rpc.block_hashes(network, [height])[0] == mined_in:
            deposits.follow(deposit, height, str(mined_in), None)
        return  # else the node's view is moving: next step
    if deposits.revert(deposit, account):
        report.reverted += 1
