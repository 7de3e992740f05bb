"""The chain's word on a submitted user operation, for when the bundler's is missing (no receipt, or an error).

* Included: the EntryPoint's `UserOperationEvent` with the operation's `userOpHash` (its first indexed topic),
  searched from a little before the block at submission up to the head. The event carries `success` and
  `actualGasCost`; a `UserOperationRevertReason` of the same operation in the same transaction carries the
  revert data.
* Never included: the operation cannot be included in a block past its `validUntil` (the paymaster data bounds
  it and the EntryPoint refuses it). So when a block the network counts as final (`confirmations`) is past
  `validUntil`, no event is found up to the head, and at that block the EntryPoint's nonce for the operation's
  key has not passed the operation's sequence, the operation was not included and never will be. The nonce read
  guards the log search: a node that lags the head may answer a range with `[]`, but refuses a call at a block
  it does not have.
* Otherwise: no verdict yet (still includable, or the node could not say).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from chalicelib.evm.abi import decode, encode_call, result_bytes
from chalicelib.evm.logs import logs_in_range
from chalicelib.evm.rpc import block_number, quantity, rpc_call
from chalicelib.platform.logging import logger
from chalicelib.platform.networks import Network
from chalicelib.user_ops.models import UserOpRecord

USER_OPERATION_EVENT = "0x49628fd1471006c1482da88028e9ce4dbb080b815c9b0344d39e5a8e6ec1419f"
USER_OPERATION_REVERT_REASON = "0x1c4fada7374c0a9ee8841fc38afe82932dc0f8e69012e927f061a8bae611a201"
SCAN_MARGIN_BLOCKS = 64  # searched below the block at submission too: a reorg may have lowered the head since
SEQUENCE_BITS = 64  # a v0.7 nonce: key (192 bits) << 64 | sequence


@dataclass(frozen=True)
class Receipt:
    """An included operation's outcome: the bundler's receipt, or the chain's `UserOperationEvent`."""

    success: bool
    actual_gas_cost: int  # wei
    reason: str = ""  # the revert data of a failed execution (hex), if any
    tx_hash: str | None = None

    @classmethod
    def from_bundler(cls, answer: dict[str, Any]) -> Receipt:
        """`eth_getUserOperationReceipt`'s answer; ValueError when it is malformed."""
        inner = answer.get("receipt")
        tx_hash = inner.get("transactionHash") if isinstance(inner, dict) else None
        return cls(
            success=bool(answer.get("success")),
            actual_gas_cost=quantity(answer.get("actualGasCost")),
            reason=str(answer.get("reason") or ""),
            tx_hash=str(tx_hash) if tx_hash is not None else None,
        )


@dataclass(frozen=True)
class Verdict:
    receipt: Receipt | None = None  # included: its outcome
    excluded: bool = False  # proven never included


UNDECIDED = Verdict()


def verdict(network: Network, op: UserOpRecord) -> Verdict:
    """What the chain says about the stored operation `op`. Raises (RpcError, evm.rpc.NO_ANSWER,
    LogsUnavailableError, ValueError) when the node could not answer: no verdict."""
    latest = _block(network, "latest")
    head = quantity(latest.get("number"))
    receipt = _search(network, op, head)
    if receipt is not None:
        return Verdict(receipt=receipt)
    final = latest
    if network.confirmations > 1:
        final = _block(network, hex(max(0, head - network.confirmations + 1)))
    if quantity(final.get("timestamp")) <= op.validUntilEpoch:
        return UNDECIDED
    if _sequence_used(network, op, str(final["number"])):
        # No event, yet the nonce moved: a node lagging behind the head, or another operation the owner signed with
        # this key. Either way no proof that this one was not included.
        logger.warning("user operation nonce used but no event found", extra={"userOpId": op.id})
        return UNDECIDED
    return Verdict(excluded=True)


def included(network: Network, op: UserOpRecord) -> Receipt | None:
    """The operation's outcome if the chain holds it up to the head; raises as `verdict`."""
    return _search(network, op, block_number(network))


def _search(network: Network, op: UserOpRecord, head: int) -> Receipt | None:
    first = max(0, int(op.submittedBlock or 0) - SCAN_MARGIN_BLOCKS)
    if first > head:
        return None
    query = {
        "address": network.entry_point_for(op.bundlerVersion),
        "topics": [[USER_OPERATION_EVENT, USER_OPERATION_REVERT_REASON], op.userOpHash],
    }
    logs = [log for log in logs_in_range(network, query, first, head) if not log.get("removed")]
    event = next((log for log in logs if str(log["topics"][0]).lower() == USER_OPERATION_EVENT), None)
    return _receipt(event, logs) if event is not None else None


def _block(network: Network, number: str) -> dict[str, Any]:
    block = rpc_call(network, "eth_getBlockByNumber", [number, False])
    if not isinstance(block, dict):
        raise ValueError(f"no block {number}")
    return block


def _receipt(event: dict[str, Any], logs: list[dict[str, Any]]) -> Receipt:
    _nonce, success, actual_gas_cost, _gas_used = decode(
        ["uint256", "bool", "uint256", "uint256"], result_bytes(event["data"])
    )
    reason = ""
    for log in logs:
        if str(log["topics"][0]).lower() == USER_OPERATION_REVERT_REASON and (
            log["transactionHash"] == event["transactionHash"]
        ):
            reason = "0x" + bytes(decode(["uint256", "bytes"], result_bytes(log["data"]))[1]).hex()
    return Receipt(bool(success), int(actual_gas_cost), reason, str(event["transactionHash"]))


def _sequence_used(network: Network, op: UserOpRecord, block: str) -> bool:
    wire = json.loads(op.op)
    nonce = quantity(wire["nonce"])
    key, sequence = nonce >> SEQUENCE_BITS, nonce & ((1 << SEQUENCE_BITS) - 1)
    call = {
        "to": network.entry_point_for(op.bundlerVersion),
        "data": "0x" + encode_call("getNonce(address,uint192)", wire["sender"], key).hex(),
    }
    (current,) = decode(["uint256"], result_bytes(rpc_call(network, "eth_call", [call, block])))
    return bool((int(current) & ((1 << SEQUENCE_BITS) - 1)) > sequence)
