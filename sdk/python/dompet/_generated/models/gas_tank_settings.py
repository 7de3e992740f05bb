from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

T = TypeVar("T", bound="GasTankSettings")


@_attrs_define
class GasTankSettings:
    """
    Attributes:
        low_balance_threshold (None | str): Below this balance (tank units) a `gasTank.low_balance` event is sent, once
            per crossing; null: no alerts.
    """

    low_balance_threshold: None | str

    def to_dict(self) -> dict[str, Any]:
        low_balance_threshold: None | str
        low_balance_threshold = self.low_balance_threshold

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "lowBalanceThreshold": low_balance_threshold,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_low_balance_threshold(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        low_balance_threshold = _parse_low_balance_threshold(
            d.pop("lowBalanceThreshold")
        )

        gas_tank_settings = cls(
            low_balance_threshold=low_balance_threshold,
        )

        return gas_tank_settings
