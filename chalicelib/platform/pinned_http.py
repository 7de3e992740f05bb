"""One POST to a customer's URL (webhooks), pinned to an address the egress guard checked (platform/egress.py).

The host is resolved and checked within the call, and the connection goes to a checked address with the URL's
host in the Host header and the TLS name, so DNS rebinding cannot reach an internal address; redirects are not
followed. One deadline covers everything (name resolution, connect, TLS, send and read): a watchdog shuts the
call's sockets down when it passes, whatever the receiver does (a receiver that trickles bytes keeps every
per-read timeout happy, not this one). The checked addresses are tried in turn until one accepts the connection
and completes TLS, each with an equal share of what is left for connecting; once a connection is made, nothing
is sent twice. Connections are kept alive between calls (`_Pool`): a call reuses one only when it goes to an
address this call's own check allowed, so the check is the same whether a connection is new or pooled.

Outbound calls to the service's own upstreams (JSON-RPC nodes, bundlers) use platform/transport.py instead.

    status, error = post(url, body, headers, timeout_s=10.0)

`status` is the HTTP status when one came in time; `error` is None for a 2xx, else `HTTP <status>`,
`refused: <reason>` (the URL failed the egress check), `TimeoutError`, or the name of the network error.
"""

from __future__ import annotations

import contextlib
import functools
import heapq
import itertools
import select
import socket
import threading
import time
from collections.abc import Callable, Mapping
from types import TracebackType
from typing import TYPE_CHECKING

from chalicelib.platform import clock, egress

if TYPE_CHECKING:
    import http.client
    import ssl

MAX_READ = 4096  # the answer's body is read only this far: the status is the answer


def post(
    url: str,
    body: bytes,
    headers: Mapping[str, str] | Callable[[], Mapping[str, str]],
    timeout_s: float,
    max_read: int = MAX_READ,
) -> tuple[int | None, str | None]:
    """POST `body` to `url` within `timeout_s`: (status, None) on a 2xx, else (status or None, error).

    `headers` may be a callable, called once the URL passed the check (e.g. a signature with a timestamp)."""
    import http.client  # with ssl, on first use: most of a cold start's callers never post

    with _Cutoff(clock.monotonic() + timeout_s) as cutoff:
        try:
            target = egress.allowed_target(url, timeout_s=cutoff.left())  # the lookup is part of the deadline
        except egress.UrlRefused as exc:
            return None, f"refused: {exc.reason}"
        except TimeoutError:
            return None, "TimeoutError"
        given = headers() if callable(headers) else headers
        try:
            connection = _POOL.take(target, cutoff) or _connect(target, cutoff)
        except (OSError, TimeoutError) as exc:  # ssl.SSLError is an OSError
            return None, cutoff.error(exc)
        kept = False
        try:
            connection.request("POST", target.path, body=body, headers={**given, "Host": host_header(target)})
            response = connection.getresponse()
            response.read(max_read)
            if cutoff.passed():
                return None, "TimeoutError"  # the answer came, but after the deadline
            kept = _POOL.keep(target, connection, response)
        except (OSError, http.client.HTTPException, ValueError) as exc:
            return None, cutoff.error(exc)
        finally:
            if not kept:
                connection.close()
        return response.status, None if 200 <= response.status < 300 else f"HTTP {response.status}"


class _Pool:
    """Idle keep-alive connections, by URL origin and the address each is connected to. A connection is taken
    only for an address this attempt's own check allowed (the check runs on every attempt, pooled or not), only
    while idle for less than IDLE_S, and only when nothing arrived on it meanwhile (a receiver that closed it);
    one that fails is not retried on another connection (nothing is sent twice), the attempt counts as failed."""

    IDLE_S = 30.0
    MAX_IDLE = 64

    def __init__(self) -> None:
        self._idle: dict[tuple[str, str, int], list[tuple[str, float, http.client.HTTPConnection]]] = {}
        self._lock = threading.Lock()

    def take(self, target: egress.Target, cutoff: _Cutoff) -> http.client.HTTPConnection | None:
        allowed = {str(a) for a in target.addresses}
        now = clock.monotonic()
        with self._lock:
            idle = self._idle.get((target.scheme, target.host, target.port), [])
            while idle:
                address, since, connection = idle.pop()
                if address in allowed and now - since < self.IDLE_S and _quiet(connection):
                    break
                connection.close()
            else:
                return None
        sock = connection.sock
        assert sock is not None
        cutoff.watch(sock)
        sock.settimeout(cutoff.left())
        return connection

    def keep(
        self, target: egress.Target, connection: http.client.HTTPConnection, response: http.client.HTTPResponse
    ) -> bool:
        """Put the connection back if its answer was read whole and neither side asked to close it."""
        if response.will_close or response.length not in (0, None) or not response.isclosed():
            return False
        sock = connection.sock
        if sock is None:
            return False
        address = str(sock.getpeername()[0])
        with self._lock:
            if sum(len(v) for v in self._idle.values()) >= self.MAX_IDLE:
                return False
            self._idle.setdefault((target.scheme, target.host, target.port), []).append(
                (address, clock.monotonic(), connection)
            )
        return True

    def clear(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, {}
        for connections in idle.values():
            for _, _, connection in connections:
                connection.close()


def _quiet(connection: http.client.HTTPConnection) -> bool:
    """Nothing to read on an idle connection: a receiver that closed it (or sent anything unasked) makes it
    readable."""
    sock = connection.sock
    if sock is None:
        return False
    readable, _, _ = select.select([sock], [], [], 0)
    return not readable


_POOL = _Pool()


def host_header(target: egress.Target) -> str:
    default = 443 if target.scheme == "https" else 80
    host = f"[{target.host}]" if ":" in target.host else target.host
    return host if target.port == default else f"{host}:{target.port}"


class _Cutoff:
    """The one deadline of a call: when it passes, every socket of the call is shut down, which wakes whatever
    the call is blocked in (connect is bounded by its own timeout, a share of what is left)."""

    def __init__(self, ends_at: float) -> None:
        self.ends_at = ends_at
        self.fired = False
        self.done = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()

    def __enter__(self) -> _Cutoff:
        _WATCHDOG.watch(self, max(0.0, self.ends_at - clock.monotonic()))
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.done = True

    def left(self) -> float:
        """Seconds to the deadline; TimeoutError once it has passed."""
        left = self.ends_at - clock.monotonic()
        if left <= 0 or self.fired:
            raise TimeoutError("the call's deadline passed")
        return left

    def passed(self) -> bool:
        return self.fired or clock.monotonic() >= self.ends_at

    def error(self, exc: BaseException) -> str:
        return "TimeoutError" if self.passed() or isinstance(exc, TimeoutError) else type(exc).__name__

    def watch(self, sock: socket.socket) -> None:
        with self._lock:
            self._sockets.append(sock)
            fired = self.fired
        if fired:
            _shutdown(sock)

    def fire(self) -> None:
        with self._lock:
            if self.done:
                return
            self.fired = True
            sockets = list(self._sockets)
        for sock in sockets:
            _shutdown(sock)


class _Watchdog:
    """One thread fires the deadlines of every call in flight (a timer thread per call would cost a thread start
    per attempt, and batches of attempts run at once)."""

    def __init__(self) -> None:
        self._due: list[tuple[float, int, _Cutoff]] = []
        self._ticket = itertools.count()
        self._wake = threading.Condition()
        self._thread: threading.Thread | None = None

    def watch(self, cutoff: _Cutoff, delay_s: float) -> None:
        with self._wake:
            heapq.heappush(self._due, (time.monotonic() + delay_s, next(self._ticket), cutoff))
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="pinned-http-deadlines", daemon=True)
                self._thread.start()
            self._wake.notify()

    def _run(self) -> None:
        while True:
            with self._wake:
                while True:
                    while self._due and self._due[0][2].done:
                        heapq.heappop(self._due)  # finished in time
                    if not self._due:
                        self._wake.wait()
                        continue
                    at = self._due[0][0]
                    if at <= time.monotonic():
                        cutoff = heapq.heappop(self._due)[2]
                        break
                    self._wake.wait(at - time.monotonic())
            cutoff.fire()


_WATCHDOG = _Watchdog()


def _shutdown(sock: socket.socket) -> None:
    """Wake a thread blocked on `sock` without closing it under that thread (its owner closes it). The plain
    socket's shutdown, also for TLS sockets: SSLSocket.shutdown would drop the TLS state another thread is using."""
    with contextlib.suppress(OSError):  # already closed, or never connected
        socket.socket.shutdown(sock, socket.SHUT_RDWR)


def _connect(target: egress.Target, cutoff: _Cutoff) -> http.client.HTTPConnection:
    """A connection (TLS done) to the first checked address that accepts one, each address getting an equal
    share of what is left for its TCP connect."""
    import http.client

    failure: Exception = OSError("no address")
    addresses = target.addresses
    for index, address in enumerate(addresses):
        share = cutoff.left() / (len(addresses) - index)
        try:
            sock = socket.create_connection((str(address), target.port), timeout=share)
        except OSError as exc:
            failure = exc
            continue
        cutoff.watch(sock)
        try:
            if target.scheme == "https":
                sock.settimeout(cutoff.left())
                sock = _tls().wrap_socket(sock, server_hostname=target.host, do_handshake_on_connect=False)
                cutoff.watch(sock)
                sock.do_handshake()
            sock.settimeout(cutoff.left())
        except OSError as exc:  # ssl.SSLError included
            sock.close()
            failure = exc
            continue
        connection = http.client.HTTPConnection(target.host, target.port, timeout=sock.gettimeout())
        connection.sock = sock  # pinned to the checked address; the Host header names the URL's host
        return connection
    raise failure


@functools.cache
def _tls() -> ssl.SSLContext:
    """Certificates are checked for the URL's host name (the connection goes to a checked address)."""
    import ssl

    return ssl.create_default_context()
