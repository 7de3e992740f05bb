from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="Submit")


@_attrs_define
class Submit:
    """
    Attributes:
        signature (str): The owner's signature of `hash`.
        user_op_id (str):
        hash_ (str):
        is_sponsored (bool): true: the organization's gas tank pays; false: the owner's.
    """

    signature: str
    user_op_id: str
    hash_: str
    is_sponsored: bool

    def to_dict(self) -> dict[str, Any]:
        signature = self.signature

        user_op_id = self.user_op_id

        hash_ = self.hash_

        is_sponsored = self.is_sponsored

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "signature": signature,
                "userOpId": user_op_id,
                "hash": hash_,
                "isSponsored": is_sponsored,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        signature = d.pop("signature")

        user_op_id = d.pop("userOpId")

        hash_ = d.pop("hash")

        is_sponsored = d.pop("isSponsored")

        submit = cls(
            signature=signature,
            user_op_id=user_op_id,
            hash_=hash_,
            is_sponsored=is_sponsored,
        )

        return submit
