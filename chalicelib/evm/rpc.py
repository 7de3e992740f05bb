"""Several JSON-RPC reads in one round trip (platform/transport.py's `rpc_batch`).

`batch(network, [(method, params), ...])` answers each call in place: its result, or the node's RpcError
for that call; no node answering raises ApiError 502 UPSTREAM_UNAVAILABLE for the whole batch.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chalicelib.platform.chain import rpc_batch
from chalicelib.platform.networks import Network


def batch(network: Network, calls: Sequence[tuple[str, list[Any]]]) -> list[Any]:
    return rpc_batch(network, list(calls))
