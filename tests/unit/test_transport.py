"""Outbound JSON-RPC: pooled connections, one total timeout within the budget, failover, batching."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from chalicelib.platform import deadline, transport
from chalicelib.platform.errors import ApiError
from chalicelib.platform.networks import Network

connections: list[int] = []


class Node(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    mode = "ok"

    def log_message(self, *args):  # quiet
        pass

    def do_POST(self):
        connections.append(id(self.connection))
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        mode = type(self).mode
        if mode == "down":
            return self._send(500, b"boom")
        if mode == "redirect":
            self.send_response(302)
            self.send_header("Location", "http://127.0.0.1:9/")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return None
        if mode == "trickle":
            self.send_response(200)
            self.send_header("Content-Length", "1000")
            self.end_headers()
            for _ in range(1000):
                try:
                    self.wfile.write(b" ")
                    self.wfile.flush()
                except OSError:
                    return None
                time.sleep(0.2)
            return None
        if isinstance(body, list):  # answer out of order, the second call fails
            answers = [
                {
                    "jsonrpc": "2.0",
                    "id": c["id"],
                    **(
                        {"error": {"code": 3, "message": "execution reverted"}}
                        if c["id"] == 1
                        else {"result": c["method"]}
                    ),
                }
                for c in reversed(body)
            ]
            return self._send(200, json.dumps(answers).encode())
        if body["method"] == "fail":
            return self._send(
                200, json.dumps({"jsonrpc": "2.0", "id": 1, "error": {"code": -32000, "message": "nope"}}).encode()
            )
        return self._send(200, json.dumps({"jsonrpc": "2.0", "id": body["id"], "result": body["method"]}).encode())

    def _send(self, status, payload):
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


class QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):  # a client that hung up: expected here
        pass


def _server(mode: str):
    handler = type(f"Node_{mode}", (Node,), {"mode": mode})
    server = QuietServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


@pytest.fixture
def nodes():
    started = []

    def start(*modes: str) -> Network:
        urls = []
        for mode in modes:
            server, url = _server(mode)
            started.append(server)
            urls.append(url)
        return Network(name="t", chainId=1, rpcUrls=urls, nativeSymbol="ETH")

    yield start
    transport._pool().clear()  # close pooled connections before the servers go
    for server in started:
        server.shutdown()
        server.server_close()


def test_a_call_and_keep_alive(nodes):
    network = nodes("ok")
    connections.clear()
    assert transport.rpc_call(network, "eth_chainId") == "eth_chainId"
    assert transport.rpc_call(network, "eth_blockNumber") == "eth_blockNumber"
    assert len(set(connections)) == 1  # the second call reused the pooled connection


def test_failover_on_transport_errors_not_on_node_errors(nodes):
    network = nodes("down", "redirect", "ok")
    assert transport.rpc_call(network, "eth_chainId") == "eth_chainId"  # 500, then a refused redirect, then ok
    with pytest.raises(transport.RpcError) as refused:
        transport.rpc_call(nodes("ok", "ok"), "fail")
    assert str(refused.value) == "nope"


def test_a_batch_is_one_round_trip_matched_by_id(nodes):
    network = nodes("ok")
    connections.clear()
    answers = transport.rpc_batch(network, [("a", []), ("b", []), ("c", [])])
    assert answers[0] == "a" and answers[2] == "c"
    assert isinstance(answers[1], transport.RpcError) and answers[1].reverted
    assert len(connections) == 1


def test_one_total_timeout_cuts_a_trickling_node(nodes):
    network = nodes("trickle")
    started = time.monotonic()
    with pytest.raises(ApiError) as down:
        transport.rpc_call(network, "eth_chainId", timeout_s=1.0)
    assert down.value.code == "UPSTREAM_UNAVAILABLE"
    assert time.monotonic() - started < 3.0


def test_no_node_is_502_and_no_budget_is_503(nodes):
    with pytest.raises(ApiError) as down:
        transport.rpc_call(nodes("down"), "eth_chainId")
    assert (down.value.status, down.value.code) == (502, "UPSTREAM_UNAVAILABLE")
    with deadline.budget(deadline.RESERVE_S), pytest.raises(ApiError) as late:
        transport.rpc_call(nodes("ok"), "eth_chainId")
    assert (late.value.status, late.value.code) == (503, "DEADLINE_EXCEEDED")
