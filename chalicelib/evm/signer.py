"""What signs a transaction: anything with an address and a way to sign a 32-byte digest.

The user's MPC wallet (wallets/sending.py) and the custody keys (custody/sending.py), through the threshold
parties, and the paymaster's KMS key. The pipeline computes the digest itself and checks that the signature
recovers to `address` before it records or broadcasts anything.
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

    def sign_digest(self, digest: bytes, tx: UnsignedTx | None = None) -> bytes:
        """A 65-byte signature r || s || recovery id (0 or 1, low s) over `digest` (32 bytes). `tx`: the
        transaction `digest` is the signing hash of. Threshold signers require it: their parties are shown the
        transaction and hash it themselves (`digests.signer_transaction`)."""
        ...
