from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="OwnerRef")


@_attrs_define
class OwnerRef:
    """
    Attributes:
        id (str): The owner's Ethereum address (controls the accounts).
        provider (str): Account provider; only `wallet` is supported.
    """

    id: str
    provider: str

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        provider = self.provider

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "provider": provider,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = d.pop("id")

        provider = d.pop("provider")

        owner_ref = cls(
            id=id,
            provider=provider,
        )

        return owner_ref
