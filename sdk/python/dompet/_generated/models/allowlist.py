from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="Allowlist")


@_attrs_define
class Allowlist:
    """
    Attributes:
        enabled (bool): When true, withdrawals may only go to `addresses`.
        addresses (list[str]):
        updated_at (None | str | Unset):
        inherited (bool | Unset): True when the operator set nothing for this app and another app of its organization
            has an allowlist on: withdrawals may go nowhere until the operator sets this app's own (or turns it off).
            Default: False.
    """

    enabled: bool
    addresses: list[str]
    updated_at: None | str | Unset = UNSET
    inherited: bool | Unset = False
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        enabled = self.enabled

        addresses = self.addresses

        updated_at: None | str | Unset
        if isinstance(self.updated_at, Unset):
            updated_at = UNSET
        else:
            updated_at = self.updated_at

        inherited = self.inherited

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "enabled": enabled,
                "addresses": addresses,
            }
        )
        if updated_at is not UNSET:
            field_dict["updatedAt"] = updated_at
        if inherited is not UNSET:
            field_dict["inherited"] = inherited

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        enabled = d.pop("enabled")

        addresses = cast(list[str], d.pop("addresses"))

        def _parse_updated_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        updated_at = _parse_updated_at(d.pop("updatedAt", UNSET))

        inherited = d.pop("inherited", UNSET)

        allowlist = cls(
            enabled=enabled,
            addresses=addresses,
            updated_at=updated_at,
            inherited=inherited,
        )

        allowlist.additional_properties = d
        return allowlist

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
