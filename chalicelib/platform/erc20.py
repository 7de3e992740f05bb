"""Reading ERC-20 contracts, defensively: a token contract is code anyone can deploy.

Every answer is bounded before use (one 32-byte word for numbers, decimals at most
77 so that 10**decimals still fits a uint256, symbols at most 32 characters), and
anything else means the address is not a usable ERC-20 token.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

from chalicelib.platform.chain import RpcError, rpc_call
from chalicelib.platform.errors import UPSTREAM_UNAVAILABLE, ApiError
from chalicelib.platform.networks import Network

NOT_A_TOKEN = "NOT_A_TOKEN"
MAX_DECIMALS = 77
MAX_SYMBOL = 32
_CACHE_SIZE = 1024

# Function selectors (the first 4 bytes of keccak256 of the signature); arguments are ABI-encoded with eth_abi.
DECIMALS = "0x313ce567"  # decimals()
SYMBOL = "0x95d89b41"  # symbol()
BALANCE_OF = "0x70a08231"  # balanceOf(address)


@dataclass(frozen=True)
class TokenInfo:
    decimals: int
    symbol: str


# Token metadata does not change: kept per (chain, token), least recently used dropped first.
_info: OrderedDict[tuple[int, str], TokenInfo] = OrderedDict()


def token_info(network: Network, token: str) -> TokenInfo:
    key = (network.chainId, token)
    if key in _info:
        _info.move_to_end(key)
        return _info[key]
    decimals = word(network, token, DECIMALS)
    if decimals > MAX_DECIMALS:
        raise not_a_token(token, network)
    info = TokenInfo(decimals, _symbol(network, token))
    _info[key] = info
    if len(_info) > _CACHE_SIZE:
        _info.popitem(last=False)
    return info


def balance_of(network: Network, token: str, owner: str) -> int:
    from eth_abi import encode

    return word(network, token, BALANCE_OF + encode(["address"], [owner]).hex())


def word(network: Network, token: str, data: str) -> int:
    """The first 32-byte word an eth_call returns, as an unsigned integer."""
    from eth_abi import decode

    (value,) = decode(["uint256"], call(network, token, data)[:32])
    return int(value)


def call(network: Network, token: str, data: str) -> bytes:
    try:
        result = rpc_call(network, "eth_call", [{"to": token, "data": data}, "latest"])
    except RpcError as exc:
        if exc.reverted:
            raise not_a_token(token, network) from None
        raise ApiError(502, UPSTREAM_UNAVAILABLE, f"The node of {network.name} failed the call") from None
    if not isinstance(result, str) or not result.startswith("0x") or len(result) < 66:
        raise not_a_token(token, network)
    try:
        return bytes.fromhex(result[2:])
    except ValueError:
        raise not_a_token(token, network) from None


def not_a_token(token: str, network: Network) -> ApiError:
    return ApiError(422, NOT_A_TOKEN, f"{token} is not an ERC-20 token on {network.name}")


def _symbol(network: Network, token: str) -> str:
    from eth_abi import decode
    from eth_abi.exceptions import DecodingError

    raw = call(network, token, SYMBOL)
    if len(raw) == 32:  # some old tokens return bytes32
        text = raw.rstrip(b"\0").decode("utf-8", errors="replace")
    else:
        try:  # eth_abi checks the offset and length against the answer's size
            (text,) = decode(["string"], raw)
        except (DecodingError, OverflowError, ValueError):
            raise not_a_token(token, network) from None
    if not text or len(text) > MAX_SYMBOL or not text.isprintable():
        raise not_a_token(token, network)
    return text
