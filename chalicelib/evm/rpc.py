"""Typed reads of a chain over JSON-RPC.

`rpc_call` (one call) and `rpc_batch` (several in one round trip, each answered in place by its result or the
node's RpcError) are the one way to call a node (platform/transport.py: pooled connections, the request's budget,
failover across a network's URLs). Answers are parsed here: `quantity` is the one parser of a JSON-RPC quantity,
`native_balance`, `block_number` and `transaction_count` the reads every domain makes; ERC-20 reads are in
evm/erc20.py.
"""

from __future__ import annotations

import re
from typing import Any

from chalicelib.platform.deadline import DeadlineExceededError
from chalicelib.platform.errors import UPSTREAM_UNAVAILABLE, UpstreamUnavailableError, upstream_unavailable
from chalicelib.platform.networks import Network
from chalicelib.platform.transport import RpcError, rpc_batch, rpc_call

__all__ = [
    "NO_ANSWER",
    "RpcError",
    "block_number",
    "native_balance",
    "node_quantity",
    "quantity",
    "rpc_batch",
    "rpc_call",
    "transaction_count",
]

_QUANTITY = re.compile(r"0x[0-9a-fA-F]{1,64}")

# What a call raises when it got no usable answer (no node answered, a malformed answer, the request's budget ran
# out): a caller's 502/503, and for a worker no verdict (it looks again later).
NO_ANSWER: tuple[type[UpstreamUnavailableError], type[DeadlineExceededError]] = (
    UpstreamUnavailableError,
    DeadlineExceededError,
)


def quantity(value: object) -> int:
    """A JSON-RPC quantity (`0x` and 1 to 64 hex digits: a block number, a balance, a 32-byte log word) as an int.

    Strict: anything else (a number, an empty `0x`, signs, spaces, underscores that `int(x, 16)` would accept)
    is ValueError, so a node's malformed answer never becomes a plausible amount."""
    if not isinstance(value, str) or _QUANTITY.fullmatch(value) is None:
        raise ValueError(f"not a JSON-RPC quantity: {str(value)[:80]!r}")
    return int(value[2:], 16)


def node_quantity(network: Network, value: Any, what: str) -> int:
    """`quantity` of a node's answer to `what`; a malformed one is the node's failure (502 UPSTREAM_UNAVAILABLE)."""
    try:
        return quantity(value)
    except ValueError:
        raise upstream_unavailable(UPSTREAM_UNAVAILABLE, f"The node of {network.name} failed {what}") from None


def native_balance(network: Network, address: str, block: str = "latest") -> int:
    """`address`'s balance in wei at `block`. RpcError when the node refuses; 502 when its answer is malformed."""
    return node_quantity(network, rpc_call(network, "eth_getBalance", [address, block]), "eth_getBalance")


def block_number(network: Network) -> int:
    """The node's head block number."""
    return node_quantity(network, rpc_call(network, "eth_blockNumber", []), "eth_blockNumber")


def transaction_count(network: Network, address: str, block: str = "latest") -> int:
    """`address`'s nonce at `block` ("latest": mined, "pending": with the node's mempool)."""
    answer = rpc_call(network, "eth_getTransactionCount", [address, block])
    return node_quantity(network, answer, "eth_getTransactionCount")
