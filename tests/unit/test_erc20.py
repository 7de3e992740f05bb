"""ERC-20 reads are bounded: a hostile or broken token contract (or node) gets a 4xx/502, never a hang or a 500.

A small JSON-RPC server on loopback plays the node so each odd answer can be produced exactly.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from chalicelib.evm import erc20
from chalicelib.evm.rpc import rpc_call
from chalicelib.platform.errors import ApiError
from chalicelib.platform.networks import Network

TOKEN = "0x" + "ab" * 20
OWNER = "0x" + "cd" * 20


def word(value: int) -> str:
    return hex(value)[2:].rjust(64, "0")


def abi_string(text: bytes, offset: int = 32, length: int | None = None) -> str:
    length = len(text) if length is None else length
    return "0x" + word(offset) + word(length) + text.hex().ljust(64, "0")


class Node:
    def __init__(self) -> None:
        self.answers: dict[str, object] = {}
        self.status = 200
        self.requests: list[object] = []
        handler = self._handler()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def _handler(self):
        node = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                node.requests.append(request)
                if node.status != 200:
                    self.send_response(node.status)
                    self.send_header("Location", "http://127.0.0.1:9/")
                    self.end_headers()
                    return
                batch = request if isinstance(request, list) else [request]
                answers = [{"jsonrpc": "2.0", "id": one["id"], **node.answer(one)} for one in batch]
                body = json.dumps(answers if isinstance(request, list) else answers[0]).encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        return Handler

    def answer(self, request: dict) -> dict:
        selector = request["params"][0]["data"][:10] if request["method"] == "eth_call" else request["method"]
        return self.answers.get(selector, {"result": "0x" + word(0)})


@pytest.fixture
def node():
    erc20._info.clear()
    served = Node()
    yield served
    served.server.shutdown()
    served.server.server_close()


def network(*urls: str) -> Network:
    return Network(name="t", chainId=31399, rpcUrls=urls, nativeSymbol="ETH")


def refused(call) -> ApiError:
    with pytest.raises(ApiError) as error:
        call()
    return error.value


def test_a_normal_token(node):
    node.answers = {erc20.DECIMALS: {"result": "0x" + word(6)}, erc20.SYMBOL: {"result": abi_string(b"USDT")}}
    node.answers[erc20.BALANCE_OF] = {"result": "0x" + word(1_500_000) + word(99)}  # extra data is ignored
    info = erc20.token_info(network(node.url), TOKEN)
    assert (info.decimals, info.symbol) == (6, "USDT")
    assert erc20.balance_of(network(node.url), TOKEN, OWNER) == 1_500_000


def test_metadata_and_balance_are_one_round_trip_of_abi_encoded_calls(node):
    node.answers = {erc20.DECIMALS: {"result": "0x" + word(6)}, erc20.SYMBOL: {"result": abi_string(b"USDT")}}
    node.answers[erc20.BALANCE_OF] = {"result": "0x" + word(7)}
    info, balance = erc20.token_holding(network(node.url), TOKEN, OWNER)
    assert (info.decimals, info.symbol, balance) == (6, "USDT", 7)
    assert len(node.requests) == 1 and isinstance(node.requests[0], list) and len(node.requests[0]) == 3
    datas = [one["params"][0]["data"] for one in node.requests[0]]
    assert datas[2] == erc20.BALANCE_OF + "00" * 12 + "cd" * 20  # the owner, ABI-encoded as one word
    assert erc20.token_info(network(node.url), TOKEN) == info and len(node.requests) == 1  # cached
    assert erc20.token_holding(network(node.url), TOKEN, OWNER)[1] == 7 and len(node.requests) == 2


def test_selectors_are_the_keccak_of_the_signatures():
    from eth_utils import function_signature_to_4byte_selector as selector

    for constant, signature in (
        (erc20.DECIMALS, "decimals()"),
        (erc20.SYMBOL, "symbol()"),
        (erc20.BALANCE_OF, "balanceOf(address)"),
    ):
        assert constant == "0x" + selector(signature).hex()


def test_bytes32_symbol(node):
    node.answers = {
        erc20.DECIMALS: {"result": "0x" + word(18)},
        erc20.SYMBOL: {"result": "0x" + b"MKR".hex().ljust(64, "0")},
    }
    assert erc20.token_info(network(node.url), TOKEN).symbol == "MKR"


@pytest.mark.parametrize(
    "answers",
    [
        {erc20.DECIMALS: {"result": "0x" + word(10**7)}},  # would make a 10 MB string
        {erc20.DECIMALS: {"result": "0x" + word(2**255)}},
        {erc20.SYMBOL: {"result": "0x" + word(10**9) + word(3)}},  # offset far outside the answer
        {erc20.SYMBOL: {"result": abi_string(b"X", length=10**6)}},  # length far outside the answer
        {erc20.SYMBOL: {"result": abi_string(b"A" * 40)}},  # longer than any symbol
        {erc20.SYMBOL: {"result": abi_string(b"\x00\x01")}},  # not printable
        {erc20.DECIMALS: {"result": "0x"}},  # no code at the address
        {erc20.DECIMALS: {"result": "0xzz" + "0" * 62}},
        {erc20.DECIMALS: {"result": None}},
        {erc20.DECIMALS: {"error": {"code": 3, "message": "execution reverted"}}},
    ],
)
def test_hostile_or_broken_tokens_are_not_tokens(node, answers):
    node.answers = {erc20.DECIMALS: {"result": "0x" + word(18)}, erc20.SYMBOL: {"result": abi_string(b"OK")}, **answers}
    started = time.monotonic()
    for read in (erc20.token_info, lambda net, token: erc20.token_holding(net, token, OWNER)):
        error = refused(lambda read=read: read(network(node.url), TOKEN))
        assert (error.status, error.code) == (422, "NOT_A_TOKEN")
    assert time.monotonic() - started < 2


def test_node_failures_are_502_not_a_token_verdict(node):
    node.answers = {erc20.DECIMALS: {"error": {"code": -32005, "message": "rate limited"}}}
    error = refused(lambda: erc20.token_info(network(node.url), TOKEN))
    assert (error.status, error.code) == (502, "UPSTREAM_UNAVAILABLE")


def test_failover_skips_refusing_and_redirecting_endpoints(node):
    other = Node()
    try:
        other.answers = {"eth_chainId": {"result": "0x7aa7"}}
        for status in (429, 302, 500):
            node.status = status
            assert rpc_call(network(node.url, other.url), "eth_chainId") == "0x7aa7"
        error = refused(lambda: rpc_call(network(node.url), "eth_chainId"))
        assert (error.status, error.code) == (502, "UPSTREAM_UNAVAILABLE")
    finally:
        other.server.shutdown()
        other.server.server_close()


def test_non_dict_errors_are_node_errors(node):
    from chalicelib.evm.rpc import RpcError

    node.answers = {"eth_blockNumber": {"error": "boom"}}
    with pytest.raises(RpcError):
        rpc_call(network(node.url), "eth_blockNumber")
