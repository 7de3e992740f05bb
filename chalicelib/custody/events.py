"""The `data` of the custody events, field by field as the reference API gives them (docs/custody.md, "Events").

Human amounts (`amount`, `credit.amount`) are JSON numbers with every digit: `Decimal` values, written by
jsonsafe.dumps_exact (never floats). Raw amounts are decimal strings of the smallest unit.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from chalicelib.custody.store import canonical_address
from chalicelib.custody.tokens import TokenOnNetwork


def account_wallet(account: Mapping[str, Any], pair: TokenOnNetwork, address: str | None = None) -> dict[str, Any]:
    """The account's wallet on the pair's network: the one of `address` (a network may have several address
    types), else the network's first."""
    return next(
        w
        for w in account["wallets"]
        if w["network"] == pair.network.name
        and (address is None or canonical_address(w["address"]) == canonical_address(address))
    )


def wallet_object(account: Mapping[str, Any], pair: TokenOnNetwork, address: str | None = None) -> dict[str, Any]:
    wallet = account_wallet(account, pair, address)
    return {
        "walletId": wallet["walletId"],
        "address": wallet["address"],
        "networkCode": pair.network.name,
        "chainId": pair.network.chainId,
    }


def transaction_object(deposit: Mapping[str, Any], pair: TokenOnNetwork) -> dict[str, Any]:
    return {
        "txHash": deposit["txHash"],
        "chainId": pair.network.chainId,
        "networkCode": pair.network.name,
        "from": deposit["from"],
        "to": deposit["to"],
        "tokenAddress": pair.token.tokenAddress,
        "tokenSymbol": pair.token.symbol,
        "value": deposit["value"],
        "valueDecimals": pair.token.decimals,
        "blockchainType": pair.blockchain_type,
    }


def token_transfer(deposit: Mapping[str, Any], pair: TokenOnNetwork) -> dict[str, Any]:
    return {"id": deposit["id"], "amountInDecimals": deposit["value"]}


def credit(pair: TokenOnNetwork, value: int, reference_type: str, reference_id: str) -> dict[str, Any]:
    return {
        "tokenCode": pair.token.tokenCode,
        "amount": pair.human(value),
        "referenceType": reference_type,
        "referenceId": reference_id,
    }


def invoice_object(invoice: Mapping[str, Any], pair: TokenOnNetwork, **extra: Any) -> dict[str, Any]:
    return {
        "id": invoice["id"],
        "status": invoice["status"],
        "amount": pair.human(int(invoice["amountInDecimals"])),
        "amountInDecimals": invoice["amountInDecimals"],
        "reference": invoice["reference"],
        "walletId": invoice["walletId"],
        "depositAddress": invoice["depositAddress"],
        **extra,
    }


def account_created(account: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "appId": account["appId"],
        "account": {
            "id": account["id"],
            "subId": account["subId"],
            "mpcSubId": account["mpcSubId"],
            "status": account["status"],
            "poolType": account["poolType"],
        },
        "wallets": [
            {
                "walletId": w["walletId"],
                "network": w["network"],
                "address": w["address"],
                "addressType": w["addressType"],
            }
            for w in account["wallets"]
        ],
    }


def invoice_pending(
    invoice: Mapping[str, Any], deposit: Mapping[str, Any], pair: TokenOnNetwork, user_id: str
) -> dict[str, Any]:
    return {
        "appId": invoice["appId"],
        "matchType": "invoice",
        "confirmationStatus": "pending",
        "userId": user_id,
        "invoice": invoice_object({**invoice, "status": "pending"}, pair, transactionHash=deposit["txHash"]),
        "transaction": transaction_object(deposit, pair),
        "token": pair.event_token(),
    }


def wallet_pending(account: Mapping[str, Any], deposit: Mapping[str, Any], pair: TokenOnNetwork) -> dict[str, Any]:
    return {
        "appId": account["appId"],
        "matchType": "wallet",
        "confirmationStatus": "pending",
        "wallet": wallet_object(account, pair, deposit["to"]),
        "transaction": transaction_object(deposit, pair),
        "token": pair.event_token(),
        "amount": pair.human(int(deposit["value"])),
    }


def invoice_paid(
    invoice: Mapping[str, Any], deposit: Mapping[str, Any], pair: TokenOnNetwork, user_id: str, paid_at: str
) -> dict[str, Any]:
    value = int(deposit["value"])
    return {
        "appId": invoice["appId"],
        "matchType": "invoice",
        "userId": user_id,
        "invoice": invoice_object(
            {**invoice, "status": "paid"}, pair, paidAt=paid_at, transactionHash=deposit["txHash"]
        ),
        "transaction": transaction_object(deposit, pair),
        "token": pair.event_token(),
        "tokenTransfer": token_transfer(deposit, pair),
        "credit": credit(pair, value, "invoice", invoice["id"]),
    }


def invoice_failed(
    invoice: Mapping[str, Any], deposit: Mapping[str, Any], pair: TokenOnNetwork, user_id: str, failed_at: str
) -> dict[str, Any]:
    """Not shown in the reference API: the invoice (failed, with the amount received), the transfer, and the
    credit of the money to the account as a wallet deposit (never lost; the integrator refunds it by
    withdrawal)."""
    value = int(deposit["value"])
    return {
        "appId": invoice["appId"],
        "matchType": "invoice",
        "userId": user_id,
        "invoice": invoice_object(
            {**invoice, "status": "failed"},
            pair,
            failedAt=failed_at,
            failedReason="amount_mismatch",
            receivedAmount=pair.human(value),
            receivedAmountInDecimals=str(value),
            transactionHash=deposit["txHash"],
        ),
        "transaction": transaction_object(deposit, pair),
        "token": pair.event_token(),
        "tokenTransfer": token_transfer(deposit, pair),
        "credit": credit(pair, value, "token_transfer", deposit["id"]),
    }


def wallet_credited(account: Mapping[str, Any], deposit: Mapping[str, Any], pair: TokenOnNetwork) -> dict[str, Any]:
    value = int(deposit["value"])
    data = {
        "appId": account["appId"],
        "matchType": "wallet",
        "wallet": wallet_object(account, pair, deposit["to"]),
        "transaction": transaction_object(deposit, pair),
        "token": pair.event_token(),
        "tokenTransfer": token_transfer(deposit, pair),
        "credit": credit(pair, value, "token_transfer", deposit["id"]),
    }
    if deposit.get("invoiceId"):  # a late or extra payment for an invoice: credited to the account
        data["invoiceId"] = deposit["invoiceId"]
        data["late"] = bool(deposit.get("late"))
    return data


def invoice_expired(invoice: Mapping[str, Any], pair: TokenOnNetwork, user_id: str, expired_at: str) -> dict[str, Any]:
    return {
        "appId": invoice["appId"],
        "userId": user_id,
        "invoice": invoice_object(
            {**invoice, "status": "expired"},
            pair,
            expiresAt=invoice["expiresAt"],
            bufferInSeconds=int(invoice["bufferInSeconds"]),
            expiredAt=expired_at,
        ),
        "token": pair.event_token(),
    }


def deposit_reverted(
    account: Mapping[str, Any], deposit: Mapping[str, Any], pair: TokenOnNetwork, after_credit: bool
) -> dict[str, Any]:
    """Beyond the reference API: a deposit whose transaction left the chain. Before its credit nothing was
    credited; after it (`afterCredit`: a reorg deeper than the network's confirmations) a correcting entry took
    it back."""
    return {
        "appId": account["appId"],
        "matchType": deposit["matchType"],
        "wallet": wallet_object(account, pair, deposit["to"]),
        "transaction": transaction_object(deposit, pair),
        "token": pair.event_token(),
        "tokenTransfer": token_transfer(deposit, pair),
        "invoiceId": deposit.get("invoiceId"),
        "afterCredit": after_credit,
        "revertedAt": deposit.get("revertedAt"),
    }
