"""Several JSON-RPC reads in one round trip (platform/transport.py's `rpc_batch`).

`batch(network, [(method, params), ...])` answers each call in place: its result, or the node's RpcError
for that call; no node answering raises ApiError 502 UPSTREAM_UNAVAILABLE for the whole batch.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chalicelib.platform.chain import RpcError, rpc_call
from chalicelib.platform.networks import Network


def batch(network: Network, calls: Sequence[tuple[str, list[Any]]]) -> list[Any]:
    try:
        from chalicelib.platform.chain import rpc_batch  # type: ignore[attr-defined]
    except ImportError:  # transitional, until platform/transport.py (H4a) lands: one call after the other
        return [_one(network, method, params) for method, params in calls]
    answers: list[Any] = rpc_batch(network, list(calls))
    return answers


def _one(network: Network, method: str, params: list[Any]) -> Any:
    try:
        return rpc_call(network, method, params)
    except RpcError as exc:
        return exc
