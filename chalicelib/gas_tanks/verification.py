"""What the chain says about a top-up transaction: one JSON-RPC round trip (receipt and block number).

A top-up counts only when the receipt exists with status 1 and the network's confirmations, its USDT
`Transfer` logs to the pool sum to more than zero and all come from one address, and the request's signature
(EIP-191 personal_sign of `<chainId>.<txHash>`) recovers to that address. Nothing the caller says about the
amount or the sender is trusted.
"""

from __future__ import annotations

from dataclasses import dataclass

from chalicelib.evm.rpc import batch
from chalicelib.platform.chain import RpcError
from chalicelib.platform.errors import ApiError, upstream_unavailable
from chalicelib.platform.networks import Network

TRANSFER_TOPIC = (
    "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"  # Transfer(address,address,uint256)
)
TX_NOT_FOUND = "TX_NOT_FOUND"
TX_NOT_CONFIRMED = "TX_NOT_CONFIRMED"
TX_FAILED = "TX_FAILED"
NO_TRANSFER_TO_POOL = "NO_TRANSFER_TO_POOL"
SEVERAL_SENDERS = "SEVERAL_SENDERS"
SIGNATURE_MISMATCH = "SIGNATURE_MISMATCH"
RETRYABLE = frozenset({TX_NOT_FOUND, TX_NOT_CONFIRMED})


class TopUpRefusedError(ApiError):
    """The chain does not show a valid top-up; `retryable` when it may later (not mined, not confirmed)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(422, code, message)
        self.retryable = code in RETRYABLE


@dataclass(frozen=True)
class Verified:
    sender: str
    amount: int  # base units of the network's USDT


def verify(network: Network, tx_hash: str, signature: str, signed_text: str) -> Verified:
    receipt, head = batch(network, [("eth_getTransactionReceipt", [tx_hash]), ("eth_blockNumber", [])])
    if isinstance(receipt, RpcError) or isinstance(head, RpcError):
        raise upstream_unavailable("UPSTREAM_UNAVAILABLE", "The network's node refused the reads; retry")
    if receipt is None:
        raise TopUpRefusedError(TX_NOT_FOUND, "The transaction is not mined yet: retry, or send immediate=false")
    try:
        confirmations = int(head, 16) - int(receipt["blockNumber"], 16) + 1
        status = int(receipt["status"], 16)
        logs = list(receipt.get("logs") or [])
    except (KeyError, TypeError, ValueError):
        raise upstream_unavailable("UPSTREAM_UNAVAILABLE", "The node answered a malformed receipt") from None
    if status != 1:
        raise TopUpRefusedError(TX_FAILED, "The transaction failed on chain")
    if confirmations < network.confirmations:
        raise TopUpRefusedError(
            TX_NOT_CONFIRMED,
            f"The transaction has {max(confirmations, 0)} of {network.confirmations} confirmations: retry, "
            "or send immediate=false",
        )
    amount, senders = _transfers_to_pool(network, logs)
    if amount == 0:
        raise TopUpRefusedError(NO_TRANSFER_TO_POOL, "The transaction sent no USDT to the pool")
    if len(senders) != 1:
        raise TopUpRefusedError(
            SEVERAL_SENDERS, "The USDT sent to the pool in this transaction came from several addresses"
        )
    sender = senders.pop()
    if _signer(signed_text, signature) != sender.lower():
        raise TopUpRefusedError(SIGNATURE_MISMATCH, "The signature was not made by the address that sent the USDT")
    return Verified(sender=sender, amount=amount)


def _transfers_to_pool(network: Network, logs: list[dict[str, object]]) -> tuple[int, set[str]]:
    assert network.poolAddress is not None
    pool_topic = "0x" + "0" * 24 + network.poolAddress[2:].lower()
    amount, senders = 0, set()
    for log in logs:
        topics = [str(t).lower() for t in (log.get("topics") or [])]  # type: ignore[attr-defined]
        if str(log.get("address", "")).lower() != network.usdt.lower() or log.get("removed"):
            continue
        if len(topics) != 3 or topics[0] != TRANSFER_TOPIC or topics[2] != pool_topic:
            continue
        data = str(log.get("data", ""))
        if len(data) != 66:
            continue  # not a standard Transfer: one uint256 of data
        amount += int(data, 16)
        senders.add("0x" + topics[1][-40:])
    return amount, senders


def _signer(text: str, signature: str) -> str | None:
    from eth_account import Account
    from eth_account.messages import encode_defunct

    try:
        return str(Account.recover_message(encode_defunct(text=text), signature=signature)).lower()
    except Exception:  # noqa: BLE001 - a malformed signature simply is not the sender's
        return None
