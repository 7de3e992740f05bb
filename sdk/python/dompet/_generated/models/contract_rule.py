from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="ContractRule")


@_attrs_define
class ContractRule:
    """
    Attributes:
        address (str): A contract the account may call (the `dest` of its `execute`).
        selectors (list[str] | Unset): The functions it may call (4-byte selectors); empty: any call of the contract, a
            plain transfer to it included.
    """

    address: str
    selectors: list[str] | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        address = self.address

        selectors: list[str] | Unset = UNSET
        if not isinstance(self.selectors, Unset):
            selectors = self.selectors

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "address": address,
            }
        )
        if selectors is not UNSET:
            field_dict["selectors"] = selectors

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        address = d.pop("address")

        selectors = cast(list[str], d.pop("selectors", UNSET))

        contract_rule = cls(
            address=address,
            selectors=selectors,
        )

        return contract_rule
