"""Wallet routes of the interface's first group (Family W with a wallet token)."""

from __future__ import annotations

from chalice import Blueprint

from chalicelib.auth import guards
from chalicelib.platform.http import Call, Reply, route
from chalicelib.wallets import service
from chalicelib.wallets.models import Balance, TokenBalanceRequest, WalletRequest

bp = Blueprint(__name__)


@route(
    bp,
    "/api/v1/wallet/balance-coin",
    "POST",
    summary="Native coin balance of the wallet",
    tag="Wallet",
    guard=guards.wallet_token,
    body=WalletRequest,
    response=Balance,
    message="get balance successfully",
    error_statuses=(404, 502),
)
def balance_coin(call: Call) -> Reply:
    return Reply(service.coin_balance(call.principal, call.body), "get balance successfully")


@route(
    bp,
    "/api/v1/wallet/balance-token",
    "POST",
    summary="ERC-20 token balance of the wallet",
    tag="Wallet",
    guard=guards.wallet_token,
    body=TokenBalanceRequest,
    response=Balance,
    message="get balance successfully",
    error_statuses=(404, 422, 502),
)
def balance_token(call: Call) -> Reply:
    return Reply(service.token_balance(call.principal, call.body), "get balance successfully")
