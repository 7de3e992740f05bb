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
from chalicelib.platform.chain import rpc_call
from chalicelib.platform.logging import logger
from chalicelib.platform.networks import Network

USER_OPERATION_EVENT = "0x49628fd1471006c1482da88028e9ce4dbb080b815c9b0344d39e5a8e6ec1419f"
USER_OPERATION_REVERT_REASON = "0x1c4fada7374c0a9ee8841fc38afe82932dc0f8e69012e927f061a8bae611a201"
SCAN_MARGIN_BLOCKS = 64  # searched below the block at submission too: a reorg may have lowered the head since
SEQUENCE_BITS = 64  # a v0.7 nonce: key (192 bits) << 64 | sequence


@dataclass(frozen=True)
class Verdict:
    receipt: dict[str, Any] | None = None  # included: the outcome in the bundler receipt's shape
    excluded: bool = False  # proven never included


UNDECIDED = Verdict()


def verdict(network: Network, item: dict[str, Any]) -> Verdict:
    """What the chain says about the stored operation `item`. Raises (RpcError, ApiError, LogsUnavailableError,
    ValueError) when the node could not answer: no verdict."""
    latest = _block(network, "latest")
    receipt = _search(network, item, int(latest["number"], 16))
    if receipt is not None:
        return Verdict(receipt=receipt)
    final = latest
    if network.confirmations > 1:
        final = _block(network, hex(max(0, int(latest["number"], 16) - network.confirmations + 1)))
    if int(final["timestamp"], 16) <= int(item["validUntilEpoch"]):
        return UNDECIDED
    if _sequence_used(network, item, str(final["number"])):
        # No event, yet the nonce moved: a node lagging behind the head, or another operation the owner signed with
        # this key. Either way no proof that this one was not included.
        logger.warning("user operation nonce used but no event found", extra={"userOpId": item["id"]})
        return UNDECIDED
    return Verdict(excluded=True)


def included(network: Network, item: dict[str, Any]) -> dict[str, Any] | None:
    """The operation's outcome (receipt-shaped) if the chain holds it up to the head; raises as `verdict`."""
    head = rpc_call(network, "eth_blockNumber", [])
    if not isinstance(head, str):
        raise ValueError("eth_blockNumber answered something other than a quantity")
    return _search(network, item, int(head, 16))


def _search(network: Network, item: dict[str, Any], head: int) -> dict[str, Any] | None:
    assert network.entryPoint
    first = max(0, int(item["submittedBlock"]) - SCAN_MARGIN_BLOCKS)
    if first > head:
        return None
    query = {
        "address": network.entryPoint,
        "topics": [[USER_OPERATION_EVENT, USER_OPERATION_REVERT_REASON], str(item["userOpHash"])],
    }
    logs = [log for log in logs_in_range(network, query, first, head) if not log.get("removed")]
    event = next((log for log in logs if str(log["topics"][0]).lower() == USER_OPERATION_EVENT), None)
    return _receipt(event, logs) if event is not None else None


def _block(network: Network, number: str) -> dict[str, Any]:
    block = rpc_call(network, "eth_getBlockByNumber", [number, False])
    if not isinstance(block, dict):
        raise ValueError(f"no block {number}")
    return block


def _receipt(event: dict[str, Any], logs: list[dict[str, Any]]) -> dict[str, Any]:
    _nonce, success, actual_gas_cost, _gas_used = decode(
        ["uint256", "bool", "uint256", "uint256"], result_bytes(event["data"])
    )
    reason = ""
    for log in logs:
        if str(log["topics"][0]).lower() == USER_OPERATION_REVERT_REASON and (
            log["transactionHash"] == event["transactionHash"]
        ):
            reason = "0x" + bytes(decode(["uint256", "bytes"], result_bytes(log["data"]))[1]).hex()
    return {
        "success": bool(success),
        "actualGasCost": hex(actual_gas_cost),
        "reason": reason,
        "receipt": {"transactionHash": event["transactionHash"], "blockNumber": event["blockNumber"]},
    }


def _sequence_used(network: Network, item: dict[str, Any], block: str) -> bool:
    op = json.loads(str(item["op"]))
    nonce = int(op["nonce"], 16)
    key, sequence = nonce >> SEQUENCE_BITS, nonce & ((1 << SEQUENCE_BITS) - 1)
    call = {"to": network.entryPoint, "data": "0x" + encode_call("getNonce(address,uint192)", op["sender"], key).hex()}
    (current,) = decode(["uint256"], result_bytes(rpc_call(network, "eth_call", [call, block])))
    return bool((int(current) & ((1 << SEQUENCE_BITS) - 1)) > sequence)
