"""ERC-4337 v0.7 and v0.8 user operations: the unpacked form bundlers take, the packed form the EntryPoint hashes,
the `userOpHash` (v0.7: nested keccak; v0.8: the EIP-712 digest of `user_op_typed_data`), and the VerifyingPaymaster
0.7.0's `paymasterAndData` and `getHash` (the v0.8 GasTankPaymaster uses both unchanged). All encoding through
eth_abi.

An operation of an EIP-7702 account (v0.8) that is not yet delegated has the factory `0x7702` (EIP7702_MARKER) and
carries the account's authorization beside it (`eip7702Auth`): on chain its initCode is those two bytes, and the
EntryPoint hashes the delegate's address in its place (`initCode` of the typed data).

`paymasterAndData` = paymaster (20) ‖ verification gas limit (uint128) ‖ postOp gas limit (uint128) ‖
abi.encode(uint48 validUntil, uint48 validAfter) ‖ 65-byte signature: 181 bytes. The paymaster signs an EIP-191
message over `getHash`, which covers every gas limit, so it signs after estimation.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from chalicelib.evm.rpc import quantity
from chalicelib.evm.typed_data import hashes as typed_data_hashes

PAYMASTER_DATA_LENGTH = 181
EIP7702_MARKER = "0x7702"
_USER_OP_DOMAIN = {"name": "ERC4337", "version": "1"}  # EntryPoint v0.8's EIP712("ERC4337", "1")
_USER_OP_TYPES = {
    "EIP712Domain": [
        {"name": "name", "type": "string"},
        {"name": "version", "type": "string"},
        {"name": "chainId", "type": "uint256"},
        {"name": "verifyingContract", "type": "address"},
    ],
    "PackedUserOperation": [
        {"name": "sender", "type": "address"},
        {"name": "nonce", "type": "uint256"},
        {"name": "initCode", "type": "bytes"},
        {"name": "callData", "type": "bytes"},
        {"name": "accountGasLimits", "type": "bytes32"},
        {"name": "preVerificationGas", "type": "uint256"},
        {"name": "gasFees", "type": "bytes32"},
        {"name": "paymasterAndData", "type": "bytes"},
    ],
}
# A well-formed 65-byte ECDSA signature (recovers to some unrelated address): estimation must get as far as the
# signature check, and OpenZeppelin's ECDSA reverts on malformed ones instead of failing validation.
DUMMY_SIGNATURE = bytes.fromhex(  # key 0x11…11 signing "dompet estimation placeholder"
    "b7ac5d010ba9fe928b998c5ebf07e718dd2be137fb941331f894071bcd66ac24"
    "5c8b7a7d11487164e00eb282f74bca5049f0412e9e6d58dfb6f5b9856b35bb7f1c"
)


@dataclass(frozen=True)
class UserOp:
    sender: str
    nonce: int
    call_data: bytes
    call_gas_limit: int = 0
    verification_gas_limit: int = 0
    pre_verification_gas: int = 0
    max_fee_per_gas: int = 0
    max_priority_fee_per_gas: int = 0
    factory: str | None = None
    factory_data: bytes = b""
    paymaster: str | None = None
    paymaster_verification_gas_limit: int = 0
    paymaster_post_op_gas_limit: int = 0
    paymaster_data: bytes = b""
    signature: bytes = b""
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    def with_(self, **changes: Any) -> UserOp:
        return replace(self, **changes)

    def init_code(self) -> bytes:
        return _address(self.factory) + self.factory_data if self.factory else b""

    def paymaster_and_data(self) -> bytes:
        if not self.paymaster:
            return b""
        return _address(self.paymaster) + self._paymaster_gas() + self.paymaster_data

    def _paymaster_gas(self) -> bytes:
        return _u128(self.paymaster_verification_gas_limit) + _u128(self.paymaster_post_op_gas_limit)

    def account_gas_limits(self) -> bytes:
        return _u128(self.verification_gas_limit) + _u128(self.call_gas_limit)

    def gas_fees(self) -> bytes:
        return _u128(self.max_priority_fee_per_gas) + _u128(self.max_fee_per_gas)

    def packed(self) -> tuple[Any, ...]:
        """The PackedUserOperation tuple, in the EntryPoint's field order."""
        return (
            self.sender,
            self.nonce,
            self.init_code(),
            self.call_data,
            self.account_gas_limits(),
            self.pre_verification_gas,
            self.gas_fees(),
            self.paymaster_and_data(),
            self.signature,
        )

    def max_cost_wei(self) -> int:
        """What the EntryPoint reserves: every gas limit at the maximum fee."""
        gas = (
            self.call_gas_limit
            + self.verification_gas_limit
            + self.pre_verification_gas
            + self.paymaster_verification_gas_limit
            + self.paymaster_post_op_gas_limit
        )
        return gas * self.max_fee_per_gas

    def wire(self) -> dict[str, str]:
        """The unpacked JSON-RPC form (eth_estimateUserOperationGas, eth_sendUserOperation)."""
        out = {
            "sender": self.sender,
            "nonce": hex(self.nonce),
            "callData": _hex(self.call_data),
            "callGasLimit": hex(self.call_gas_limit),
            "verificationGasLimit": hex(self.verification_gas_limit),
            "preVerificationGas": hex(self.pre_verification_gas),
            "maxFeePerGas": hex(self.max_fee_per_gas),
            "maxPriorityFeePerGas": hex(self.max_priority_fee_per_gas),
            "signature": _hex(self.signature),
        }
        if self.factory:
            out.update(factory=self.factory, factoryData=_hex(self.factory_data))
        if self.paymaster:
            out.update(
                paymaster=self.paymaster,
                paymasterVerificationGasLimit=hex(self.paymaster_verification_gas_limit),
                paymasterPostOpGasLimit=hex(self.paymaster_post_op_gas_limit),
                paymasterData=_hex(self.paymaster_data),
            )
        return out


def from_wire(wire: dict[str, str]) -> UserOp:
    """The inverse of UserOp.wire()."""

    def q(name: str) -> int:
        return quantity(wire.get(name) or "0x0")

    def b(name: str) -> bytes:
        return bytes.fromhex((wire.get(name) or "0x")[2:])

    return UserOp(
        sender=wire["sender"],
        nonce=q("nonce"),
        call_data=b("callData"),
        call_gas_limit=q("callGasLimit"),
        verification_gas_limit=q("verificationGasLimit"),
        pre_verification_gas=q("preVerificationGas"),
        max_fee_per_gas=q("maxFeePerGas"),
        max_priority_fee_per_gas=q("maxPriorityFeePerGas"),
        factory=wire.get("factory"),
        factory_data=b("factoryData"),
        paymaster=wire.get("paymaster"),
        paymaster_verification_gas_limit=q("paymasterVerificationGasLimit"),
        paymaster_post_op_gas_limit=q("paymasterPostOpGasLimit"),
        paymaster_data=b("paymasterData"),
        signature=b("signature"),
    )


def user_op_hash(op: UserOp, entry_point: str, chain_id: int) -> bytes:
    """EntryPoint v0.7 getUserOpHash: keccak(abi.encode(keccak(abi.encode(fields, hashed bytes)), entryPoint,
    chainId))."""
    from eth_abi import encode
    from eth_utils import keccak

    inner = encode(
        ["address", "uint256", "bytes32", "bytes32", "bytes32", "uint256", "bytes32", "bytes32"],
        [
            op.sender,
            op.nonce,
            keccak(op.init_code()),
            keccak(op.call_data),
            op.account_gas_limits(),
            op.pre_verification_gas,
            op.gas_fees(),
            keccak(op.paymaster_and_data()),
        ],
    )
    return bytes(keccak(encode(["bytes32", "address", "uint256"], [keccak(inner), entry_point, chain_id])))


def user_op_typed_data(op: UserOp, entry_point: str, chain_id: int, delegate: str | None = None) -> dict[str, Any]:
    """EntryPoint v0.8's userOpHash as an `eth_signTypedData_v4` document: what the owner signs (its digest is the
    hash), so a signer is shown a user operation, never a bare hash. `delegate`: the EIP-7702 account's delegate,
    hashed in place of an EIP7702_MARKER factory."""
    init_code = op.init_code()
    if op.factory == EIP7702_MARKER:
        assert delegate is not None
        init_code = _address(delegate) + op.factory_data
    return {
        "types": _USER_OP_TYPES,
        "primaryType": "PackedUserOperation",
        "domain": {**_USER_OP_DOMAIN, "chainId": chain_id, "verifyingContract": entry_point},
        "message": {
            "sender": op.sender,
            "nonce": str(op.nonce),
            "initCode": _hex(init_code),
            "callData": _hex(op.call_data),
            "accountGasLimits": _hex(op.account_gas_limits()),
            "preVerificationGas": str(op.pre_verification_gas),
            "gasFees": _hex(op.gas_fees()),
            "paymasterAndData": _hex(op.paymaster_and_data()),
        },
    }


def user_op_hash_v08(op: UserOp, entry_point: str, chain_id: int, delegate: str | None = None) -> bytes:
    """EntryPoint v0.8 getUserOpHash: the EIP-712 digest of `user_op_typed_data`."""
    return typed_data_hashes(user_op_typed_data(op, entry_point, chain_id, delegate)).digest


def paymaster_hash(op: UserOp, chain_id: int, valid_until: int, valid_after: int) -> bytes:
    """VerifyingPaymaster 0.7.0 getHash(userOp, validUntil, validAfter)."""
    from eth_abi import encode
    from eth_utils import keccak

    assert op.paymaster is not None
    return bytes(
        keccak(
            encode(
                [
                    "address",
                    "uint256",
                    "bytes32",
                    "bytes32",
                    "bytes32",
                    "uint256",
                    "uint256",
                    "bytes32",
                    "uint256",
                    "address",
                    "uint48",
                    "uint48",
                ],
                [
                    op.sender,
                    op.nonce,
                    keccak(op.init_code()),
                    keccak(op.call_data),
                    op.account_gas_limits(),
                    int.from_bytes(op._paymaster_gas(), "big"),
                    op.pre_verification_gas,
                    op.gas_fees(),
                    chain_id,
                    op.paymaster,
                    valid_until,
                    valid_after,
                ],
            )
        )
    )


def paymaster_data(valid_until: int, valid_after: int, signature: bytes) -> bytes:
    from eth_abi import encode

    return bytes(encode(["uint48", "uint48"], [valid_until, valid_after])) + signature


def eth_signed_message_hash(digest: bytes) -> bytes:
    """EIP-191 over 32 raw bytes: what SimpleAccount and VerifyingPaymaster recover from (toEthSignedMessageHash)."""
    from eth_utils import keccak

    return bytes(keccak(b"\x19Ethereum Signed Message:\n32" + digest))


def _address(address: str) -> bytes:
    return bytes.fromhex(address[2:])


def _u128(value: int) -> bytes:
    return value.to_bytes(16, "big")


def _hex(data: bytes) -> str:
    return "0x" + data.hex()
