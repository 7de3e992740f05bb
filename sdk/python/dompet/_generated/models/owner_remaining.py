from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="OwnerRemaining")


@_attrs_define
class OwnerRemaining:
    """
    Attributes:
        per_day (None | str):
        count_per_day (int | None):
        per_month (None | str):
    """

    per_day: None | str
    count_per_day: int | None
    per_month: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        per_day: None | str
        per_day = self.per_day

        count_per_day: int | None
        count_per_day = self.count_per_day

        per_month: None | str
        per_month = self.per_month

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "perDay": per_day,
                "countPerDay": count_per_day,
                "perMonth": per_month,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_per_day(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        per_day = _parse_per_day(d.pop("perDay"))

        def _parse_count_per_day(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        count_per_day = _parse_count_per_day(d.pop("countPerDay"))

        def _parse_per_month(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        per_month = _parse_per_month(d.pop("perMonth"))

        owner_remaining = cls(
            per_day=per_day,
            count_per_day=count_per_day,
            per_month=per_month,
        )

        owner_remaining.additional_properties = d
        return owner_remaining

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
