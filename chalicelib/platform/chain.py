"""Chain access shared by every domain: JSON-RPC with failover across a network's RPC URLs."""

from __future__ import annotations

import http.client
import json
import urllib.error
import urllib.request
from typing import Any

from chalicelib.platform.errors import UPSTREAM_UNAVAILABLE, upstream_unavailable
from chalicelib.platform.logging import logger
from chalicelib.platform.networks import Network

MAX_RESPONSE_BYTES = 8 * 1024 * 1024


class RpcError(RuntimeError):
    """The node answered with a JSON-RPC error (e.g. a reverted eth_call)."""

    def __init__(self, code: int | None, message: str) -> None:
        super().__init__(message)
        self.code = code

    @property
    def reverted(self) -> bool:
        return self.code == 3 or "revert" in str(self).lower()


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None  # a redirecting RPC endpoint counts as failed; we do not follow it elsewhere


_opener = urllib.request.build_opener(_NoRedirects)


def rpc_call(network: Network, method: str, params: list[Any] | None = None, timeout_s: float = 5.0) -> Any:
    """Call `method` on the first RPC URL that answers; a node error is raised, not retried elsewhere."""
    payload = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params or []}).encode()
    for index, url in enumerate(network.rpcUrls):
        request = urllib.request.Request(url, data=payload, headers={"Content-Type": "application/json"})  # noqa: S310
        try:
            with _opener.open(request, timeout=timeout_s) as response:
                answer = json.loads(response.read(MAX_RESPONSE_BYTES + 1)[:MAX_RESPONSE_BYTES])
        except urllib.error.HTTPError as exc:
            # Logged by position, never the URL: RPC URLs often embed API keys.
            logger.warning(
                "rpc endpoint refused", extra={"network": network.name, "endpoint": index, "status": exc.code}
            )
            continue
        except (OSError, ValueError, http.client.HTTPException):
            continue  # unreachable, timed out, cut off, or not JSON: try the next endpoint
        if not isinstance(answer, dict):
            continue
        error = answer.get("error")
        if error is not None:
            code = error.get("code") if isinstance(error, dict) else None
            message = error.get("message") if isinstance(error, dict) else None
            raise RpcError(code if isinstance(code, int) else None, str(message or "rpc error")[:300])
        return answer.get("result")
    raise upstream_unavailable(UPSTREAM_UNAVAILABLE, f"No RPC endpoint of network {network.name} is reachable")


INVALID_ADDRESS = "INVALID_ADDRESS"


def checksum_address(value: str, field: str) -> str:
    """EIP-55 form of a 20-byte hex address; a mixed-case input must already be correctly checksummed."""
    from eth_utils import is_checksum_address, is_hex_address, to_checksum_address

    if not value.startswith("0x") or not is_hex_address(value):
        raise _address_error(field, "not a 0x-prefixed 20-byte hex address")
    if value[2:] not in (value[2:].lower(), value[2:].upper()) and not is_checksum_address(value):
        raise _address_error(field, "wrong EIP-55 checksum")
    return str(to_checksum_address(value))


def _address_error(field: str, reason: str) -> Exception:
    from chalicelib.platform.errors import bad_request

    return bad_request(
        INVALID_ADDRESS, f"{field}: {reason}", errors=[{"field": field, "message": reason, "type": "address"}]
    )
