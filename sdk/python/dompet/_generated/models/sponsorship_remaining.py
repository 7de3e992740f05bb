from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.owner_remaining import OwnerRemaining
    from ..models.total_remaining import TotalRemaining


T = TypeVar("T", bound="SponsorshipRemaining")


@_attrs_define
class SponsorshipRemaining:
    """What is left of each cap before this operation; null where the policy sets none.

    Attributes:
        per_owner (OwnerRemaining):
        per_operation (None | str):
        total (TotalRemaining):
    """

    per_owner: OwnerRemaining
    per_operation: None | str
    total: TotalRemaining
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        per_owner = self.per_owner.to_dict()

        per_operation: None | str
        per_operation = self.per_operation

        total = self.total.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "perOwner": per_owner,
                "perOperation": per_operation,
                "total": total,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.owner_remaining import OwnerRemaining
        from ..models.total_remaining import TotalRemaining

        d = dict(src_dict)
        per_owner = OwnerRemaining.from_dict(d.pop("perOwner"))

        def _parse_per_operation(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        per_operation = _parse_per_operation(d.pop("perOperation"))

        total = TotalRemaining.from_dict(d.pop("total"))

        sponsorship_remaining = cls(
            per_owner=per_owner,
            per_operation=per_operation,
            total=total,
        )

        sponsorship_remaining.additional_properties = d
        return sponsorship_remaining

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
