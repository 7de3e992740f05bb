"""The withdrawal record (`WITHDRAWAL#<id>` / `WITHDRAWAL` in table `custody`) and its declared transitions.

    pending → sending (a worker's claim, under a lease) → sent (`txHash` recorded and broadcast) → success | failed
    sending → sending (a claim after the lease ran out; the nonce kept on the record) | pending (given up) | failed
    sent → sent (a check that waits) | pending (its transaction never reached the chain)
    failed (`released` false: kept for review) → success | failed (released) — an operator's decision (review.py)

A withdrawal not yet ended sits in the table's `due` index (`UNFINISHED`): every move sets its due time STALE_S
ahead, the move that ends it removes it, and the schedule's sweep queues again one whose due time passed (its
message lost, dead-lettered, or its worker died).
"""

from __future__ import annotations

from typing import Any, ClassVar

from chalicelib.custody.store import TABLE, status_keys
from chalicelib.platform import aws, followups
from chalicelib.platform.transitions import Machine, Move, Stateful

STALE_S = 300  # a withdrawal that has not moved for this long is queued again
OPEN_STATUSES = frozenset({"pending", "sending", "sent"})
# One sweep of the open withdrawals: each move of one sets its due time STALE_S ahead (due(0)).
UNFINISHED = followups.Requeue(TABLE, OPEN_STATUSES, STALE_S)

WITHDRAWAL_MACHINE = Machine(
    name="withdrawal",
    table=TABLE,
    states=frozenset({*OPEN_STATUSES, "success", "failed"}),
    initial=frozenset({"pending"}),
    final=frozenset({"success", "failed"}),
    moves=(
        Move("pending", "sending"),
        Move("sending", "sending"),
        Move("sending", "pending"),
        Move("sending", "sent"),
        Move("sending", "failed"),
        Move("sent", "sent"),
        Move("sent", "pending"),
        Move("sent", "success"),
        Move("sent", "failed"),
        Move("failed", "success", requires={"released": False}),
        Move("failed", "failed", requires={"released": False}),
    ),
)


class Withdrawal(Stateful):
    """A withdrawal as stored. Amounts are base units as decimal strings (uint256 exceeds DynamoDB's digits)."""

    machine: ClassVar[Machine] = WITHDRAWAL_MACHINE

    id: str
    appId: str
    accountId: str
    userId: str
    keyId: str  # the pool's custody key (the account's mpcSubId)
    keyAddress: str  # that key's own address: it sends, paying the gas
    walletId: str
    fromAddress: str  # the account's deposit address: it pays
    network: str
    chainId: int
    tokenCode: str
    tokenAddress: str
    to: str
    amountInDecimals: str
    fee: str = "0"
    status: str
    attempts: int = 0
    createdAt: str
    updatedAt: str
    reference: str | None = None
    leaseUntil: int | None = None  # a worker's hold while `sending` (epoch seconds)
    nonce: int | None = None  # the withdrawal's one nonce, once reserved
    reservation: str | None = None  # the holder of the nonce's reservation (nonces.reserve)
    txHash: str | None = None
    sentAt: str | None = None
    checks: int | None = None
    blockNumber: int | None = None
    blockHash: str | None = None
    completedAt: str | None = None
    failedReason: str | None = None
    failedAt: str | None = None
    released: bool | None = None  # on `failed`: False while kept for review (its amount still held)
    reviewedAt: str | None = None
    # A UTXO network's (Bitcoin): the account's outputs it spends (reserved with the request: txid, vout, value,
    # address, addressType), the change back to the account, the fee rate (sat/vB), the account's child key, and
    # the signed transaction once made (broadcast again as it is, never signed anew once recorded).
    inputs: list[dict[str, Any]] | None = None
    change: str | None = None
    feeRate: int | None = None
    childKey: str | None = None
    rawTx: str | None = None
    conflicts: int | None = None  # checks that found an output it spends spent by another transaction

    @property
    def amount(self) -> int:
        return int(self.amountInDecimals)

    @property
    def debit(self) -> int:
        """What the withdrawal takes from the account: the amount, and on Bitcoin the network fee (on EVM the
        pool's gas wallet pays the gas: `fee` is 0)."""
        return self.amount + int(self.fee)

    @property
    def kept_for_review(self) -> bool:
        return self.status == "failed" and self.released is False

    def status_index(self) -> aws.Changes:
        keys = status_keys("WITHDRAWAL", self.appId, self.accountId, self.status, self.createdAt, self.id)
        if self.status in OPEN_STATUSES:
            return aws.Changes(set={**keys, **UNFINISHED.due(0)})
        return aws.Changes(set=keys, remove=list(followups.ENDED))
