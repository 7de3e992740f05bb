"""Wallet reads: coin and ERC-20 balances of the caller's wallet."""

from __future__ import annotations

from chalicelib.auth import users
from chalicelib.auth.guards import WalletPrincipal
from chalicelib.platform.amounts import format_units
from chalicelib.platform.chain import RpcError, checksum_address, rpc_call
from chalicelib.platform.errors import ApiError, not_found
from chalicelib.platform.networks import Network, resolve
from chalicelib.wallets.models import Balance, TokenBalanceRequest, WalletRequest

WALLET_NOT_FOUND = "WALLET_NOT_FOUND"
NOT_A_TOKEN = "NOT_A_TOKEN"

# ERC-20 selectors
_DECIMALS = "0x313ce567"
_SYMBOL = "0x95d89b41"
_BALANCE_OF = "0x70a08231"

# Token metadata does not change: cache it per (chain, token) for the life of the function.
_token_meta: dict[tuple[int, str], tuple[int, str]] = {}


def wallet_address(principal: WalletPrincipal) -> str:
    user = users.get(principal.claims.client_id, principal.claims.sub_id)
    if user is None or user.walletAddress is None:
        raise not_found(WALLET_NOT_FOUND, "This user has no wallet")
    return user.walletAddress


def coin_balance(principal: WalletPrincipal, request: WalletRequest) -> Balance:
    network = resolve(request.network, request.chainId)
    address = wallet_address(principal)
    wei = int(rpc_call(network, "eth_getBalance", [address, "latest"]), 16)
    return Balance(balance=format_units(wei, network.nativeDecimals), symbol=network.nativeSymbol, address=address)


def token_balance(principal: WalletPrincipal, request: TokenBalanceRequest) -> Balance:
    network = resolve(request.network, request.chainId)
    token = checksum_address(request.tokenAddress, "tokenAddress")
    address = wallet_address(principal)
    decimals, symbol = token_metadata(network, token)
    raw = _call(network, token, _BALANCE_OF + address[2:].lower().rjust(64, "0"))
    return Balance(balance=format_units(int(raw, 16), decimals), symbol=symbol, address=address)


def token_metadata(network: Network, token: str) -> tuple[int, str]:
    key = (network.chainId, token)
    if key not in _token_meta:
        decimals = int(_call(network, token, _DECIMALS), 16)
        _token_meta[key] = (decimals, _decode_symbol(_call(network, token, _SYMBOL)))
    return _token_meta[key]


def _call(network: Network, token: str, data: str) -> str:
    try:
        result = rpc_call(network, "eth_call", [{"to": token, "data": data}, "latest"])
    except RpcError:
        raise ApiError(422, NOT_A_TOKEN, f"{token} did not answer as an ERC-20 token on {network.name}") from None
    if not isinstance(result, str) or len(result) < 66:
        raise ApiError(422, NOT_A_TOKEN, f"{token} is not an ERC-20 token on {network.name}")
    return result


def _decode_symbol(result: str) -> str:
    from eth_abi import decode

    raw = bytes.fromhex(result[2:])
    if len(raw) == 32:  # a few old tokens return bytes32
        return raw.rstrip(b"\0").decode(errors="replace")
    (symbol,) = decode(["string"], raw)
    return str(symbol)
