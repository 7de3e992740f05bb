"""The deposit record (`DEPOSIT#<id>` / `DEPOSIT` in table `custody`) and its declared transitions.

    pending (seen; `pendingBalance`) → credited (confirmed; `activeBalance`) | reverted (its transaction left the
    chain; nothing credited)
    credited → reverted (a reorg deeper than the confirmations: a correcting entry)
    pending → pending, credited → credited (its transaction re-mined in another block: followed there)
    reverted → pending (its transaction mined again: the record is replaced by a new revision)

No state is final: a reverted deposit whose transaction comes back is pending again.
"""

from __future__ import annotations

from typing import ClassVar

from chalicelib.custody.store import TABLE, status_keys
from chalicelib.platform import aws
from chalicelib.platform.transitions import Machine, Move, Stateful

DEPOSIT_MACHINE = Machine(
    name="deposit",
    table=TABLE,
    states=frozenset({"pending", "credited", "reverted"}),
    initial=frozenset({"pending"}),
    final=frozenset(),
    moves=(
        Move("pending", "pending"),
        Move("pending", "credited"),
        Move("pending", "reverted"),
        Move("credited", "credited"),
        Move("credited", "reverted"),
        Move("reverted", "pending"),
    ),
)
WATCHED = frozenset({"pending", "credited"})  # the states the watcher re-checks


def deposit_key(deposit_id: str) -> dict[str, str]:
    return {"pk": f"DEPOSIT#{deposit_id}", "sk": "DEPOSIT"}


class Deposit(Stateful):
    """A deposit as stored. `value` is base units as a decimal string (uint256 exceeds DynamoDB's digits); the
    sender is the item's `from` attribute (`sender`), a name Python keeps for itself."""

    machine: ClassVar[Machine] = DEPOSIT_MACHINE

    id: str
    appId: str
    accountId: str
    userId: str
    walletId: str
    network: str
    chainId: int
    tokenCode: str
    tokenId: str
    txHash: str
    txRef: str  # the `<txHash>` part of its events' ids, as its first pending event had it
    ordinal: str  # the log's position within its transaction, or "native"
    logIndex: int | None = None
    to: str
    value: str
    blockNumber: int
    blockHash: str
    blockTime: int = 0
    confirmationsRequired: int
    status: str
    matchType: str  # "invoice" (the invoice's payment) or "wallet"
    seenAt: str
    createdAt: str
    updatedAt: str | None = None
    invoiceId: str | None = None
    late: bool | None = None
    revision: int | None = None  # a deposit seen again after a reorg took it away: 1, 2, ...
    creditedAt: str | None = None
    confirmations: int | None = None
    creditReferenceType: str | None = None
    creditReferenceId: str | None = None
    invoiceOutcome: str | None = None
    revertedAt: str | None = None
    afterCredit: bool | None = None

    @property
    def sender(self) -> str:
        return str((self.model_extra or {})["from"])

    @property
    def amount(self) -> int:
        return int(self.value)

    @property
    def rev(self) -> int:
        return self.revision or 0

    def status_index(self) -> aws.Changes:
        return aws.Changes(set=status_keys("DEPOSIT", self.appId, self.accountId, self.status, self.createdAt, self.id))
