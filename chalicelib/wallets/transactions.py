"""Building, signing (through the MPC service) and encoding EVM transactions.

Encoding and hashing are eth-account's; the signature comes from the threshold
parties as (r, s, recovery id) over the transaction's signing hash. The receipt
returned to callers is the JSON ethers v6 (6.10, before blob fields) produced for
a pending `TransactionResponse`: see `receipt()`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

SECP256K1_HALF_N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141 // 2


@dataclass(frozen=True)
class UnsignedTx:
    chain_id: int
    nonce: int
    to: str | None
    value: int
    data: bytes
    gas: int
    gas_price: int | None = None  # legacy (type 0)
    max_fee: int | None = None  # EIP-1559 (type 2)
    max_priority_fee: int | None = None

    @property
    def type(self) -> int:
        return 0 if self.gas_price is not None else 2

    def as_dict(self) -> dict[str, Any]:
        tx: dict[str, Any] = {
            "chainId": self.chain_id,
            "nonce": self.nonce,
            "to": self.to or b"",
            "value": self.value,
            "data": self.data,
            "gas": self.gas,
        }
        if self.type == 0:
            tx["gasPrice"] = self.gas_price
        else:
            tx.update(type=2, maxFeePerGas=self.max_fee, maxPriorityFeePerGas=self.max_priority_fee, accessList=[])
        return tx


@dataclass(frozen=True)
class SignedTx:
    tx: UnsignedTx
    sender: str
    raw: bytes
    hash: str
    r: int
    s: int
    y_parity: int

    @property
    def v(self) -> int:
        """The `v` of the encoding: EIP-155 for legacy, the parity for typed transactions."""
        return self.y_parity + 35 + 2 * self.tx.chain_id if self.tx.type == 0 else self.y_parity


def signing_hash(tx: UnsignedTx) -> bytes:
    from eth_account._utils.legacy_transactions import serializable_unsigned_transaction_from_dict

    return bytes(serializable_unsigned_transaction_from_dict(tx.as_dict()).hash())


def assemble(tx: UnsignedTx, sender: str, signature: bytes) -> SignedTx:
    """Encode `tx` with a 65-byte r || s || recovery-id signature over `signing_hash(tx)`."""
    from eth_account._utils.legacy_transactions import (
        encode_transaction,
        serializable_unsigned_transaction_from_dict,
    )
    from eth_utils import keccak

    r, s, parity = int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:64], "big"), signature[64]
    if s > SECP256K1_HALF_N or parity not in (0, 1):
        raise ValueError("signature is not canonical")
    unsigned = serializable_unsigned_transaction_from_dict(tx.as_dict())
    v = parity + 35 + 2 * tx.chain_id if tx.type == 0 else parity
    raw = bytes(encode_transaction(unsigned, vrs=(v, r, s)))
    return SignedTx(tx=tx, sender=sender, raw=raw, hash="0x" + keccak(raw).hex(), r=r, s=s, y_parity=parity)


def receipt(signed: SignedTx) -> dict[str, Any]:
    """ethers v6.10 `TransactionResponse.toJSON()` of the just-broadcast transaction.

    Big numbers are decimal strings, `chainId` a string, `nonce` and `type` numbers;
    `index` is absent (undefined in ethers for a transaction it broadcast itself).
    """
    tx = signed.tx
    legacy = tx.type == 0
    return {
        "_type": "TransactionReceipt",
        "accessList": None if legacy else [],
        "blockNumber": None,
        "blockHash": None,
        "chainId": str(tx.chain_id),
        "data": "0x" + tx.data.hex(),
        "from": signed.sender,
        "gasLimit": str(tx.gas),
        "gasPrice": str(tx.gas_price if legacy else tx.max_fee),
        "hash": signed.hash,
        "maxFeePerGas": None if legacy else str(tx.max_fee),
        "maxPriorityFeePerGas": None if legacy else str(tx.max_priority_fee),
        "nonce": tx.nonce,
        "signature": {
            "_type": "signature",
            "networkV": str(signed.v) if legacy else None,
            "r": f"0x{signed.r:064x}",
            "s": f"0x{signed.s:064x}",
            "v": 27 + signed.y_parity,
        },
        "to": tx.to,
        "type": tx.type,
        "value": str(tx.value),
    }
