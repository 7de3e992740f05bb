"""Calldata and return values through eth_abi: the bytes every ERC-20/721 expects, strict decoding."""

from __future__ import annotations

import pytest

from chalicelib.evm import abi

TO = "0x19E7E376E7C213B7E7e7e46cc70A5dD086DAff2A"


def _word(value: int) -> str:
    return f"{value:064x}"


def test_calls_are_selector_and_words():
    to_word = TO[2:].lower().rjust(64, "0")
    assert abi.transfer(TO, 5).hex() == "a9059cbb" + to_word + _word(5)
    assert abi.safe_transfer_from(TO, TO, 2**256 - 1).hex() == "42842e0e" + to_word + to_word + "f" * 64
    assert abi.owner_of(7).hex() == "6352211e" + _word(7)
    assert abi.balance_of(TO).hex() == "70a08231" + to_word
    assert (abi.decimals().hex(), abi.symbol().hex()) == ("313ce567", "95d89b41")


def test_out_of_range_arguments_are_refused():
    from eth_abi.exceptions import EncodingError

    with pytest.raises(EncodingError):
        abi.transfer(TO, 2**256)
    with pytest.raises(EncodingError):
        abi.transfer(TO, -1)


def test_decoding_is_strict():
    assert abi.decode_address(bytes(12) + bytes.fromhex(TO[2:])) == TO
    assert abi.decode_uint(bytes.fromhex(_word(6))) == 6
    text = bytes.fromhex(_word(32) + _word(4)) + b"USDT".ljust(32, b"\0")
    assert abi.decode_string(text) == "USDT"
    for bad in (b"\x01" * 32, b"\x00" * 31, b""):  # dirty padding, short, empty
        with pytest.raises(ValueError):
            abi.decode_address(bad)
    with pytest.raises(ValueError):
        abi.result_bytes(None)
