"""Fees, gas and the account's state for a new transaction: every read in one JSON-RPC batch.

If the latest block has a base fee the transaction is EIP-1559 (type 2): the priority fee is
`eth_maxPriorityFeePerGas` (1 gwei on nodes without it) and `maxFeePerGas` twice the base fee plus that, room
for the base fee to double before the transaction is priced out. Otherwise it is legacy at `eth_gasPrice`.
Gas is `eth_estimateGas`, plus GAS_MARGIN_PERCENT when the call carries data.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from chalicelib.evm import rpc
from chalicelib.evm.rpc import RpcError, node_quantity
from chalicelib.platform.errors import UPSTREAM_UNAVAILABLE, ApiError
from chalicelib.platform.networks import Network

INSUFFICIENT_FUNDS = "INSUFFICIENT_FUNDS"
TRANSACTION_WOULD_FAIL = "TRANSACTION_WOULD_FAIL"
GAS_MARGIN_PERCENT = 20  # calls with data: estimates can fall short when state moves before mining
MAX_GAS = 30_000_000
DEFAULT_PRIORITY_FEE = 10**9  # nodes without eth_maxPriorityFeePerGas


@dataclass(frozen=True)
class Fees:
    gas_price: int | None = None  # legacy
    max_fee: int | None = None  # EIP-1559
    max_priority_fee: int | None = None

    @property
    def cap(self) -> int:
        """The most one unit of gas can cost."""
        return int(self.gas_price if self.gas_price is not None else self.max_fee or 0)


@dataclass(frozen=True)
class Quote:
    fees: Fees
    gas: int
    balance: int  # wei at the latest block
    pending_nonce: int | None  # the node's pending nonce, when asked


def quote(
    network: Network,
    sender: str,
    call: dict[str, Any],
    *,
    gas: int | None = None,
    gas_price: int | None = None,
    with_nonce: bool = True,
) -> Quote:
    """One round trip: the latest block, fee suggestions, balance, pending nonce and gas estimate.

    `call`: `{to, value, data}` (hex) as eth_estimateGas takes it; `gas`/`gas_price` given by the caller are
    used as they are (a given gas price makes a legacy transaction)."""
    reads: dict[str, tuple[str, list[Any]]] = {"balance": ("eth_getBalance", [sender, "latest"])}
    if gas_price is None:
        reads["block"] = ("eth_getBlockByNumber", ["latest", False])
        reads["priority"] = ("eth_maxPriorityFeePerGas", [])
        reads["gasPrice"] = ("eth_gasPrice", [])
    if with_nonce:
        reads["nonce"] = ("eth_getTransactionCount", [sender, "pending"])
    if gas is None:
        reads["estimate"] = ("eth_estimateGas", [{"from": sender, **call}])
    answers = dict(zip(reads, rpc.rpc_batch(network, list(reads.values())), strict=True))

    if gas is None:
        gas = _gas(network, answers["estimate"], bool(call.get("data") not in (None, "0x")))
    if gas_price is not None:
        fees = Fees(gas_price=gas_price)
    else:
        block = answers["block"]
        base_fee = block.get("baseFeePerGas") if isinstance(block, dict) else None
        if isinstance(block, RpcError) or block is None:
            raise _upstream(network, "eth_getBlockByNumber")
        if base_fee is None:
            fees = Fees(gas_price=node_quantity(network, answers["gasPrice"], "eth_gasPrice"))
        else:
            priority = answers["priority"]
            tip = DEFAULT_PRIORITY_FEE if isinstance(priority, RpcError) else node_quantity(network, priority, "fee")
            fees = Fees(max_fee=2 * node_quantity(network, base_fee, "baseFee") + tip, max_priority_fee=tip)
    balance = node_quantity(network, answers["balance"], "eth_getBalance")
    pending = node_quantity(network, answers["nonce"], "eth_getTransactionCount") if with_nonce else None
    return Quote(fees, gas, balance, pending)


def _gas(network: Network, answer: Any, has_data: bool) -> int:
    if isinstance(answer, RpcError):
        if "insufficient funds" in str(answer).lower():
            raise ApiError(422, INSUFFICIENT_FUNDS, f"Not enough {network.nativeSymbol} for this transaction")
        if answer.reverted:
            raise ApiError(422, TRANSACTION_WOULD_FAIL, "The transaction would revert on chain")
        raise ApiError(502, UPSTREAM_UNAVAILABLE, f"The node of {network.name} could not estimate gas")
    estimate = node_quantity(network, answer, "eth_estimateGas")
    return estimate if not has_data else min(estimate * (100 + GAS_MARGIN_PERCENT) // 100, MAX_GAS)


def _upstream(network: Network, what: str) -> ApiError:
    return ApiError(502, UPSTREAM_UNAVAILABLE, f"The node of {network.name} failed {what}")
