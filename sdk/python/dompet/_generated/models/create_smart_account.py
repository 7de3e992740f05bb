from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.owner_ref import OwnerRef


T = TypeVar("T", bound="CreateSmartAccount")


@_attrs_define
class CreateSmartAccount:
    """
    Attributes:
        owner (OwnerRef):
    """

    owner: OwnerRef

    def to_dict(self) -> dict[str, Any]:
        owner = self.owner.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "owner": owner,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.owner_ref import OwnerRef

        d = dict(src_dict)
        owner = OwnerRef.from_dict(d.pop("owner"))

        create_smart_account = cls(
            owner=owner,
        )

        return create_smart_account
