"""Outbound JSON-RPC: pooled connections, one total timeout within the budget, failover, batching."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler

import pytest

from chalicelib.platform import deadline, transport
from chalicelib.platform.errors import ApiError
from chalicelib.platform.networks import Network
from tests.support.servers import QuietServer

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
        if mode == "deep":
            return self._send(200, b"[" * 200_000)
        if mode == "slowheaders":
            self.wfile.write(b"HTTP/1.1 200 OK\r\n")
            for _ in range(50):
                try:
                    self.wfile.write(b"X-Pad: 1\r\n")
                    self.wfile.flush()
                except OSError:
                    return None
                time.sleep(0.1)
            return None
        if mode == "notjson":
            return self._send(200, b"<html>gateway</html>")
        if mode == "big":
            return self._send(200, b'"' + b"a" * (transport.MAX_RESPONSE_BYTES + 10) + b'"')
        if mode == "slow":
            time.sleep(1.0)
            return self._send(200, json.dumps({"jsonrpc": "2.0", "id": 1, "result": "late"}).encode())
        if mode == "nobatch" and isinstance(body, list):  # a node that refuses batches with one error object
            return self._send(200, json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": -32600}}).encode())
        if mode == "partial" and isinstance(body, list):  # forgets the last call, adds one nobody asked for
            answers = [{"jsonrpc": "2.0", "id": c["id"], "result": c["method"]} for c in body[:-1]]
            answers.append({"jsonrpc": "2.0", "id": 99, "result": "stray"})
            answers.append({"jsonrpc": "2.0", "id": True, "result": "not an id"})
            return self._send(200, json.dumps(answers).encode())
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


def _server(mode: str):
    handler = type(f"Node_{mode}", (Node,), {"mode": mode})
    server = QuietServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
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


@pytest.mark.parametrize("mode", ["trickle", "slowheaders"])
def test_one_total_timeout_cuts_a_trickling_node(nodes, mode):
    network = nodes(mode, "ok")
    started = time.monotonic()
    assert transport.rpc_call(network, "eth_chainId", timeout_s=0.5) == "eth_chainId"  # cut, then failed over
    assert time.monotonic() - started < 1.0
    with pytest.raises(transport.TransportError, match="timed out"):
        transport.post_json(network.rpcUrls[0], {}, timeout_s=0.5)


def test_no_node_is_502_and_no_budget_is_503(nodes):
    with pytest.raises(ApiError) as down:
        transport.rpc_call(nodes("down"), "eth_chainId")
    assert (down.value.status, down.value.code) == (502, "UPSTREAM_UNAVAILABLE")
    with deadline.budget(deadline.RESERVE_S), pytest.raises(ApiError) as late:
        transport.rpc_call(nodes("ok"), "eth_chainId")
    assert (late.value.status, late.value.code) == (503, "DEADLINE_EXCEEDED")


def test_redirects_are_refused_not_followed(nodes):
    network = nodes("redirect")
    connections.clear()
    with pytest.raises(ApiError) as down:
        transport.rpc_call(network, "eth_chainId")
    assert down.value.code == "UPSTREAM_UNAVAILABLE"
    assert len(connections) == 1  # the Location was not visited


def test_oversize_and_non_json_answers_fail_over(nodes):
    assert transport.rpc_call(nodes("big", "notjson", "deep", "ok"), "eth_chainId") == "eth_chainId"
    for mode in ("big", "notjson", "deep"):
        with pytest.raises(transport.TransportError):
            transport.post_json(nodes(mode).rpcUrls[0], {"x": 1})


def test_a_whole_batch_failure_fails_over_and_per_item_gaps_are_errors(nodes):
    network = nodes("down", "nobatch", "partial")
    answers = transport.rpc_batch(network, [("a", []), ("b", []), ("c", [])])
    assert answers[:2] == ["a", "b"]
    assert isinstance(answers[2], transport.RpcError) and not answers[2].reverted
    assert transport.rpc_batch(network, []) == []


def test_large_batches_are_split_at_the_providers_limit(nodes, monkeypatch):
    monkeypatch.setattr(transport, "MAX_BATCH", 2)
    network = nodes("ok")
    connections.clear()
    answers = transport.rpc_batch(network, [("a", []), ("b", []), ("c", []), ("d", []), ("e", [])])
    assert [answers[0], answers[2], answers[4]] == ["a", "c", "e"]
    assert isinstance(answers[1], transport.RpcError) and isinstance(answers[3], transport.RpcError)  # id 1 of a chunk
    assert len(connections) == 3


def test_a_call_cut_by_the_budget_is_503_not_502(nodes):
    network = nodes("slow")
    started = time.monotonic()
    with deadline.budget(deadline.RESERVE_S + 0.3), pytest.raises(ApiError) as late:
        transport.rpc_call(network, "eth_chainId")
    assert (late.value.status, late.value.code) == (503, "DEADLINE_EXCEEDED")
    assert time.monotonic() - started < 0.9


def test_endpoints_are_logged_by_index_never_by_url(nodes, caplog):
    network = nodes("down", "ok")
    network = network.model_copy(update={"rpcUrls": (network.rpcUrls[0] + "v3/SECRETKEY", network.rpcUrls[1])})
    with caplog.at_level("DEBUG"):
        assert transport.rpc_call(network, "eth_chainId") == "eth_chainId"
    logged = " ".join(f"{r.getMessage()} {r.__dict__}" for r in caplog.records)
    assert "rpc endpoint failed" in logged and "SECRETKEY" not in logged and "127.0.0.1" not in logged
