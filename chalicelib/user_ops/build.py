"""Building a user operation for a smart account: call data for each kind, a fresh 2-D nonce, the factory while
the account is not deployed, fees and gas limits from the bundler, and the paymaster's data signed by the service's
KMS key (after estimation: its hash covers every gas limit).

Two kinds of account. A SimpleAccount (v0.7, `simple`) is deployed by its factory with its first operation. An
EIP-7702 account (`eip7702`) is an MPC wallet's own address delegating to Simple7702Account: its operations go
through EntryPoint v0.8 and the v0.8 paymaster, and while the wallet's code is not `0xef0100 ‖ Simple7702Account`
an operation has the factory `0x7702` and needs the wallet's authorization at submit (`delegates`). Its hash is the
EIP-712 digest of `typed_data`, which the owner signs with sign-typed-data.

Round trips: one node read (the account's code; none once a SimpleAccount is known to be deployed; a 7702 account
is always read, since its wallet may delegate elsewhere at any time), then the bundler's gas price and its estimate
(bundlers answer them separately: the estimate carries the fees), then one KMS sign.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any, Literal

from chalicelib.evm.aa import counterfactual, packing
from chalicelib.evm.abi import decode, encode_call, selector
from chalicelib.evm.kms_signer import KmsSigner
from chalicelib.evm.rpc import RpcError, node_quantity, rpc_batch, rpc_call
from chalicelib.evm.signatures import with_v27
from chalicelib.platform.clock import epoch
from chalicelib.platform.errors import UPSTREAM_UNAVAILABLE, ApiError, upstream_unavailable
from chalicelib.platform.networks import Network
from chalicelib.platform.settings import load_settings

PAYMASTER_KEY = "paymaster-signer"
BUNDLER_REFUSED = "BUNDLER_REFUSED"
PAYMASTER_VERIFICATION_GAS = 100_000  # VerifyingPaymaster validation; raised to the bundler's estimate if higher
MAX_BATCH = 16  # calls in one batch operation
EXECUTE = "execute(address,uint256,bytes)"
EXECUTE_BATCH_SIMPLE = "executeBatch(address[],uint256[],bytes[])"  # SimpleAccount 0.7.0
EXECUTE_BATCH_7702 = "executeBatch((address,uint256,bytes)[])"  # Simple7702Account 0.8.0 (BaseAccount.Call)
AccountType = Literal["simple", "eip7702"]


@dataclass(frozen=True)
class Target:
    """One call the account makes."""

    to: str
    value: int = 0
    data: bytes = b""


@dataclass(frozen=True)
class Call:
    """What the account executes: one target (`execute(to, value, data)`), several (`executeBatch`: in order, all or
    none), or none (deploy or delegate only: an empty call)."""

    kind: str
    targets: tuple[Target, ...] = ()

    def call_data(self, account_type: AccountType = "simple") -> bytes:
        if not self.targets:
            return b""
        if len(self.targets) == 1:
            (only,) = self.targets
            return encode_call(EXECUTE, only.to, only.value, only.data)
        if account_type == "eip7702":
            return encode_call(EXECUTE_BATCH_7702, [(t.to, t.value, t.data) for t in self.targets])
        return encode_call(
            EXECUTE_BATCH_SIMPLE,
            [t.to for t in self.targets],
            [t.value for t in self.targets],
            [t.data for t in self.targets],
        )


def _one(kind: str, to: str, value: int = 0, data: bytes = b"") -> Call:
    return Call(kind, (Target(to, value, data),))


def coin(to: str, amount: int) -> Call:
    return _one("send_coin", to, amount)


def token(token_address: str, to: str, amount: int) -> Call:
    return _one("send_token", token_address, 0, encode_call("transfer(address,uint256)", to, amount))


def erc721(token_address: str, sender: str, to: str, token_id: int) -> Call:
    data = encode_call("safeTransferFrom(address,address,uint256)", sender, to, token_id)
    return _one("send_erc721", token_address, 0, data)


def erc1155(token_address: str, sender: str, to: str, token_id: int, amount: int, data: bytes) -> Call:
    call = encode_call("safeTransferFrom(address,address,uint256,uint256,bytes)", sender, to, token_id, amount, data)
    return _one("send_erc1155", token_address, 0, call)


def transaction(to: str, value: int, data: bytes) -> Call:
    return _one("sign_transaction", to, value, data)


def batch(targets: list[Target]) -> Call:
    return Call("batch", tuple(targets))


def targets_of(call_data: bytes) -> tuple[Target, ...]:
    """What an operation's callData calls: the targets of the account's `execute` or `executeBatch` (either
    account's), or none for an operation that calls nothing (a deployment alone) or anything else."""
    shapes = {
        selector(EXECUTE): ["address", "uint256", "bytes"],
        selector(EXECUTE_BATCH_SIMPLE): ["address[]", "uint256[]", "bytes[]"],
        selector(EXECUTE_BATCH_7702): ["(address,uint256,bytes)[]"],
    }
    shape = shapes.get(call_data[:4])
    if shape is None:
        return ()
    try:
        fields = decode(shape, call_data[4:])
    except ValueError:
        return ()
    if len(shape) == 1:
        return tuple(Target(str(to), int(value), bytes(data)) for to, value, data in fields[0])
    if isinstance(fields[0], str):
        return (Target(str(fields[0]), int(fields[1]), bytes(fields[2])),)
    tos, values, datas = fields
    if not len(tos) == len(values) == len(datas):
        return ()  # SimpleAccount reverts on it: it calls nothing
    return tuple(Target(str(to), int(v), bytes(d)) for to, v, d in zip(tos, values, datas, strict=True))


def activation() -> Call:
    return Call("activate")


@dataclass(frozen=True)
class Built:
    op: packing.UserOp
    user_op_hash: bytes
    valid_until: int
    version: str  # the EntryPoint's: "0.7" or "0.8"
    typed_data: dict[str, Any] | None = None  # v0.8: the EIP-712 document whose digest is the hash

    @property
    def delegates(self) -> bool:
        """An EIP-7702 account's operation that delegates its wallet (it needs the wallet's authorization)."""
        return self.op.factory == packing.EIP7702_MARKER


def delegated(code: Any, delegate: str) -> bool:
    """Whether an account's code (eth_getCode) is EIP-7702's delegation to `delegate`."""
    return isinstance(code, str) and code.lower() == "0xef0100" + delegate[2:].lower()


def build(
    network: Network,
    owner: str,
    call: Call,
    sign: bool = True,
    known_deployed: bool = False,
    account_type: AccountType = "simple",
) -> Built:
    """The operation, estimated and (with `sign`) carrying the paymaster's signature; the owner signs its hash.

    `known_deployed`: the account's record says `deployed` (its deployment was seen on chain). A SimpleAccount
    cannot lose its code, so the node is not asked; otherwise its code is read, since anyone may deploy it."""
    if account_type == "eip7702":
        return _build_7702(network, owner, call, sign)
    assert network.accountFactory and network.paymaster and network.entryPoint
    sender = counterfactual.account_address(network.accountFactory, owner)
    deployed = known_deployed or _node(network, "eth_getCode", [sender, "latest"]) not in (None, "0x", "0x0")
    valid_until = epoch() + load_settings().user_op_valid_s
    op = _unestimated(network, sender, call.call_data(), network.paymaster, valid_until).with_(
        factory=None if deployed else network.accountFactory,
        factory_data=b"" if deployed else counterfactual.factory_data(owner),
    )
    op = _estimated(network, op, [op.wire(), network.entryPoint])
    op = _approved(network, op, valid_until) if sign else op
    return Built(op, packing.user_op_hash(op, network.entryPoint, network.chainId), valid_until, "0.7")


def _build_7702(network: Network, owner: str, call: Call, sign: bool) -> Built:
    """An EIP-7702 account's operation: the sender is the wallet itself; not yet delegated to Simple7702Account, it
    is estimated with the authorization's delegate (the bundler simulates the delegation)."""
    assert network.entryPointV08 and network.eip7702Account and network.paymasterV08
    code, nonce = rpc_batch(
        network, [("eth_getCode", [owner, "latest"]), ("eth_getTransactionCount", [owner, "latest"])]
    )
    if isinstance(code, RpcError) or isinstance(nonce, RpcError):
        raise upstream_unavailable(UPSTREAM_UNAVAILABLE, "The node refused the account's code or nonce")
    delegates = not delegated(code, network.eip7702Account)
    valid_until = epoch() + load_settings().user_op_valid_s
    op = _unestimated(network, owner, call.call_data("eip7702"), network.paymasterV08, valid_until)
    wire: dict[str, Any] = op.wire()
    if delegates:
        op = op.with_(factory=packing.EIP7702_MARKER)
        authorization = {"address": network.eip7702Account, "chainId": hex(network.chainId), "nonce": nonce}
        wire = {**op.wire(), "eip7702Auth": authorization}
    op = _estimated(network, op, [wire, network.entryPointV08])
    op = _approved(network, op, valid_until) if sign else op
    document = packing.user_op_typed_data(op, network.entryPointV08, network.chainId, network.eip7702Account)
    digest = packing.user_op_hash_v08(op, network.entryPointV08, network.chainId, network.eip7702Account)
    return Built(op, digest, valid_until, "0.8", document)


def _unestimated(network: Network, sender: str, call_data: bytes, paymaster: str, valid_until: int) -> packing.UserOp:
    max_fee, priority_fee = _fees(network)
    return packing.UserOp(
        sender=sender,
        nonce=secrets.randbits(192) << 64,  # a fresh nonce key: sequence 0; operations never collide
        call_data=call_data,
        max_fee_per_gas=max_fee,
        max_priority_fee_per_gas=priority_fee,
        paymaster=paymaster,
        paymaster_verification_gas_limit=PAYMASTER_VERIFICATION_GAS,
        paymaster_data=packing.paymaster_data(valid_until, 0, packing.DUMMY_SIGNATURE),
        signature=packing.DUMMY_SIGNATURE,
    )


def _estimated(network: Network, op: packing.UserOp, params: list[Any]) -> packing.UserOp:
    estimate = _bundler(network, "eth_estimateUserOperationGas", params)
    what = "eth_estimateUserOperationGas"
    return op.with_(
        call_gas_limit=node_quantity(network, _at(estimate, "callGasLimit"), what),
        verification_gas_limit=node_quantity(network, _at(estimate, "verificationGasLimit"), what),
        pre_verification_gas=node_quantity(network, _at(estimate, "preVerificationGas"), what),
        paymaster_verification_gas_limit=max(
            PAYMASTER_VERIFICATION_GAS,
            node_quantity(network, _at(estimate, "paymasterVerificationGasLimit", default="0x0"), what),
        ),
        paymaster_post_op_gas_limit=node_quantity(
            network, _at(estimate, "paymasterPostOpGasLimit", default="0x0"), what
        ),
    )


def _approved(network: Network, op: packing.UserOp, valid_until: int) -> packing.UserOp:
    """The paymaster's data signed by the service's KMS key (the same key and hash for both paymasters)."""
    digest = packing.paymaster_hash(op, network.chainId, valid_until, 0)
    signature = KmsSigner(PAYMASTER_KEY).sign_digest(packing.eth_signed_message_hash(digest))
    return op.with_(paymaster_data=packing.paymaster_data(valid_until, 0, with_v27(signature)))


def _fees(network: Network) -> tuple[int, int]:
    """The bundler's own price (Pimlico's method, which Alto and Pimlico serve: what it will accept), else the
    node's: twice the base fee plus its suggested tip."""
    what = "pimlico_getUserOperationGasPrice"
    try:
        fees = rpc_call(network, what, [], bundler=True)
        return (
            node_quantity(network, _at(fees, "fast", "maxFeePerGas"), what),
            node_quantity(network, _at(fees, "fast", "maxPriorityFeePerGas"), what),
        )
    except RpcError:
        pass  # a bundler without the method (e.g. another vendor's): ask the node
    block, tip = rpc_batch(network, [("eth_getBlockByNumber", ["latest", False]), ("eth_maxPriorityFeePerGas", [])])
    if isinstance(block, RpcError) or isinstance(tip, RpcError) or not isinstance(block, dict):
        raise upstream_unavailable(UPSTREAM_UNAVAILABLE, "Neither the bundler nor the node gave fees")
    priority = node_quantity(network, tip, "eth_maxPriorityFeePerGas")
    return 2 * node_quantity(network, _at(block, "baseFeePerGas"), "eth_getBlockByNumber") + priority, priority


def _node(network: Network, method: str, params: list[Any]) -> Any:
    try:
        return rpc_call(network, method, params)
    except RpcError as exc:
        raise upstream_unavailable(UPSTREAM_UNAVAILABLE, f"The node refused {method}") from exc


def _bundler(network: Network, method: str, params: list[Any]) -> Any:
    try:
        return rpc_call(network, method, params, bundler=True)
    except RpcError as exc:
        # The bundler's own words: a simulation that reverts (AA codes, a call that fails) is the caller's problem.
        raise ApiError(422, BUNDLER_REFUSED, f"The bundler refused the operation: {exc}"[:500]) from exc


def _at(answer: Any, *path: str, default: str | None = None) -> Any:
    """The value at `path` in a JSON answer (None, or `default`, when it is not there)."""
    value = answer
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    return default if value is None else value
