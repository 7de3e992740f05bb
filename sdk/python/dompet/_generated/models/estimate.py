from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="Estimate")


@_attrs_define
class Estimate:
    """
    Attributes:
        required_native (str): The operation's maximum cost in wei.
        required_gas_tank_balance (str): That cost in gas-tank base units, fees included.
        decimal (int): Decimals of the gas tank currency.
    """

    required_native: str
    required_gas_tank_balance: str
    decimal: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        required_native = self.required_native

        required_gas_tank_balance = self.required_gas_tank_balance

        decimal = self.decimal

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "requiredNative": required_native,
                "requiredGasTankBalance": required_gas_tank_balance,
                "decimal": decimal,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        required_native = d.pop("requiredNative")

        required_gas_tank_balance = d.pop("requiredGasTankBalance")

        decimal = d.pop("decimal")

        estimate = cls(
            required_native=required_native,
            required_gas_tank_balance=required_gas_tank_balance,
            decimal=decimal,
        )

        estimate.additional_properties = d
        return estimate

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
