"""What the chain says about a top-up transaction.

`prove` answers who sent the USDT and how much, from the receipt and the head (one JSON-RPC round trip): the
receipt exists with status 1, its USDT `Transfer` logs to the pool sum to more than zero and all come from one
address, and the request's signature (EIP-191 personal_sign of `<chainId>.<txHash>`) recovers to that address.
The signature is checked before anything about confirmations, so a claim by anyone but the sender is refused
first, whatever the state of the transaction. `require_final` then holds the credit back until the transfer has
the network's confirmations and its block, read again, is still the chain's. Nothing the caller says about the
amount or the sender is trusted.
"""

from __future__ import annotations

from dataclasses import dataclass

from chalicelib.evm import receipts
from chalicelib.evm.rpc import quantity
from chalicelib.evm.signatures import personal_signer
from chalicelib.platform.errors import UPSTREAM_UNAVAILABLE, ApiError, upstream_unavailable
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
class Proven:
    sender: str
    amount: int  # base units of the network's USDT
    mined: receipts.Mined


def prove(network: Network, tx_hash: str, signature: str, signed_text: str) -> Proven:
    """The sender and the amount of a mined top-up, its signature checked; confirmations are not required here."""
    mined = receipts.mined(network, tx_hash)
    if mined is None:
        raise TopUpRefusedError(TX_NOT_FOUND, "The transaction is not mined yet: retry once it is")
    try:
        status = quantity(mined.receipt["status"])
        logs = list(mined.receipt.get("logs") or [])
    except (KeyError, TypeError, ValueError):
        raise upstream_unavailable(UPSTREAM_UNAVAILABLE, "The node answered a malformed receipt") from None
    if status != 1:
        raise TopUpRefusedError(TX_FAILED, "The transaction failed on chain")
    amount, senders = _transfers_to_pool(network, logs)
    if amount == 0:
        raise TopUpRefusedError(NO_TRANSFER_TO_POOL, "The transaction sent no USDT to the pool")
    if len(senders) != 1:
        raise TopUpRefusedError(
            SEVERAL_SENDERS, "The USDT sent to the pool in this transaction came from several addresses"
        )
    sender = senders.pop()
    if signer(signed_text, signature) != sender.lower():
        raise _mismatch()
    return Proven(sender=sender, amount=amount, mined=mined)


def prove_unmined_sender(network: Network, tx_hash: str, signature: str, signed_text: str) -> None:
    """For a transaction the node knows but has not mined: the signature must recover to its `from` (the USDT's
    sender is only known once mined, and checked again then). Unknown to the node: TX_NOT_FOUND."""
    sender = receipts.sender_of_unmined(network, tx_hash)
    if sender is None:
        raise TopUpRefusedError(TX_NOT_FOUND, "The network's node does not know this transaction: retry once mined")
    if signer(signed_text, signature) != sender:
        raise _mismatch()


def require_final(network: Network, proven: Proven) -> None:
    """The transfer has the network's confirmations and its block, read now, is still the chain's block at its
    height; otherwise TX_NOT_CONFIRMED (retryable: a transfer a reorganisation took out may be mined again)."""
    needed = receipts.required_confirmations(network)
    if proven.mined.confirmations < needed:
        raise TopUpRefusedError(
            TX_NOT_CONFIRMED,
            f"The transaction has {proven.mined.confirmations} of {needed} confirmations: retry, or send "
            "immediate=false",
        )
    if not receipts.still_canonical(network, proven.mined.block_number, proven.mined.block_hash):
        raise TopUpRefusedError(
            TX_NOT_CONFIRMED, "The transaction's block is no longer the chain's (a reorganisation): retry later"
        )


def _mismatch() -> TopUpRefusedError:
    return TopUpRefusedError(SIGNATURE_MISMATCH, "The signature was not made by the address that sent the USDT")


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
        amount += quantity(data)
        senders.add("0x" + topics[1][-40:])
    return amount, senders


def signer(text: str, signature: str) -> str | None:
    """The lower-case address that signed `text` (EIP-191), or None for a signature that recovers to nothing."""
    return personal_signer(text, signature)
