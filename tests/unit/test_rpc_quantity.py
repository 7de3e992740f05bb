"""evm/rpc.py's `quantity`: the one parser of a node's hex quantities, strict where `int(x, 16)` is lenient."""

from __future__ import annotations

import pytest

from chalicelib.evm.rpc import node_quantity, quantity
from chalicelib.platform.errors import ApiError
from chalicelib.platform.networks import Network


@pytest.mark.parametrize(
    ("text", "value"),
    [("0x0", 0), ("0x1", 1), ("0xff", 255), ("0xFF", 255), ("0x0001", 1), ("0x" + "f" * 64, 2**256 - 1)],
)
def test_hex_quantities_parse(text, value):
    assert quantity(text) == value


@pytest.mark.parametrize(
    "answer",
    [
        "",
        "0x",
        "0X1",
        "1",
        "ff",
        "-0x1",
        "0x-1",
        " 0x1",
        "0x1 ",
        "0x_1",
        "0x1_0",
        "0xg",
        "0x" + "f" * 65,
        None,
        1,
        1.0,
        True,
        b"0x1",
        {"result": "0x1"},
    ],
)
def test_anything_else_is_refused(answer):
    with pytest.raises(ValueError):
        quantity(answer)


def test_a_malformed_node_answer_is_the_nodes_failure():
    network = Network(name="t", chainId=31399, rpcUrls=["http://127.0.0.1:9"], nativeSymbol="ETH")
    with pytest.raises(ApiError) as error:
        node_quantity(network, "0x_1", "eth_blockNumber")
    assert error.value.status == 502 and error.value.code == "UPSTREAM_UNAVAILABLE"
    assert "eth_blockNumber" in error.value.message
    assert node_quantity(network, "0x2a", "eth_blockNumber") == 42
