"""Chain access shared by every domain: JSON-RPC with failover across a network's RPC URLs."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

from chalicelib.platform.errors import UPSTREAM_UNAVAILABLE, upstream_unavailable
from chalicelib.platform.networks import Network


class RpcError(RuntimeError):
    """The node answered with a JSON-RPC error."""


def rpc_call(network: Network, method: str, params: list[Any] | None = None, timeout_s: float = 5.0) -> Any:
    """Call `method` on the first RPC URL that answers; a node error is raised, not retried elsewhere."""
    payload = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params or []}).encode()
    for url in network.rpcUrls:
        request = urllib.request.Request(url, data=payload, headers={"Content-Type": "application/json"})  # noqa: S310
        try:
            with urllib.request.urlopen(request, timeout=timeout_s) as response:  # noqa: S310 - URLs come from the registry
                answer = json.loads(response.read())
        except (urllib.error.URLError, TimeoutError, ConnectionError, json.JSONDecodeError):
            continue
        if "error" in answer:
            raise RpcError(str(answer["error"].get("message", "rpc error")))
        return answer.get("result")
    raise upstream_unavailable(UPSTREAM_UNAVAILABLE, f"No RPC endpoint of network {network.name} is reachable")


INVALID_ADDRESS = "INVALID_ADDRESS"


def checksum_address(value: str, field: str) -> str:
    """EIP-55 form of a 20-byte hex address; a mixed-case input must already be correctly checksummed."""
    from eth_utils import is_checksum_address, is_hex_address, to_checksum_address

    from chalicelib.platform.errors import bad_request

    if not is_hex_address(value):
        raise bad_request(INVALID_ADDRESS, f"{field} is not a 20-byte hex address", field=field)
    if value[2:] not in (value[2:].lower(), value[2:].upper()) and not is_checksum_address(value):
        raise bad_request(INVALID_ADDRESS, f"{field} has a wrong EIP-55 checksum", field=field)
    return str(to_checksum_address(value))
