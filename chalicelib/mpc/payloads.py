"""The one digest of anything an MPC key signs, whatever the chain family: EVM payloads are hashed by
evm/digests.py, a Bitcoin transaction's input by bitcoin/transactions.py (BIP 143 or legacy). Every party calls
`digest_of` on the payload it is shown, so none signs a 32-byte value it cannot explain."""

from __future__ import annotations

from chalicelib.bitcoin.transactions import input_digest
from chalicelib.evm import digests
from chalicelib.evm.digests import Signable


def digest_of(payload: Signable) -> bytes:
    """The 32 bytes a signature of `payload` is over; ValueError when the body is malformed."""
    if payload.kind == "bitcoin_input":
        assert payload.bitcoinInput is not None
        return input_digest(payload.bitcoinInput)
    return digests.digest_of(payload)


def bitcoin_input(body: dict[str, object]) -> Signable:
    """A `bitcoin_input` payload of `bitcoin.transactions.input_payload(tx, index)`."""
    return Signable(kind="bitcoin_input", bitcoinInput=body)
