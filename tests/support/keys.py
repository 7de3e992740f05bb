"""A plain-key `Signer` (evm/signer.py) for tests of the EVM pipeline and engine with no MPC wallet."""

from __future__ import annotations

from dataclasses import dataclass

from eth_account import Account
from eth_keys import keys as eth_keys

from chalicelib.evm.transactions import UnsignedTx, signing_hash


@dataclass(frozen=True)
class KeySigner:
    """An address and a key in memory that signs digests at once."""

    key: bytes

    @property
    def address(self) -> str:
        return str(Account.from_key(self.key).address)

    def admit(self, time_left_s: float | None) -> None:
        """A key in memory signs at once."""

    def sign_transaction(self, tx: UnsignedTx) -> bytes:
        return self.sign_digest(signing_hash(tx))

    def sign_digest(self, digest: bytes) -> bytes:
        signature = eth_keys.PrivateKey(self.key).sign_msg_hash(digest)
        return signature.r.to_bytes(32, "big") + signature.s.to_bytes(32, "big") + bytes([signature.v])
