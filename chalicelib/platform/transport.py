"""Outbound HTTP for JSON-RPC nodes and, next, ERC-4337 bundlers: one way to call an upstream.

* keep-alive connection pools (urllib3, which ships with botocore), reused across requests of a warm function;
* one total timeout per call (connect, send and read together), cut to what is left of the request's budget
  (platform/deadline.py): a slow node fails the call with a code before the function is killed;
* no redirects, no automatic retries (the caller fails over to its next URL), answers bounded in size;
* JSON-RPC on top: `rpc_call` and `rpc_batch` (several calls in one round trip, answered in place), with
  failover across a network's URLs on transport failures, never on a node's own JSON-RPC error.

Webhook deliveries do not use this: they keep their IP-pinned egress guard (webhooks/delivery.py).
RPC URLs often embed API keys: endpoints are logged by position, never by URL.
"""

from __future__ import annotations

import functools
import json
import threading
from collections.abc import Sequence
from typing import Any

from chalicelib.platform import clock, deadline
from chalicelib.platform.errors import UPSTREAM_UNAVAILABLE, upstream_unavailable
from chalicelib.platform.logging import logger
from chalicelib.platform.networks import Network

DEFAULT_TIMEOUT_S = 5.0
MAX_RESPONSE_BYTES = 8 * 1024 * 1024


class RpcError(RuntimeError):
    """The node answered with a JSON-RPC error (e.g. a reverted eth_call)."""

    def __init__(self, code: int | None, message: str) -> None:
        super().__init__(message)
        self.code = code

    @property
    def reverted(self) -> bool:
        return self.code == 3 or "revert" in str(self).lower()


class TransportError(Exception):
    """The upstream could not be reached, answered with an HTTP error, too much, too late, or not JSON."""


@functools.cache
def _pool() -> Any:
    import urllib3

    return urllib3.PoolManager(num_pools=32, maxsize=8, retries=False)


def post_json(url: str, body: Any, timeout_s: float = DEFAULT_TIMEOUT_S, headers: dict[str, str] | None = None) -> Any:
    """POST `body` as JSON and return the JSON answer, within one total timeout (and the request's budget)."""
    import urllib3

    total = deadline.timeout_s(timeout_s, "outbound call")
    started = clock.monotonic()
    try:
        response = _pool().request(
            "POST",
            url,
            body=json.dumps(body, separators=(",", ":")).encode(),
            headers={"Content-Type": "application/json", **(headers or {})},
            timeout=urllib3.Timeout(total=total),
            redirect=False,
            retries=False,
            preload_content=False,
        )
    except (urllib3.exceptions.HTTPError, OSError) as exc:
        raise TransportError(type(exc).__name__) from None
    # The total timeout bounds connecting and the headers; a node that trickles its body is cut off by a
    # watchdog at the same deadline (urllib3 times out each read, not the sum of them).
    watchdog = threading.Timer(max(0.0, total - (clock.monotonic() - started)), response.shutdown)
    watchdog.start()
    try:
        if response.status != 200:
            raise TransportError(f"HTTP {response.status}")
        data = response.read(MAX_RESPONSE_BYTES + 1)
        if clock.monotonic() - started >= total:
            raise TransportError("timed out")
        if len(data) > MAX_RESPONSE_BYTES:
            raise TransportError("answer too large")
        return json.loads(data)
    except (urllib3.exceptions.HTTPError, OSError) as exc:
        raise TransportError("timed out" if clock.monotonic() - started >= total else type(exc).__name__) from None
    except ValueError:
        raise TransportError("timed out" if clock.monotonic() - started >= total else "not JSON") from None
    finally:
        watchdog.cancel()
        response.release_conn()


def rpc_call(
    network: Network, method: str, params: list[Any] | None = None, timeout_s: float = DEFAULT_TIMEOUT_S
) -> Any:
    """Call `method` on the first RPC URL that answers; a node error is raised (RpcError), not retried elsewhere."""
    answer = _first_answer(network, {"jsonrpc": "2.0", "id": 1, "method": method, "params": params or []}, timeout_s)
    return _result(answer)


def rpc_batch(
    network: Network, calls: Sequence[tuple[str, list[Any]]], timeout_s: float = DEFAULT_TIMEOUT_S
) -> list[Any]:
    """Several calls in one round trip; each answered in place by its result or its RpcError."""
    if not calls:
        return []
    payload = [{"jsonrpc": "2.0", "id": i, "method": m, "params": p} for i, (m, p) in enumerate(calls)]
    answers = _first_answer(network, payload, timeout_s)
    by_id = {a.get("id"): a for a in answers if isinstance(a, dict)}
    results: list[Any] = []
    for i in range(len(calls)):
        answer = by_id.get(i)
        if answer is None:
            results.append(RpcError(None, "the node left this call of the batch unanswered"))
            continue
        try:
            results.append(_result(answer))
        except RpcError as exc:
            results.append(exc)
    return results


def _result(answer: dict[str, Any]) -> Any:
    error = answer.get("error")
    if error is not None:
        code = error.get("code") if isinstance(error, dict) else None
        message = error.get("message") if isinstance(error, dict) else None
        raise RpcError(code if isinstance(code, int) else None, str(message or "rpc error")[:300])
    return answer.get("result")


def _first_answer(network: Network, payload: Any, timeout_s: float) -> Any:
    batch = isinstance(payload, list)
    for index, url in enumerate(network.rpcUrls):
        try:
            answer = post_json(url, payload, timeout_s)
        except TransportError as exc:
            logger.warning(
                "rpc endpoint failed", extra={"network": network.name, "endpoint": index, "reason": str(exc)}
            )
            continue
        if isinstance(answer, list if batch else dict):
            return answer
        logger.warning("rpc endpoint answered the wrong shape", extra={"network": network.name, "endpoint": index})
    raise upstream_unavailable(UPSTREAM_UNAVAILABLE, f"No RPC endpoint of network {network.name} is reachable")
