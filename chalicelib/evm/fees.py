"""Fees, gas and the account's state for a new transaction: every read in one JSON-RPC batch.

If the latest block has a base fee the transaction is EIP-1559 (type 2): the priority fee is
`eth_maxPriorityFeePerGas` (1 gwei on nodes without it) and `maxFeePerGas` twice the base fee plus that, room
for the base fee to double before the transaction is priced out. Otherwise it is legacy at `eth_gasPrice`.
Gas is `eth_estimateGas`, plus GAS_MARGIN_PERCENT when the call carries data.

A replacement at the same nonce (a bump, a speed-up, a cancel) raises every fee by at least BUMP_PERCENT, follows
the chain's current price, and stays at or below the network's ceiling (`bumped`, `ceiling`).
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
BUMP_PERCENT = 10  # a replacement offers at least this much more on every fee (geth's minimum)
CEILING_TIMES = 10  # without a network ceiling: a replacement offers at most this many times the first fee cap


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


@dataclass(frozen=True)
class Market:
    """What the chain asks now: the latest block's base fee (None on a chain without EIP-1559), the suggested
    priority fee, and the node's gas price."""

    base_fee: int | None
    tip: int
    gas_price: int

    def needs(self, fees: Fees) -> bool:
        """Whether `fees` are below what a transaction needs to be included now."""
        floor = self.gas_price if self.base_fee is None else self.base_fee + self.tip
        if fees.gas_price is not None:
            return fees.gas_price < floor
        return (fees.max_fee or 0) < floor or (fees.max_priority_fee or 0) < self.tip


def raised(price: int) -> int:
    """The least a replacement must offer where the current transaction offers `price`: BUMP_PERCENT more,
    rounded up (geth's rule; anvil takes less)."""
    return (price * (100 + BUMP_PERCENT) + 99) // 100


def high_enough(current: Fees, offered: Fees) -> bool:
    """Whether `offered` replaces `current` at a node: the same kind of fee, each raised by BUMP_PERCENT."""
    if current.gas_price is not None:
        return offered.gas_price is not None and offered.gas_price >= raised(current.gas_price)
    return (
        offered.max_fee is not None
        and offered.max_priority_fee is not None
        and offered.max_fee >= raised(current.max_fee or 0)
        and offered.max_priority_fee >= raised(current.max_priority_fee or 0)
    )


def bumped(current: Fees, market: Market, ceiling: int) -> Fees | None:
    """The next price for a transaction at `current` fees: at least the node's replacement minimum, at least what
    the chain asks now (a 1559 fee cap with room for the base fee to double), at most `ceiling` wei per gas. None
    when the ceiling leaves no room for the replacement minimum."""
    if current.gas_price is not None:
        floor = market.gas_price if market.base_fee is None else market.base_fee + market.tip
        price = min(max(raised(current.gas_price), floor), ceiling)
        return Fees(gas_price=price) if price >= raised(current.gas_price) else None
    tip = max(raised(current.max_priority_fee or 0), market.tip)
    base = market.base_fee if market.base_fee is not None else market.gas_price
    cap = min(max(raised(current.max_fee or 0), 2 * base + tip), ceiling)
    tip = min(tip, cap)
    offered = Fees(max_fee=cap, max_priority_fee=tip)
    return offered if high_enough(current, offered) else None


def ceiling(network: Network, first_cap: int) -> int:
    """The most wei per gas a replacement may offer: the network's `maxFeePerGasCeiling`, else CEILING_TIMES the
    fee cap of the transaction's first signature (the cosigner holds replacements to the same bound)."""
    return network.maxFeePerGasCeiling or CEILING_TIMES * first_cap
