"""Outbound HTTP for JSON-RPC nodes and ERC-4337 bundlers: one way to call an upstream.

* keep-alive connection pools (urllib3, which ships with botocore), reused across requests of a warm function;
* one total timeout per call (connect, send and read together), cut to what is left of the request's budget
  (platform/deadline.py): a slow node fails the call with a code before the function is killed;
* no redirects, no automatic retries (the caller fails over to its next URL), answers bounded in size;
* JSON-RPC on top: `rpc_call` and `rpc_batch` (several calls in one round trip, answered in place), with
  failover across a network's URLs on transport failures, never on a node's own JSON-RPC error.

Webhook deliveries do not use this: they go to customers' URLs through platform/pinned_http.py (the egress guard).
RPC URLs often embed API keys: endpoints are logged by position, never by URL.
"""

from __future__ import annotations

import contextlib
import functools
import json
import socket
import threading
from collections.abc import Sequence
from typing import Any

from chalicelib.platform import clock, deadline, jsonsafe
from chalicelib.platform.errors import UPSTREAM_UNAVAILABLE, upstream_unavailable
from chalicelib.platform.logging import logger
from chalicelib.platform.networks import AnyNetwork, Network

DEFAULT_TIMEOUT_S = 5.0
MAX_RESPONSE_BYTES = 8 * 1024 * 1024
MAX_BATCH = 100  # calls per round trip: public providers refuse larger batches (some at 100)


class RpcError(RuntimeError):
    """The node answered with a JSON-RPC error (e.g. a reverted eth_call)."""

    def __init__(self, code: int | None, message: str) -> None:
        super().__init__(message)
        self.code = code
        # The position of the URL that answered: above 0, the URLs before it failed to answer, so a call that
        # changes state (e.g. eth_sendUserOperation) may still have reached one of them.
        self.endpoint = 0

    @property
    def reverted(self) -> bool:
        return self.code == 3 or "revert" in str(self).lower()


class TransportError(Exception):
    """The upstream could not be reached, answered with an HTTP error, too much, too late, or not JSON."""


class _Call:
    """One call's connection, so a watchdog can cut it at the call's deadline whatever phase it is in."""

    def __init__(self) -> None:
        self.connection: Any = None
        self.expired = False

    def attach(self, connection: Any) -> None:
        self.connection = connection
        if self.expired:
            self.cut()

    def expire(self) -> None:
        self.expired = True
        self.cut()

    def cut(self) -> None:
        sock = getattr(self.connection, "sock", None)
        if sock is not None:
            with contextlib.suppress(OSError):  # a blocked send or read in the calling thread returns at once
                sock.shutdown(socket.SHUT_RDWR)


_current = threading.local()  # the _Call the calling thread is making


def _tracked(base: Any) -> Any:
    """A urllib3 connection class that tells the current call which (possibly pooled) connection it got."""

    def request(self: Any, *args: Any, **kwargs: Any) -> None:
        call = getattr(_current, "call", None)
        if call is not None:
            call.attach(self)
        base.request(self, *args, **kwargs)

    return type(f"Tracked{base.__name__}", (base,), {"request": request})


@functools.cache
def _pool() -> Any:
    import logging

    import urllib3
    from urllib3.connection import HTTPConnection, HTTPSConnection
    from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

    # urllib3 logs each request's URL (path included) at DEBUG and a few hosts or URLs at WARNING; RPC URLs
    # carry API keys, so its own logging stays off (failures are logged here, by endpoint index).
    logging.getLogger("urllib3").setLevel(logging.ERROR)
    manager = urllib3.PoolManager(num_pools=32, maxsize=8, retries=False)
    manager.pool_classes_by_scheme = {
        "http": type("TrackedPool", (HTTPConnectionPool,), {"ConnectionCls": _tracked(HTTPConnection)}),
        "https": type("TrackedTlsPool", (HTTPSConnectionPool,), {"ConnectionCls": _tracked(HTTPSConnection)}),
    }
    return manager


def post_json(
    url: str,
    body: Any,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    headers: dict[str, str] | None = None,
    max_bytes: int = MAX_RESPONSE_BYTES,
) -> Any:
    """POST `body` as JSON and return the JSON answer, within one total timeout (and the request's budget).

    urllib3's own timeouts bound each socket operation; the total (connecting, sending, the headers and a
    body that trickles in) is enforced by a watchdog that shuts the call's socket down at the deadline.
    """
    import urllib3

    total = deadline.timeout_s(timeout_s, "outbound call")
    started = clock.monotonic()
    call = _Call()
    watchdog = threading.Timer(total, call.expire)
    watchdog.daemon = True
    _current.call = call
    watchdog.start()
    response = None
    ok = False

    def failure(reason: str) -> TransportError:
        return TransportError("timed out" if call.expired or clock.monotonic() - started >= total else reason)

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
        if response.status != 200:
            raise TransportError(f"HTTP {response.status}")
        data = response.read(max_bytes + 1)
        if call.expired:
            raise failure("timed out")
        if len(data) > max_bytes:
            raise TransportError("answer too large")
        answer = jsonsafe.loads(data)
        ok = True
        return answer
    except (urllib3.exceptions.HTTPError, OSError) as exc:
        raise failure(type(exc).__name__) from None
    except ValueError:  # not JSON, or nested deeper than jsonsafe allows
        raise failure("not JSON") from None
    finally:
        watchdog.cancel()
        _current.call = None
        if response is not None:
            if not ok:  # a connection with an unread or cut answer is not reused
                response.close()
            response.release_conn()


def rpc_call(
    network: AnyNetwork,
    method: str,
    params: list[Any] | None = None,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    bundler: bool = False,
    max_bytes: int = MAX_RESPONSE_BYTES,
) -> Any:
    """Call `method` on the first RPC URL (or, with `bundler`, ERC-4337 bundler URL) that answers; a node error is
    raised (RpcError), not retried elsewhere. `max_bytes`: the largest answer taken (a whole block is larger than
    most)."""
    payload = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params or []}
    answer, endpoint = _first_answer(network, payload, timeout_s, bundler, max_bytes)
    try:
        return _result(answer)
    except RpcError as exc:
        exc.endpoint = endpoint
        raise


def rpc_batch(
    network: AnyNetwork, calls: Sequence[tuple[str, list[Any]]], timeout_s: float = DEFAULT_TIMEOUT_S
) -> list[Any]:
    """Several calls in one round trip (per MAX_BATCH calls); each answered in place by its result or its RpcError.

    Answers are matched by id, whatever order the node sends them in; a call the node left unanswered is an
    RpcError in its place. A whole batch that fails (transport, HTTP, not a JSON array) fails over to the next URL.
    """
    results: list[Any] = []
    for start in range(0, len(calls), MAX_BATCH):
        chunk = calls[start : start + MAX_BATCH]
        payload = [{"jsonrpc": "2.0", "id": i, "method": m, "params": p} for i, (m, p) in enumerate(chunk)]
        answers, _ = _first_answer(network, payload, timeout_s)
        by_id = {a["id"]: a for a in answers if isinstance(a, dict) and type(a.get("id")) is int}
        for i in range(len(chunk)):
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


def _first_answer(
    network: AnyNetwork,
    payload: Any,
    timeout_s: float,
    bundler: bool = False,
    max_bytes: int = MAX_RESPONSE_BYTES,
) -> tuple[Any, int]:
    """The first answer of the right shape, with the position of the URL that gave it."""
    batch = isinstance(payload, list)
    urls = network.bundlerUrls if bundler and isinstance(network, Network) else network.rpcUrls
    what = "bundler" if bundler else "RPC endpoint"
    headers = {} if bundler else network.rpc_headers()
    for index, url in enumerate(urls):
        try:
            answer = post_json(url, payload, timeout_s, headers or None, max_bytes)
        except TransportError as exc:
            logger.warning(
                "rpc endpoint failed",
                extra={"network": network.name, "endpoint": index, "bundler": bundler, "reason": str(exc)},
            )
            continue
        if isinstance(answer, list if batch else dict):
            return answer, index
        logger.warning("rpc endpoint answered the wrong shape", extra={"network": network.name, "endpoint": index})
    deadline.require("rpc call")  # the budget, not the nodes, ended the call: 503 DEADLINE_EXCEEDED
    raise upstream_unavailable(UPSTREAM_UNAVAILABLE, f"No {what} of network {network.name} is reachable")
