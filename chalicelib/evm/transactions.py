"""EVM transactions: the unsigned fields, the signing hash, the signed encoding and the receipt JSON.

Encoded here with `rlp` (public API; no private eth-account helpers): legacy transactions with EIP-155
(`rlp([nonce, gasPrice, gas, to, value, data, chainId, 0, 0])` signed, `v = parity + 35 + 2 chainId`) and
EIP-1559 type 2 (`0x02 || rlp([chainId, nonce, maxPriorityFeePerGas, maxFeePerGas, gas, to, value, data,
accessList])`, `yParity`) and EIP-7702 type 4, a type 2 with a list of signed authorizations after the access list
(`[chainId, address, nonce, yParity, r, s]` each). tests/unit/test_send_parts.py checks every byte against
eth-account's own signing.
The receipt returned to callers is the JSON ethers v6 (6.10, before blob fields) produced for a pending
`TransactionResponse`: see `receipt()`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

SECP256K1_N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
SECP256K1_HALF_N = SECP256K1_N // 2
_WIRE_FIELDS = (
    "chainId",
    "nonce",
    "to",
    "value",
    "data",
    "gas",
    "gasPrice",
    "maxFee",
    "maxPriorityFee",
    "authorizationList",
)
_AUTHORIZATION_FIELDS = frozenset({"chainId", "address", "nonce", "yParity", "r", "s"})
_WORD = r"0x[0-9a-fA-F]{64}"
_ADDRESS = r"0x[0-9a-fA-F]{40}"
MAX_AUTHORIZATIONS = 16  # per transaction: each costs its sender 25 000 gas and the cosigner a recovery


def _whole(value: Any) -> int:
    """A non-negative integer given as a number or a decimal string (never a bool or a float)."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise TypeError("not an integer")
    number = int(value) if isinstance(value, int) else int(value, 10)
    if number < 0:
        raise ValueError("negative")
    return number


@dataclass(frozen=True)
class SignedAuthorization:
    """One entry of a type-4 transaction's authorization list: an account lets `address`'s code run as its own on
    chain `chain_id` (0: any) at its nonce `nonce`. Its wire form is what POST /api/v1/wallet/sign-authorization
    answers (numbers for the integers, 32-byte hex for r and s)."""

    chain_id: int
    address: str
    nonce: int
    y_parity: int
    r: int
    s: int

    def wire(self) -> dict[str, Any]:
        return {
            "chainId": self.chain_id,
            "address": self.address,
            "nonce": self.nonce,
            "yParity": self.y_parity,
            "r": f"0x{self.r:064x}",
            "s": f"0x{self.s:064x}",
        }

    def rpc(self) -> dict[str, str]:
        """As JSON-RPC takes it (eth_estimateGas's `authorizationList`, a bundler's `eip7702Auth`): hex quantities."""
        return {
            "chainId": hex(self.chain_id),
            "address": self.address,
            "nonce": hex(self.nonce),
            "yParity": hex(self.y_parity),
            "r": f"0x{self.r:064x}",
            "s": f"0x{self.s:064x}",
        }

    @classmethod
    def from_wire(cls, fields: Mapping[str, Any]) -> SignedAuthorization:
        """The entry of `wire()`: integers as JSON numbers (never a bool or a string), `r` and `s` 32-byte hex, a
        parity of 0 or 1 and a low s (EIP-7702 skips any other); ValueError for anything else."""
        if not isinstance(fields, Mapping) or set(fields) != _AUTHORIZATION_FIELDS:
            raise ValueError("an authorization is exactly {chainId, address, nonce, yParity, r, s}")
        chain_id, nonce, parity = fields["chainId"], fields["nonce"], fields["yParity"]
        address, r, s = fields["address"], fields["r"], fields["s"]
        if any(type(value) is not int or value < 0 for value in (chain_id, nonce, parity)):
            raise ValueError("an authorization's chainId, nonce and yParity are non-negative integers")
        if chain_id >= 2**256 or nonce >= 2**64 or parity > 1:
            raise ValueError("an authorization's chainId, nonce or yParity is out of range")
        if not isinstance(address, str) or not re.fullmatch(_ADDRESS, address):
            raise ValueError("an authorization's address is 0x and 40 hex digits")
        if not all(isinstance(word, str) and re.fullmatch(_WORD, word) for word in (r, s)):
            raise ValueError("an authorization's r and s are 0x and 64 hex digits")
        r_int, s_int = int(r, 16), int(s, 16)
        if not (0 < r_int < SECP256K1_N and 0 < s_int <= SECP256K1_HALF_N):
            raise ValueError("an authorization's signature is not canonical (low s)")
        return cls(chain_id, address, nonce, parity, r_int, s_int)

    def _fields(self) -> list[Any]:
        return [self.chain_id, bytes.fromhex(self.address[2:]), self.nonce, self.y_parity, self.r, self.s]


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
    authorization_list: tuple[SignedAuthorization, ...] = ()  # non-empty: EIP-7702 (type 4)

    @property
    def type(self) -> int:
        if self.gas_price is not None:
            return 0
        return 4 if self.authorization_list else 2

    def as_dict(self) -> dict[str, Any]:
        """The fields as eth-account names them (tests sign the same dict with a local key)."""
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
            tx.update(
                type=self.type, maxFeePerGas=self.max_fee, maxPriorityFeePerGas=self.max_priority_fee, accessList=[]
            )
        if self.authorization_list:
            tx["authorizationList"] = [
                {
                    "chainId": a.chain_id,
                    "address": a.address,
                    "nonce": a.nonce,
                    "yParity": a.y_parity,
                    "r": a.r,
                    "s": a.s,
                }
                for a in self.authorization_list
            ]
        return tx

    def wire(self) -> dict[str, Any]:
        """The JSON form the cosigner is shown (big numbers as decimal strings; `from_wire` reads it back). A type-4
        transaction's carries `authorizationList`; no other has the field."""
        fields: dict[str, Any] = {
            "chainId": self.chain_id,
            "nonce": self.nonce,
            "to": self.to,
            "value": str(self.value),
            "data": "0x" + self.data.hex(),
            "gas": self.gas,
            "gasPrice": None if self.gas_price is None else str(self.gas_price),
            "maxFee": None if self.max_fee is None else str(self.max_fee),
            "maxPriorityFee": None if self.max_priority_fee is None else str(self.max_priority_fee),
        }
        if self.authorization_list:
            fields["authorizationList"] = [entry.wire() for entry in self.authorization_list]
        return fields

    @classmethod
    def from_wire(cls, fields: Mapping[str, Any]) -> UnsignedTx:
        """The transaction of `wire()`; ValueError for anything else (a missing field, a legacy fee beside EIP-1559
        fees, data that is not hex, an authorization list that is empty, too long, beside a legacy fee or without a
        recipient)."""
        try:
            listed = fields.get("authorizationList")
            if listed is not None and (not isinstance(listed, list) or not 0 < len(listed) <= MAX_AUTHORIZATIONS):
                raise ValueError(f"authorizationList holds 1 to {MAX_AUTHORIZATIONS} entries")
            authorization_list = tuple(SignedAuthorization.from_wire(entry) for entry in listed or ())
            gas_price, max_fee, max_priority_fee = (
                None if fields.get(name) is None else _whole(fields[name])
                for name in ("gasPrice", "maxFee", "maxPriorityFee")
            )
            to = fields["to"]
            data = str(fields["data"])
            tx = cls(
                chain_id=_whole(fields["chainId"]),
                nonce=_whole(fields["nonce"]),
                to=None if to is None else str(to),
                value=_whole(fields["value"]),
                data=bytes.fromhex(data.removeprefix("0x")),
                gas=_whole(fields["gas"]),
                gas_price=gas_price,
                max_fee=max_fee,
                max_priority_fee=max_priority_fee,
                authorization_list=authorization_list,
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"not a transaction: {exc}") from None
        if set(fields) - set(_WIRE_FIELDS) or not data.startswith("0x"):
            raise ValueError("not a transaction: unknown fields or data without 0x")
        if (gas_price is None) == (max_fee is None or max_priority_fee is None) or (
            gas_price is not None and (max_fee is not None or max_priority_fee is not None)
        ):
            raise ValueError("not a transaction: either gasPrice or maxFee and maxPriorityFee")
        if tx.to is not None and not re.fullmatch(_ADDRESS, tx.to):
            raise ValueError("not a transaction: to is not an address")
        if tx.authorization_list and (gas_price is not None or tx.to is None):
            raise ValueError("not a transaction: a set-code transaction has EIP-1559 fees and a recipient")
        return tx

    def _fields(self) -> list[Any]:
        to = bytes.fromhex(self.to[2:]) if self.to else b""
        if self.type == 0:
            return [self.nonce, self.gas_price, self.gas, to, self.value, self.data]
        fields = [self.chain_id, self.nonce, self.max_priority_fee, self.max_fee, self.gas, to, self.value, self.data]
        if self.type == 4:
            return [*fields, [], [entry._fields() for entry in self.authorization_list]]
        return [*fields, []]


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
    import rlp
    from eth_utils import keccak

    if tx.type == 0:
        return bytes(keccak(rlp.encode([*tx._fields(), tx.chain_id, 0, 0])))
    return bytes(keccak(bytes([tx.type]) + rlp.encode(tx._fields())))


def assemble(tx: UnsignedTx, sender: str, signature: bytes) -> SignedTx:
    """Encode `tx` with a 65-byte r || s || recovery-id signature over `signing_hash(tx)`.

    Refuses a non-canonical signature and one that does not recover to `sender`: a wrong signature
    would be a transaction from some other address, never worth broadcasting."""
    import rlp
    from eth_keys.datatypes import Signature
    from eth_utils import keccak

    if len(signature) != 65:
        raise ValueError("signature is not 65 bytes")
    r, s, parity = int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:64], "big"), signature[64]
    if not (0 < r < SECP256K1_N and 0 < s <= SECP256K1_HALF_N) or parity not in (0, 1):
        raise ValueError("signature is not canonical")
    digest = signing_hash(tx)
    recovered = Signature(vrs=(parity, r, s)).recover_public_key_from_msg_hash(digest)
    if recovered.to_checksum_address() != sender:
        raise ValueError("signature is not the sender's")
    if tx.type == 0:
        raw = bytes(rlp.encode([*tx._fields(), parity + 35 + 2 * tx.chain_id, r, s]))
    else:
        raw = bytes([tx.type]) + bytes(rlp.encode([*tx._fields(), parity, r, s]))
    return SignedTx(tx=tx, sender=sender, raw=raw, hash="0x" + keccak(raw).hex(), r=r, s=s, y_parity=parity)


def receipt(signed: SignedTx) -> dict[str, Any]:
    """ethers v6.10 `TransactionResponse.toJSON()` of the just-broadcast transaction.

    Big numbers are decimal strings, `chainId` a string, `nonce` and `type` numbers;
    `index` is absent (undefined in ethers for a transaction it broadcast itself). A type-4 transaction's also has
    `authorizationList`, its entries as POST /api/v1/wallet/sign-authorization answers them (without `hash`).
    """
    tx = signed.tx
    legacy = tx.type == 0
    body: dict[str, Any] = {
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
    if tx.authorization_list:
        body["authorizationList"] = [entry.wire() for entry in tx.authorization_list]
    return body
