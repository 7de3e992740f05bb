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
