"""`eth_getLogs` over a block range that a provider may refuse as too large (too many blocks or results): the
range is halved until each part is answered, down to single blocks."""

from __future__ import annotations

from typing import Any

from chalicelib.evm.rpc import RpcError, rpc_call
from chalicelib.platform.networks import Network


class LogsUnavailableError(Exception):
    """The node refused even one block's logs, or answered something other than a list."""


def logs_in_range(network: Network, query: dict[str, Any], first: int, last: int) -> list[dict[str, Any]]:
    """The logs matching `query` (address, topics) in blocks [first, last], in block order."""
    try:
        answer = rpc_call(network, "eth_getLogs", [{**query, "fromBlock": hex(first), "toBlock": hex(last)}])
    except RpcError:
        if first >= last:
            raise LogsUnavailableError(f"eth_getLogs refused block {first}") from None
        middle = (first + last) // 2
        return logs_in_range(network, query, first, middle) + logs_in_range(network, query, middle + 1, last)
    if not isinstance(answer, list):
        raise LogsUnavailableError("eth_getLogs answered something other than a list")
    return answer
