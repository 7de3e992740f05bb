"""Typed reads and writes of a Bitcoin node (btcd's JSON-RPC; Bitcoin Core answers the same calls), through the
one outbound transport (platform/transport.py: keep-alive pools, the request's budget, failover across URLs,
batches). btcd answers a node error with HTTP 200 and `error` set, which the transport raises as RpcError.

Amounts: nodes show BTC as JSON numbers, which JSON parsing makes floats; every amount goes through `sats()`,
which reads the float's shortest decimal form (exact for at most 8 decimals) and gives whole satoshis.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any

from chalicelib.platform.networks import BitcoinNetwork
from chalicelib.platform.transport import RpcError, rpc_batch, rpc_call

__all__ = ["Block", "BlockOutput", "RpcError"]


# A full mainnet block at verbosity 2 (every transaction decoded, with its hex) runs to tens of megabytes.
BLOCK_MAX_BYTES = 128 * 1024 * 1024


def sats(btc: Any) -> int:
    """A node's BTC amount (a JSON number) in satoshis, exactly."""
    return int((Decimal(str(btc)) * 100_000_000).quantize(Decimal(1), rounding=ROUND_HALF_EVEN))


def head(network: BitcoinNetwork) -> int:
    return int(rpc_call(network, "getblockcount"))


@dataclass(frozen=True)
class BlockOutput:
    """One output of a transaction in a block."""

    txid: str
    vout: int
    value: int  # satoshis
    script_pubkey: bytes
    coinbase: bool = False  # a block reward: spendable only after 100 blocks


@dataclass(frozen=True)
class Block:
    height: int
    hash: str
    previous: str
    time: int
    outputs: tuple[BlockOutput, ...]


def block_hashes(network: BitcoinNetwork, heights: Sequence[int]) -> list[str | None]:
    """The main chain's block hash at each height (None above the head), in one round trip."""
    answers = rpc_batch(network, [("getblockhash", [h]) for h in heights])
    return [a if isinstance(a, str) else None for a in answers]


def block_at(network: BitcoinNetwork, block_hash: str) -> Block:
    """The block with every transaction's outputs (verbosity 2: btcd puts them under `rawtx`, Core under `tx`)."""
    body = rpc_call(network, "getblock", [block_hash, 2], timeout_s=30.0, max_bytes=BLOCK_MAX_BYTES)
    outputs: list[BlockOutput] = []
    for tx in body.get("rawtx") or body.get("tx") or []:
        coinbase = any("coinbase" in spent for spent in tx.get("vin", []))
        for out in tx.get("vout", []):
            outputs.append(
                BlockOutput(
                    str(tx["txid"]),
                    int(out["n"]),
                    sats(out["value"]),
                    bytes.fromhex(out["scriptPubKey"]["hex"]),
                    coinbase,
                )
            )
    return Block(
        height=int(body["height"]),
        hash=str(body["hash"]),
        previous=str(body.get("previousblockhash") or ""),
        time=int(body.get("time", 0)),
        outputs=tuple(outputs),
    )


def unspent(network: BitcoinNetwork, txid: str, vout: int, mempool: bool = False) -> dict[str, Any] | None:
    """The output if it is unspent (`gettxout`), with its confirmations; None when spent or unknown."""
    found = rpc_call(network, "gettxout", [txid, vout, mempool])
    return found if isinstance(found, dict) else None


def broadcast(network: BitcoinNetwork, raw: bytes) -> str:
    return str(rpc_call(network, "sendrawtransaction", [raw.hex()]))


def transaction(network: BitcoinNetwork, txid: str) -> dict[str, Any] | None:
    """The transaction (verbose), with `confirmations` and `blockhash` once mined; None when the node has none."""
    try:
        found = rpc_call(network, "getrawtransaction", [txid, 1])
    except RpcError as exc:
        if exc.code in (-5, -8):  # no such transaction (btcd -5, Core -5); malformed id
            return None
        raise
    return found if isinstance(found, dict) else None


def raw_transaction(network: BitcoinNetwork, txid: str) -> bytes | None:
    """The transaction serialised (its witness included), or None when the node has none."""
    try:
        found = rpc_call(network, "getrawtransaction", [txid, 0])
    except RpcError as exc:
        if exc.code in (-5, -8):
            return None
        raise
    return bytes.fromhex(found) if isinstance(found, str) else None


def fee_rate(network: BitcoinNetwork, blocks: int = 6) -> int:
    """Sat per virtual byte for confirmation within `blocks`: the node's estimate (`estimatefee`, BTC per kB),
    kept within the network's bounds; the lower bound when the node has no estimate."""
    bounds = network.feeRateBounds
    try:
        per_kb = rpc_call(network, "estimatefee", [blocks])
    except RpcError:
        return bounds.min
    rate = sats(per_kb) // 1000 if isinstance(per_kb, int | float) and per_kb > 0 else 0
    return min(max(rate, bounds.min), bounds.max)
