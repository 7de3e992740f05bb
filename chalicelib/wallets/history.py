"""The wallet's history: the transactions sent from it (records and tracker: chalicelib/evm/tracking.py)."""

from __future__ import annotations

from typing import Any

from chalicelib.evm import tracking
from chalicelib.platform.errors import not_found
from chalicelib.platform.pagination import PageQuery

TRANSACTION_NOT_FOUND = "TRANSACTION_NOT_FOUND"


def view(wallet_id: str, tx_hash: str) -> dict[str, Any]:
    tx = tracking.read(tx_hash)
    if tx is None or tx.walletId != wallet_id:
        raise not_found(TRANSACTION_NOT_FOUND, "No transaction with this hash was sent from this wallet")
    return tracking.public(tx)


def page(wallet_id: str, query: PageQuery) -> tuple[list[dict[str, Any]], int]:
    return tracking.page(wallet_id, query)
