"""platform/pinned_http.py: a POST within one deadline to an address the egress guard checked."""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from chalicelib.platform import pinned_http, settings


@pytest.fixture
def loopback_allowed(monkeypatch):
    monkeypatch.setenv("DOMPET_WEBHOOK_ALLOWLIST", "127.0.0.1/32")
    settings.load_settings.cache_clear()
    yield
    settings.load_settings.cache_clear()


@pytest.fixture
def receiver():
    seen: list[dict] = []
    behaviour = {"status": 204, "stall_s": 0.0}

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            body = self.rfile.read(int(self.headers["Content-Length"]))
            seen.append({"host": self.headers["Host"], "sig": self.headers.get("X-Sig"), "body": body})
            time.sleep(behaviour["stall_s"])
            self.send_response(behaviour["status"])
            self.send_header("Content-Length", "0")
            self.end_headers()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/hook", seen, behaviour
    server.shutdown()
    server.server_close()


def test_a_post_reaches_the_checked_address_with_its_headers(loopback_allowed, receiver):
    url, seen, _ = receiver
    assert pinned_http.post(url, b'{"a":1}', lambda: {"X-Sig": "s"}, timeout_s=5) == (204, None)
    assert seen == [{"host": url.split("/")[2], "sig": "s", "body": b'{"a":1}'}]


def test_a_non_2xx_is_its_status_and_an_error(loopback_allowed, receiver):
    url, _, behaviour = receiver
    behaviour["status"] = 503
    assert pinned_http.post(url, b"{}", {}, timeout_s=5) == (503, "HTTP 503")


def test_a_url_the_egress_guard_refuses_is_never_contacted(receiver):
    url, seen, _ = receiver  # loopback is not allowlisted here
    headers_made = []
    status, error = pinned_http.post(url, b"{}", lambda: headers_made.append(1) or {}, timeout_s=5)
    assert status is None and error is not None and error.startswith("refused: ")
    assert seen == [] and headers_made == []


def test_a_receiver_slower_than_the_deadline_is_a_timeout(loopback_allowed, receiver):
    url, _, behaviour = receiver
    behaviour["stall_s"] = 2.0
    assert pinned_http.post(url, b"{}", {}, timeout_s=0.5) == (None, "TimeoutError")


@pytest.fixture
def keep_alive_receiver(monkeypatch):
    """An HTTP/1.1 receiver on 127.0.0.1 and 127.0.0.2 (one port) that notes, for each request, the connection it
    came on (client port) and the local address it was sent to; `hooks.test` resolves to what `answers` says."""
    import socket

    seen: list[tuple[int, str]] = []

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def do_POST(self):
            self.rfile.read(int(self.headers["Content-Length"]))
            seen.append((self.client_address[1], self.connection.getsockname()[0]))
            self.send_response(204)
            self.send_header("Content-Length", "0")
            self.end_headers()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    other = ThreadingHTTPServer(("127.0.0.2", server.server_address[1]), Handler)  # the same port elsewhere
    for serving in (server, other):
        threading.Thread(target=serving.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    answers = {"hooks.test": "127.0.0.1"}
    real = socket.getaddrinfo

    def getaddrinfo(host, port, *args, **kwargs):
        if host in answers:
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (answers[host], port))]
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    monkeypatch.setenv("DOMPET_WEBHOOK_ALLOWLIST", "127.0.0.0/8")
    settings.load_settings.cache_clear()
    pinned_http._POOL.clear()
    yield f"http://hooks.test:{server.server_address[1]}/hook", seen, answers
    pinned_http._POOL.clear()
    settings.load_settings.cache_clear()
    for serving in (server, other):
        serving.shutdown()
        serving.server_close()


def test_connections_are_kept_alive_and_reused_only_for_an_address_this_calls_check_allowed(keep_alive_receiver):
    url, seen, answers = keep_alive_receiver
    for _ in range(3):
        assert pinned_http.post(url, b"{}", {}, timeout_s=5) == (204, None)
    assert len({port for port, _ in seen}) == 1 and {address for _, address in seen} == {"127.0.0.1"}

    answers["hooks.test"] = "127.0.0.2"  # the name now resolves elsewhere: the pooled connection is not used
    assert pinned_http.post(url, b"{}", {}, timeout_s=5) == (204, None)
    assert seen[-1][1] == "127.0.0.2" and seen[-1][0] != seen[0][0]

    answers["hooks.test"] = "10.0.0.1"  # and a refused address is refused, pooled connections or not
    before = len(seen)
    status, error = pinned_http.post(url, b"{}", {}, timeout_s=5)
    assert status is None and error is not None and error.startswith("refused: ") and len(seen) == before


def test_a_connection_the_receiver_closed_is_not_reused(keep_alive_receiver):
    url, seen, _ = keep_alive_receiver
    assert pinned_http.post(url, b"{}", {}, timeout_s=5) == (204, None)
    [(_, _, connection)] = next(iter(pinned_http._POOL._idle.values()))
    connection.sock.shutdown(2)  # as a receiver's idle timeout would: the socket becomes readable (EOF)
    assert pinned_http.post(url, b"{}", {}, timeout_s=5) == (204, None)
    assert seen[0][0] != seen[1][0]  # a new connection, and the request sent once
