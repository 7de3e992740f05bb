"""Reading ERC-20 contracts, defensively: a token contract is code anyone can deploy.

Every answer is bounded before use (one 32-byte word for numbers, decimals at most
77 so that 10**decimals still fits a uint256, symbols at most 32 characters), and
anything else means the address is not a usable ERC-20 token.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from chalicelib.evm import abi
from chalicelib.evm.rpc import RpcError, rpc_batch, rpc_call
from chalicelib.platform.cache import TtlCache
from chalicelib.platform.errors import UPSTREAM_UNAVAILABLE, ApiError
from chalicelib.platform.networks import Network

NOT_A_TOKEN = "NOT_A_TOKEN"
MAX_DECIMALS = 77
MAX_SYMBOL = 32
_CACHE_SIZE = 1024

# Function selectors (the first 4 bytes of keccak256 of the signature), written out so that importing this module
# loads no keccak; calls with arguments are encoded by evm/abi.py.
DECIMALS = "0x313ce567"  # decimals()
SYMBOL = "0x95d89b41"  # symbol()
BALANCE_OF = "0x70a08231"  # balanceOf(address)


@dataclass(frozen=True)
class TokenInfo:
    decimals: int
    symbol: str


# Token metadata does not change: kept per (chain, token), least recently used dropped first.
_info: TtlCache[tuple[int, str], TokenInfo] = TtlCache("erc20-token-info", None, max_entries=_CACHE_SIZE)


def token_info(network: Network, token: str) -> TokenInfo:
    """Decimals and symbol, read in one round trip (rpc_batch) and then cached."""
    cached = _info.get((network.chainId, token))
    if cached is not None:
        return cached
    decimals, symbol = reads(network, token, [DECIMALS, SYMBOL])
    return _info.put((network.chainId, token), _parse_info(network, token, decimals, symbol))


def token_holding(network: Network, token: str, owner: str) -> tuple[TokenInfo, int]:
    """The token's metadata and `owner`'s balance, all in one round trip."""
    data = balance_call(owner)
    cached = _info.get((network.chainId, token))
    if cached is not None:
        return cached, _uint(network, token, call(network, token, data))
    decimals, symbol, balance = reads(network, token, [DECIMALS, SYMBOL, data])
    info = _info.put((network.chainId, token), _parse_info(network, token, decimals, symbol))
    return info, _uint(network, token, balance)


def balance_of(network: Network, token: str, owner: str) -> int:
    return word(network, token, balance_call(owner))


def balance_call(owner: str) -> str:
    """The eth_call data of `balanceOf(owner)`."""
    return "0x" + abi.balance_of(owner).hex()


def word(network: Network, token: str, data: str) -> int:
    """The first 32-byte word an eth_call returns, as an unsigned integer."""
    return _uint(network, token, call(network, token, data))


def call(network: Network, token: str, data: str) -> bytes:
    try:
        result = rpc_call(network, "eth_call", [{"to": token, "data": data}, "latest"])
    except RpcError as exc:
        return _answer(network, token, exc)
    return _answer(network, token, result)


def reads(network: Network, token: str, calls: list[str]) -> list[bytes]:
    """Several eth_calls on `token` in one round trip, each checked as `call` checks one."""
    answers = rpc_batch(network, [("eth_call", [{"to": token, "data": data}, "latest"]) for data in calls])
    return [_answer(network, token, answer) for answer in answers]


def _answer(network: Network, token: str, result: Any) -> bytes:
    """An eth_call's answer as bytes: a revert means no token there, another node error is the node's failure."""
    if isinstance(result, RpcError):
        if result.reverted:
            raise not_a_token(token, network)
        raise ApiError(502, UPSTREAM_UNAVAILABLE, f"The node of {network.name} failed the call")
    if not isinstance(result, str) or not result.startswith("0x") or len(result) < 66:
        raise not_a_token(token, network)
    try:
        return bytes.fromhex(result[2:])
    except ValueError:
        raise not_a_token(token, network) from None


def _uint(network: Network, token: str, raw: bytes) -> int:
    return abi.decode_uint(raw[:32])  # _answer made sure of one word: any 32 bytes are a uint256


def _parse_info(network: Network, token: str, decimals_raw: bytes, symbol_raw: bytes) -> TokenInfo:
    decimals = _uint(network, token, decimals_raw)
    if decimals > MAX_DECIMALS:
        raise not_a_token(token, network)
    return TokenInfo(decimals, _symbol(network, token, symbol_raw))


def not_a_token(token: str, network: Network) -> ApiError:
    return ApiError(422, NOT_A_TOKEN, f"{token} is not an ERC-20 token on {network.name}")


def _symbol(network: Network, token: str, raw: bytes) -> str:
    if len(raw) == 32:  # some old tokens return bytes32
        text = raw.rstrip(b"\0").decode("utf-8", errors="replace")
    else:
        try:  # eth_abi checks the offset and length against the answer's size
            text = abi.decode_string(raw)
        except ValueError:
            raise not_a_token(token, network) from None
    if not text or len(text) > MAX_SYMBOL or not text.isprintable():
        raise not_a_token(token, network)
    return text
