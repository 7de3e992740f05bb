from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="LoginRequest")


@_attrs_define
class LoginRequest:
    """
    Attributes:
        sub_id (str): The client's own identifier of its user (printable ASCII, no spaces); the client's backend vouches
            for it.
    """

    sub_id: str

    def to_dict(self) -> dict[str, Any]:
        sub_id = self.sub_id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "subId": sub_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        sub_id = d.pop("subId")

        login_request = cls(
            sub_id=sub_id,
        )

        return login_request
