"""What an MPC key signs, as the parties are shown it, and the one function that hashes it.

A `Signable` is the thing itself, never a digest: a transaction (its wire form, `UnsignedTx.wire`), a personal
message (EIP-191 version 0x45) or an EIP-712 document (`eth_signTypedData_v4`). Every party that signs computes
`digest_of(payload)` on its own, so none signs a 32-byte value it cannot explain. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import ConfigDict, model_validator

from chalicelib.evm.transactions import UnsignedTx, signing_hash
from chalicelib.evm.typed_data import hashes as typed_data_hashes
from chalicelib.platform.wire import WireModel

Kind = Literal["transaction", "personal_message", "typed_data", "bitcoin_input"]
_HEX_BYTES = r"^0x([0-9a-fA-F]{2})*$"


class Signable(WireModel):
    """Exactly one of `transaction`, `message`, `typedData`: the one its `kind` names."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Kind
    transaction: dict[str, Any] | None = None  # UnsignedTx.wire()
    message: str | None = None  # 0x-hex of the message bytes
    typedData: dict[str, Any] | None = None
    # One input of a Bitcoin transaction (bitcoin/transactions.input_payload), hashed by mpc/payloads.py: this
    # module hashes EVM payloads only.
    bitcoinInput: dict[str, Any] | None = None

    @model_validator(mode="after")
    def _one_body(self) -> Signable:
        bodies = {
            "transaction": self.transaction,
            "personal_message": self.message,
            "typed_data": self.typedData,
            "bitcoin_input": self.bitcoinInput,
        }
        if [kind for kind, body in bodies.items() if body is not None] != [self.kind]:
            raise ValueError(f"a {self.kind} payload carries exactly its own body")
        return self


def transaction(tx: UnsignedTx) -> Signable:
    return Signable(kind="transaction", transaction=tx.wire())


def personal_message(data: bytes) -> Signable:
    return Signable(kind="personal_message", message="0x" + data.hex())


def typed_data(document: Mapping[str, Any]) -> Signable:
    return Signable(kind="typed_data", typedData=dict(document))


def digest_of(payload: Signable) -> bytes:
    """The 32 bytes a signature of `payload` is over. ValueError (TypedDataError for typed data) when the body is
    malformed."""
    if payload.kind == "transaction":
        assert payload.transaction is not None
        return signing_hash(UnsignedTx.from_wire(payload.transaction))
    if payload.kind == "personal_message":
        return personal_message_hash(_message_bytes(payload))
    if payload.kind != "typed_data":
        raise ValueError(f"a {payload.kind} payload is not an EVM payload")
    assert payload.typedData is not None
    return typed_data_hashes(payload.typedData).digest


def personal_message_hash(data: bytes) -> bytes:
    """EIP-191 version 0x45: keccak256("\\x19Ethereum Signed Message:\\n" + len(data) + data)."""
    from eth_utils import keccak

    return bytes(keccak(b"\x19Ethereum Signed Message:\n" + str(len(data)).encode() + data))


def _message_bytes(payload: Signable) -> bytes:
    message = payload.message or ""
    if not re.fullmatch(_HEX_BYTES, message):
        raise ValueError("message must be 0x-prefixed hex bytes")
    return bytes.fromhex(message[2:])
