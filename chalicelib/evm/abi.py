"""ABI encoding and decoding of the calls the service makes, all through `eth_abi` (no hand-packed calldata).

Decoding is strict (eth_abi refuses dirty padding and short data): an answer that does not decode means the
contract is not what the caller assumed, and raises ValueError.
"""

from __future__ import annotations

import functools
from typing import Any


@functools.cache
def selector(signature: str) -> bytes:
    """The 4-byte function selector of e.g. `transfer(address,uint256)`."""
    from eth_utils import keccak

    return bytes(keccak(text=signature))[:4]


def encode_call(signature: str, *args: Any) -> bytes:
    """Calldata of `signature` (e.g. `transfer(address,uint256)`) with `args`."""
    from eth_abi import encode

    types = signature[signature.index("(") + 1 : -1]
    return selector(signature) + (encode(_top_level(types), list(args)) if types else b"")


def _top_level(types: str) -> list[str]:
    """`address,(address,uint256,bytes)[]` → its two types: commas inside a tuple do not split."""
    parts, depth, start = [], 0, 0
    for index, char in enumerate(types):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            parts.append(types[start:index])
            start = index + 1
    return [*parts, types[start:]]


def decode(types: list[str], data: bytes) -> tuple[Any, ...]:
    from eth_abi import decode as abi_decode
    from eth_abi.exceptions import DecodingError

    try:
        return tuple(abi_decode(types, data))
    except (DecodingError, OverflowError, ValueError) as exc:
        raise ValueError(f"not an ABI encoding of ({','.join(types)})") from exc


def result_bytes(result: object) -> bytes:
    """The bytes of an `eth_call` result (`0x…`); ValueError for anything else."""
    if not isinstance(result, str) or not result.startswith("0x"):
        raise ValueError("not a hex result")
    return bytes.fromhex(result[2:])


# The calls themselves: ERC-20 and ERC-721.


def transfer(to: str, amount: int) -> bytes:
    return encode_call("transfer(address,uint256)", to, amount)


def safe_transfer_from(sender: str, to: str, token_id: int) -> bytes:
    return encode_call("safeTransferFrom(address,address,uint256)", sender, to, token_id)


def owner_of(token_id: int) -> bytes:
    return encode_call("ownerOf(uint256)", token_id)


def balance_of(owner: str) -> bytes:
    return encode_call("balanceOf(address)", owner)


def decimals() -> bytes:
    return encode_call("decimals()")


def symbol() -> bytes:
    return encode_call("symbol()")


def decode_address(data: bytes) -> str:
    """One `address` return value, EIP-55 checksummed."""
    from eth_utils import to_checksum_address

    (address,) = decode(["address"], data)
    return str(to_checksum_address(address))


def decode_uint(data: bytes) -> int:
    (value,) = decode(["uint256"], data)
    return int(value)


def decode_string(data: bytes) -> str:
    (text,) = decode(["string"], data)
    return str(text)
