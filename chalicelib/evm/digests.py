"""What an MPC key signs, as the parties are shown it, and the one function that hashes it.

A `Signable` is the thing itself, never a digest: a transaction (its wire form, `UnsignedTx.wire`), a personal
message (EIP-191 version 0x45), an EIP-712 document (`eth_signTypedData_v4`) or an EIP-7702 authorization (the
delegate's address, a chain id, 0 for any chain, and the account nonce it is valid at). Every party that signs computes
`digest_of(payload)` on its own, so none signs a 32-byte value it cannot explain. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import ConfigDict, model_validator

from chalicelib.evm.signatures import recovered
from chalicelib.evm.transactions import SignedAuthorization, UnsignedTx, signing_hash
from chalicelib.evm.typed_data import hashes as typed_data_hashes
from chalicelib.platform.wire import WireModel

Kind = Literal["transaction", "personal_message", "typed_data", "authorization", "bitcoin_input"]
_HEX_BYTES = r"^0x([0-9a-fA-F]{2})*$"
_ADDRESS = r"^0x[0-9a-fA-F]{40}$"
MAX_AUTHORIZATION_CHAIN_ID = 2**256 - 1  # EIP-7702's bounds on the tuple's integers
MAX_AUTHORIZATION_NONCE = 2**64 - 1


class Signable(WireModel):
    """Exactly one of `transaction`, `message`, `typedData`, `authorization`, `bitcoinInput`: the one its `kind`
    names."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Kind
    transaction: dict[str, Any] | None = None  # UnsignedTx.wire()
    message: str | None = None  # 0x-hex of the message bytes
    typedData: dict[str, Any] | None = None
    authorization: dict[str, Any] | None = None  # {chainId, address, nonce}: `authorization()`
    # One input of a Bitcoin transaction (bitcoin/transactions.input_payload), hashed by mpc/payloads.py: this
    # module hashes EVM payloads only.
    bitcoinInput: dict[str, Any] | None = None

    @model_validator(mode="after")
    def _one_body(self) -> Signable:
        bodies = {
            "transaction": self.transaction,
            "personal_message": self.message,
            "typed_data": self.typedData,
            "authorization": self.authorization,
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


def authorization(chain_id: int, address: str, nonce: int) -> Signable:
    """An EIP-7702 authorization of `address` (the delegate; the zero address revokes) on chain `chain_id` (0: any
    chain) at the signer's account nonce `nonce`."""
    return Signable(kind="authorization", authorization={"chainId": chain_id, "address": address, "nonce": nonce})


def authorization_tuple(payload: Signable) -> tuple[int, str, int]:
    """An authorization payload's (chain id, address, nonce), checked against EIP-7702's bounds; ValueError for
    anything else (a missing or extra field, a number that is a string or a bool, an address that is not one)."""
    body = payload.authorization
    if payload.kind != "authorization" or body is None or set(body) != {"chainId", "address", "nonce"}:
        raise ValueError("an authorization is exactly {chainId, address, nonce}")
    chain_id, address, nonce = body["chainId"], body["address"], body["nonce"]
    for name, value, most in (
        ("chainId", chain_id, MAX_AUTHORIZATION_CHAIN_ID),
        ("nonce", nonce, MAX_AUTHORIZATION_NONCE),
    ):
        if type(value) is not int or not 0 <= value <= most:
            raise ValueError(f"an authorization's {name} is an integer from 0 to {most}")
    if not isinstance(address, str) or not re.fullmatch(_ADDRESS, address):
        raise ValueError("an authorization's address is 0x and 40 hex digits")
    return chain_id, address, nonce


def authorization_hash(chain_id: int, address: str, nonce: int) -> bytes:
    """EIP-7702: keccak256(0x05 || rlp([chain_id, address, nonce])), by eth-account's own encoding."""
    from eth_account.typed_transactions.set_code_transaction import Authorization

    return bytes(Authorization(chain_id, bytes.fromhex(address[2:]), nonce).hash())


def authority(entry: SignedAuthorization) -> str | None:
    """The checksummed address that signed `entry` (the account it delegates), None when its signature recovers to
    no key."""
    return recovered(authorization_hash(entry.chain_id, entry.address, entry.nonce), entry.y_parity, entry.r, entry.s)


def digest_of(payload: Signable) -> bytes:
    """The 32 bytes a signature of `payload` is over. ValueError (TypedDataError for typed data) when the body is
    malformed."""
    if payload.kind == "transaction":
        assert payload.transaction is not None
        return signing_hash(UnsignedTx.from_wire(payload.transaction))
    if payload.kind == "personal_message":
        return personal_message_hash(_message_bytes(payload))
    if payload.kind == "authorization":
        return authorization_hash(*authorization_tuple(payload))
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
