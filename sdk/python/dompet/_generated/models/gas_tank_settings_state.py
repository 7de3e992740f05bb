from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="GasTankSettingsState")


@_attrs_define
class GasTankSettingsState:
    """
    Attributes:
        gas_tank_id (str):
        balance (str):
        low_balance_threshold (None | str):
        low_alerted (bool): The alert fired for the current crossing (a top-up above it re-arms it).
    """

    gas_tank_id: str
    balance: str
    low_balance_threshold: None | str
    low_alerted: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        gas_tank_id = self.gas_tank_id

        balance = self.balance

        low_balance_threshold: None | str
        low_balance_threshold = self.low_balance_threshold

        low_alerted = self.low_alerted

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "gasTankId": gas_tank_id,
                "balance": balance,
                "lowBalanceThreshold": low_balance_threshold,
                "lowAlerted": low_alerted,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        gas_tank_id = d.pop("gasTankId")

        balance = d.pop("balance")

        def _parse_low_balance_threshold(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        low_balance_threshold = _parse_low_balance_threshold(
            d.pop("lowBalanceThreshold")
        )

        low_alerted = d.pop("lowAlerted")

        gas_tank_settings_state = cls(
            gas_tank_id=gas_tank_id,
            balance=balance,
            low_balance_threshold=low_balance_threshold,
            low_alerted=low_alerted,
        )

        gas_tank_settings_state.additional_properties = d
        return gas_tank_settings_state

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
