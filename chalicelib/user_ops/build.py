"""Building a user operation for a smart account: call data for each kind, a fresh 2-D nonce, the factory while
the account is not deployed, fees and gas limits from the bundler, and the VerifyingPaymaster's data signed by
the service's KMS key (after estimation: its hash covers every gas limit).

Round trips: one node read (the account's code; none once the account is known to be deployed), then the
bundler's gas price and its estimate (bundlers answer them separately: the estimate carries the fees), then one
KMS sign.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

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


@dataclass(frozen=True)
class Call:
    """What the account executes: `execute(dest, value, data)`; `dest` None means deploy only (empty call)."""

    kind: str
    dest: str | None
    value: int = 0
    data: bytes = b""

    def call_data(self) -> bytes:
        if self.dest is None:
            return b""
        return encode_call("execute(address,uint256,bytes)", self.dest, self.value, self.data)


def coin(to: str, amount: int) -> Call:
    return Call("send_coin", to, amount)


def token(token_address: str, to: str, amount: int) -> Call:
    return Call("send_token", token_address, 0, encode_call("transfer(address,uint256)", to, amount))


def erc721(token_address: str, sender: str, to: str, token_id: int) -> Call:
    data = encode_call("safeTransferFrom(address,address,uint256)", sender, to, token_id)
    return Call("send_erc721", token_address, 0, data)


def erc1155(token_address: str, sender: str, to: str, token_id: int, amount: int, data: bytes) -> Call:
    call = encode_call("safeTransferFrom(address,address,uint256,uint256,bytes)", sender, to, token_id, amount, data)
    return Call("send_erc1155", token_address, 0, call)


def transaction(to: str, value: int, data: bytes) -> Call:
    return Call("sign_transaction", to, value, data)


def call_of(call_data: bytes) -> tuple[str | None, bytes]:
    """What an operation's callData calls: `dest` and `data` of the account's `execute(dest, value, data)`, or
    (None, b"") for an operation that calls nothing (a deployment alone) or anything else."""
    if call_data[:4] != selector("execute(address,uint256,bytes)"):
        return None, b""
    try:
        dest, _value, data = decode(["address", "uint256", "bytes"], call_data[4:])
    except ValueError:
        return None, b""
    return str(dest), bytes(data)


def activation() -> Call:
    return Call("activate", None)


@dataclass(frozen=True)
class Built:
    op: packing.UserOp
    user_op_hash: bytes
    valid_until: int


def build(network: Network, owner: str, call: Call, sign: bool = True, known_deployed: bool = False) -> Built:
    """The operation, estimated and (with `sign`) carrying the paymaster's signature; the owner signs its hash.

    `known_deployed`: the account's record says `deployed` (its deployment was seen on chain). A SimpleAccount
    cannot lose its code, so the node is not asked; otherwise its code is read, since anyone may deploy it."""
    assert network.accountFactory and network.paymaster and network.entryPoint
    sender = counterfactual.account_address(network.accountFactory, owner)
    deployed = known_deployed or _node(network, "eth_getCode", [sender, "latest"]) not in (None, "0x", "0x0")
    max_fee, priority_fee = _fees(network)
    valid_until = epoch() + load_settings().user_op_valid_s
    op = packing.UserOp(
        sender=sender,
        nonce=secrets.randbits(192) << 64,  # a fresh nonce key: sequence 0; operations never collide
        call_data=call.call_data(),
        factory=None if deployed else network.accountFactory,
        factory_data=b"" if deployed else counterfactual.factory_data(owner),
        max_fee_per_gas=max_fee,
        max_priority_fee_per_gas=priority_fee,
        paymaster=network.paymaster,
        paymaster_verification_gas_limit=PAYMASTER_VERIFICATION_GAS,
        paymaster_data=packing.paymaster_data(valid_until, 0, packing.DUMMY_SIGNATURE),
        signature=packing.DUMMY_SIGNATURE,
    )
    estimate = _bundler(network, "eth_estimateUserOperationGas", [op.wire(), network.entryPoint])
    what = "eth_estimateUserOperationGas"
    op = op.with_(
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
    if sign:
        digest = packing.paymaster_hash(op, network.chainId, valid_until, 0)
        signature = KmsSigner(PAYMASTER_KEY).sign_digest(packing.eth_signed_message_hash(digest))
        op = op.with_(paymaster_data=packing.paymaster_data(valid_until, 0, with_v27(signature)))
    return Built(op, packing.user_op_hash(op, network.entryPoint, network.chainId), valid_until)


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
