from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="PolicySet")


@_attrs_define
class PolicySet:
    """
    Attributes:
        version (int): The version now in force.
        key_id (str): The policy key that signed it (`pk_` + 16 hex digits of its SHA-256).
        set_at (str): When the cosigner stored it (RFC 3339, UTC).
    """

    version: int
    key_id: str
    set_at: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        version = self.version

        key_id = self.key_id

        set_at = self.set_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "version": version,
                "keyId": key_id,
                "setAt": set_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        version = d.pop("version")

        key_id = d.pop("keyId")

        set_at = d.pop("setAt")

        policy_set = cls(
            version=version,
            key_id=key_id,
            set_at=set_at,
        )

        policy_set.additional_properties = d
        return policy_set

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
