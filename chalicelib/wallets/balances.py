"""Wallet reads: coin and ERC-20 balances of the caller's wallet."""

from __future__ import annotations

from chalicelib.auth.models import WalletPrincipal
from chalicelib.evm import erc20
from chalicelib.evm.rpc import RpcError, native_balance
from chalicelib.platform.addresses import checksum_address
from chalicelib.platform.amounts import format_units
from chalicelib.platform.errors import UPSTREAM_UNAVAILABLE, ApiError, not_found
from chalicelib.platform.networks import resolve
from chalicelib.wallets.models import Balance, TokenBalanceRequest, WalletRequest

WALLET_NOT_FOUND = "WALLET_NOT_FOUND"


def wallet_address(principal: WalletPrincipal) -> str:
    if principal.user.walletAddress is None:
        raise not_found(WALLET_NOT_FOUND, "This user has no wallet")
    return principal.user.walletAddress


def coin_balance(principal: WalletPrincipal, request: WalletRequest) -> Balance:
    network = resolve(request.network, request.chainId)
    address = wallet_address(principal)
    try:
        wei = native_balance(network, address)  # a malformed answer is the node's 502 too
    except RpcError:
        raise ApiError(502, UPSTREAM_UNAVAILABLE, f"The node of {network.name} did not return a balance") from None
    return Balance(balance=format_units(wei, network.nativeDecimals), symbol=network.nativeSymbol, address=address)


def token_balance(principal: WalletPrincipal, request: TokenBalanceRequest) -> Balance:
    network = resolve(request.network, request.chainId)
    token = checksum_address(request.tokenAddress, "tokenAddress")
    address = wallet_address(principal)
    info, amount = erc20.token_holding(network, token, address)  # one round trip
    return Balance(balance=format_units(amount, info.decimals), symbol=info.symbol, address=address)
