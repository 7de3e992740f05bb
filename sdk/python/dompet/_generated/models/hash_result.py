from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="HashResult")


@_attrs_define
class HashResult:
    """
    Attributes:
        hash_ (str): The userOpHash; the owner signs it (EIP-191 personal_sign of the 32 bytes).
        user_op_id (str):
        valid_until (int): Unix seconds until which the operation can be submitted and included.
    """

    hash_: str
    user_op_id: str
    valid_until: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        hash_ = self.hash_

        user_op_id = self.user_op_id

        valid_until = self.valid_until

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "hash": hash_,
                "userOpId": user_op_id,
                "validUntil": valid_until,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        hash_ = d.pop("hash")

        user_op_id = d.pop("userOpId")

        valid_until = d.pop("validUntil")

        hash_result = cls(
            hash_=hash_,
            user_op_id=user_op_id,
            valid_until=valid_until,
        )

        hash_result.additional_properties = d
        return hash_result

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
