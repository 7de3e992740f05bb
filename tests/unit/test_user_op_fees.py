"""Fees of a user operation: the bundler's own price when it serves Pimlico's method, else the node's."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler

import pytest

from chalicelib.platform.networks import Network
from chalicelib.user_ops import build
from tests.support.servers import QuietServer


def _server(answers: dict[str, object]) -> str:
    class Endpoint(BaseHTTPRequestHandler):
        def log_message(self, *args):  # quiet
            pass

        def do_POST(self):
            request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            calls = request if isinstance(request, list) else [request]
            replies = []
            for c in calls:
                result = answers.get(c["method"], KeyError)
                if result is KeyError:
                    replies.append({"jsonrpc": "2.0", "id": c["id"], "error": {"code": -32601, "message": "not found"}})
                else:
                    replies.append({"jsonrpc": "2.0", "id": c["id"], "result": result})
            body = json.dumps(replies if isinstance(request, list) else replies[0]).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = QuietServer(("127.0.0.1", 0), Endpoint)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}"


def network(node: str, bundler: str) -> Network:
    return Network(
        name="n",
        chainId=31337,
        rpcUrls=(node,),
        nativeSymbol="ETH",
        tokens={"usdt": "0x" + "12" * 20},
        usdtDecimals=6,
        entryPoint="0x0000000071727De22E5E9d8BAf0edAc6f37da032",
        accountFactory="0x91E60e0613810449d098b0b5Ec8b51A0FE8c8985",
        paymaster="0x" + "34" * 20,
        bundlerUrls=(bundler,),
        poolAddress="0x" + "56" * 20,
        nativeToGasTankRate="2000",
    )


@pytest.fixture
def node():
    return _server({"eth_getBlockByNumber": {"baseFeePerGas": hex(7)}, "eth_maxPriorityFeePerGas": hex(3)})


def test_the_bundlers_price_first(node):
    bundler = _server(
        {"pimlico_getUserOperationGasPrice": {"fast": {"maxFeePerGas": "0x64", "maxPriorityFeePerGas": "0x5"}}}
    )
    assert build._fees(network(node, bundler)) == (100, 5)


def test_a_bundler_without_the_method_falls_back_to_the_node(node):
    bundler = _server({})  # another vendor's bundler: method not found
    assert build._fees(network(node, bundler)) == (2 * 7 + 3, 3)
