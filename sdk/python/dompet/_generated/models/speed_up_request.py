from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="SpeedUpRequest")


@_attrs_define
class SpeedUpRequest:
    """The fees of the replacement, in the transaction's own kind: `gasPrice` for a legacy transaction,
    `maxFeePerGas` and `maxPriorityFeePerGas` together for an EIP-1559 one; none: the next bump.

        Attributes:
            secret (None | str | Unset): The wallet's secret0 from the user's device. Only operations that sign use it.
            gas_price (None | str | Unset): Wei per gas, decimal; a legacy transaction only. At least 10% above its current
                one.
            max_fee_per_gas (None | str | Unset): Wei per gas, decimal; an EIP-1559 transaction only, with
                maxPriorityFeePerGas. At least 10% above its current one.
            max_priority_fee_per_gas (None | str | Unset): Wei per gas, decimal; an EIP-1559 transaction only, with
                maxFeePerGas, at most maxFeePerGas. At least 10% above its current one.
    """

    secret: None | str | Unset = UNSET
    gas_price: None | str | Unset = UNSET
    max_fee_per_gas: None | str | Unset = UNSET
    max_priority_fee_per_gas: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        secret: None | str | Unset
        if isinstance(self.secret, Unset):
            secret = UNSET
        else:
            secret = self.secret

        gas_price: None | str | Unset
        if isinstance(self.gas_price, Unset):
            gas_price = UNSET
        else:
            gas_price = self.gas_price

        max_fee_per_gas: None | str | Unset
        if isinstance(self.max_fee_per_gas, Unset):
            max_fee_per_gas = UNSET
        else:
            max_fee_per_gas = self.max_fee_per_gas

        max_priority_fee_per_gas: None | str | Unset
        if isinstance(self.max_priority_fee_per_gas, Unset):
            max_priority_fee_per_gas = UNSET
        else:
            max_priority_fee_per_gas = self.max_priority_fee_per_gas

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if secret is not UNSET:
            field_dict["secret"] = secret
        if gas_price is not UNSET:
            field_dict["gasPrice"] = gas_price
        if max_fee_per_gas is not UNSET:
            field_dict["maxFeePerGas"] = max_fee_per_gas
        if max_priority_fee_per_gas is not UNSET:
            field_dict["maxPriorityFeePerGas"] = max_priority_fee_per_gas

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_secret(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        secret = _parse_secret(d.pop("secret", UNSET))

        def _parse_gas_price(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        gas_price = _parse_gas_price(d.pop("gasPrice", UNSET))

        def _parse_max_fee_per_gas(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        max_fee_per_gas = _parse_max_fee_per_gas(d.pop("maxFeePerGas", UNSET))

        def _parse_max_priority_fee_per_gas(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        max_priority_fee_per_gas = _parse_max_priority_fee_per_gas(
            d.pop("maxPriorityFeePerGas", UNSET)
        )

        speed_up_request = cls(
            secret=secret,
            gas_price=gas_price,
            max_fee_per_gas=max_fee_per_gas,
            max_priority_fee_per_gas=max_priority_fee_per_gas,
        )

        return speed_up_request
