from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="OperationCaps")


@_attrs_define
class OperationCaps:
    """
    Attributes:
        max_ (None | str | Unset): The most one operation may cost (its maximum, fees included).
    """

    max_: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        max_: None | str | Unset
        if isinstance(self.max_, Unset):
            max_ = UNSET
        else:
            max_ = self.max_

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if max_ is not UNSET:
            field_dict["max"] = max_

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_max_(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        max_ = _parse_max_(d.pop("max", UNSET))

        operation_caps = cls(
            max_=max_,
        )

        return operation_caps
