from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="TotalCaps")


@_attrs_define
class TotalCaps:
    """
    Attributes:
        max_per_day (None | str | Unset): What all the app's sponsored operations may cost in 24 h.
    """

    max_per_day: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        max_per_day: None | str | Unset
        if isinstance(self.max_per_day, Unset):
            max_per_day = UNSET
        else:
            max_per_day = self.max_per_day

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if max_per_day is not UNSET:
            field_dict["maxPerDay"] = max_per_day

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

        total_caps = cls(
            max_per_day=max_per_day,
        )

        return total_caps
