"""What signs a transaction: anything with an address that signs an unsigned transaction.

The user's MPC wallet (wallets/sending.py) and the custody keys (custody/withdrawals/sending.py), through the
threshold parties, which are shown the transaction and hash it themselves. The pipeline checks that the signature
recovers to `address` over the transaction's signing hash before it records or broadcasts anything.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from chalicelib.evm.transactions import UnsignedTx


class Signer(Protocol):
    @property
    def address(self) -> str:
        """The EIP-55 address whose key signs."""
        ...

    def admit(self, time_left_s: float | None) -> None:
        """Raise a RetryLaterError when no signature can be expected within `time_left_s` seconds (None: no time
        limit); a signer that signs at once does nothing."""
        ...

    def sign_transaction(self, tx: UnsignedTx) -> bytes:
        """A 65-byte signature r || s || recovery id (0 or 1, low s) over `tx`'s signing hash (EIP-155 or EIP-1559,
        transactions.signing_hash)."""
        ...
