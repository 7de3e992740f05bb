"""A transaction's receipt as the chain has it now, and whether its block is still the chain's.

A receipt names the block it was mined in. A reorganisation can replace that block after the receipt was read
(or a node still indexes the receipt of a replaced block), so whatever is final at some number of confirmations
reads the block at the receipt's height again just before it acts, and compares the hashes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from chalicelib.evm import rpc
from chalicelib.evm.rpc import RpcError, quantity, rpc_call
from chalicelib.platform.errors import upstream_unavailable
from chalicelib.platform.networks import Network

UPSTREAM_UNAVAILABLE = "UPSTREAM_UNAVAILABLE"


@dataclass(frozen=True)
class Mined:
    receipt: dict[str, Any]
    block_number: int
    block_hash: str
    head: int

    @property
    def confirmations(self) -> int:
        """`head - blockNumber + 1`: a transaction in the head block has 1."""
        return max(self.head - self.block_number + 1, 0)


def required_confirmations(network: Network) -> int:
    """The network's `confirmations`; 0 counts as 1 (a receipt is at least one block)."""
    return max(network.confirmations, 1)


def mined(network: Network, tx_hash: str) -> Mined | None:
    """The receipt and the head in one round trip; None while the node knows no receipt. Raises ApiError 502
    when the node refuses either read or answers a malformed receipt."""
    receipt, head = rpc.rpc_batch(network, [("eth_getTransactionReceipt", [tx_hash]), ("eth_blockNumber", [])])
    if isinstance(receipt, RpcError) or isinstance(head, RpcError):
        raise upstream_unavailable(UPSTREAM_UNAVAILABLE, "The network's node refused the reads; retry")
    if receipt is None:
        return None
    try:
        return Mined(dict(receipt), quantity(receipt["blockNumber"]), str(receipt["blockHash"]), quantity(head))
    except (KeyError, TypeError, ValueError):
        raise upstream_unavailable(UPSTREAM_UNAVAILABLE, "The node answered a malformed receipt") from None


def still_canonical(network: Network, block_number: int, block_hash: str) -> bool:
    """Whether the chain's block at `block_number`, read now, is `block_hash`. Raises ApiError 502 when the node
    cannot answer (no verdict)."""
    try:
        block = rpc_call(network, "eth_getBlockByNumber", [hex(block_number), False])
    except RpcError:
        raise upstream_unavailable(UPSTREAM_UNAVAILABLE, "The network's node refused the block read; retry") from None
    return isinstance(block, dict) and str(block.get("hash", "")).lower() == block_hash.lower()


def sender_of_unmined(network: Network, tx_hash: str) -> str | None:
    """The `from` of a transaction the node holds but has not mined (its mempool); None when it knows no such
    transaction."""
    try:
        tx = rpc_call(network, "eth_getTransactionByHash", [tx_hash])
    except RpcError:
        raise upstream_unavailable(UPSTREAM_UNAVAILABLE, "The network's node refused the read; retry") from None
    if not isinstance(tx, dict) or not isinstance(tx.get("from"), str):
        return None
    return str(tx["from"]).lower()
