from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="OwnerCaps")


@_attrs_define
class OwnerCaps:
    """
    Attributes:
        max_per_day (None | str | Unset): What one owner's sponsored operations may cost in 24 h.
        max_count_per_day (int | None | Unset): How many in 24 h.
        max_per_month (None | str | Unset): What they may cost in 30 days.
    """

    max_per_day: None | str | Unset = UNSET
    max_count_per_day: int | None | Unset = UNSET
    max_per_month: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        max_per_day: None | str | Unset
        if isinstance(self.max_per_day, Unset):
            max_per_day = UNSET
        else:
            max_per_day = self.max_per_day

        max_count_per_day: int | None | Unset
        if isinstance(self.max_count_per_day, Unset):
            max_count_per_day = UNSET
        else:
            max_count_per_day = self.max_count_per_day

        max_per_month: None | str | Unset
        if isinstance(self.max_per_month, Unset):
            max_per_month = UNSET
        else:
            max_per_month = self.max_per_month

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if max_per_day is not UNSET:
            field_dict["maxPerDay"] = max_per_day
        if max_count_per_day is not UNSET:
            field_dict["maxCountPerDay"] = max_count_per_day
        if max_per_month is not UNSET:
            field_dict["maxPerMonth"] = max_per_month

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_max_per_day(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        max_per_day = _parse_max_per_day(d.pop("maxPerDay", UNSET))

        def _parse_max_count_per_day(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_count_per_day = _parse_max_count_per_day(d.pop("maxCountPerDay", UNSET))

        def _parse_max_per_month(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        max_per_month = _parse_max_per_month(d.pop("maxPerMonth", UNSET))

        owner_caps = cls(
            max_per_day=max_per_day,
            max_count_per_day=max_count_per_day,
            max_per_month=max_per_month,
        )

        return owner_caps
