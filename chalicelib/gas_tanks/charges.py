"""What a user operation costs in the gas tank: the native cost at the network's rate, plus the client's and
the service's fees; exact integers, rounded up in the service's favour only by less than one base unit.

Tank units are USDT at store.DECIMALS (18). `nativeToGasTankRate` is USDT per whole native coin, so
`tank = wei * rate * 10^(18 - nativeDecimals)`.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from decimal import Decimal, localcontext
from typing import Any

from chalicelib.gas_tanks import store
from chalicelib.platform.networks import Network

BPS = 10_000


@dataclass(frozen=True)
class Charge:
    native: int  # wei
    base: int  # tank units, before fees
    client_fee: int
    service_fee: int

    @property
    def total(self) -> int:
        return self.base + self.client_fee + self.service_fee


def charge(network: Network, wei: int) -> Charge:
    assert network.nativeToGasTankRate is not None
    with localcontext() as exact:
        exact.prec = 200  # far beyond a uint256 times a 60-digit rate: no rounding before the ceiling below
        scaled = (
            Decimal(wei)
            * Decimal(network.nativeToGasTankRate)
            * Decimal(10) ** (store.DECIMALS - network.nativeDecimals)
        )
        base = int(-(-scaled // 1))  # ceiling
    return Charge(
        native=wei,
        base=base,
        client_fee=_ceil_div(base * network.clientFeeBps, BPS),
        service_fee=_ceil_div(base * network.serviceFeeBps, BPS),
    )


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def usage_record(
    cost: Charge, network: Network, tank_id: str, client_id: str, app_id: str, user_op_id: str, now: str
) -> dict[str, Any]:
    """The usage record of a user operation's debit of `cost` (the next entry of the tank's usage list); its actual
    amounts and refund are written when the operation settles (store.usage_settled)."""
    return {
        "id": str(uuid.uuid4()),
        "clientId": client_id,
        "appId": app_id,
        "clientGasTankId": tank_id,
        "userOpId": user_op_id,
        "nativeToGasTankRate": network.nativeToGasTankRate,
        "amountInNative": str(cost.native),
        "amountInGasTank": str(cost.total),
        "initialDeductedAmountInNative": str(cost.native),
        "initialDeductedAmountInGasTank": str(cost.total),
        "refundedAmountInNative": None,
        "refundedAmountInGasTank": None,
        "clientFeeInGasTank": str(cost.client_fee),
        "serviceFeeInGasTank": str(cost.service_fee),
        "createdAt": now,
        "refundedAt": None,
    }
