from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.legacy_replacement_reason import LegacyReplacementReason

T = TypeVar("T", bound="LegacyReplacement")


@_attrs_define
class LegacyReplacement:
    """A replacement of a legacy transaction: the same nonce, a higher gas price.

    Attributes:
        hash_ (str): The replacement's hash; it answers the record too.
        gas_price (str): Wei per gas (decimal string).
        reason (LegacyReplacementReason): `bump`: re-priced by the tracker while the chain asked more; `speed_up` and
            `cancel`: asked for through the API.
        created_at (str):
    """

    hash_: str
    gas_price: str
    reason: LegacyReplacementReason
    created_at: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        hash_ = self.hash_

        gas_price = self.gas_price

        reason = self.reason.value

        created_at = self.created_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "hash": hash_,
                "gasPrice": gas_price,
                "reason": reason,
                "createdAt": created_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        hash_ = d.pop("hash")

        gas_price = d.pop("gasPrice")

        reason = LegacyReplacementReason(d.pop("reason"))

        created_at = d.pop("createdAt")

        legacy_replacement = cls(
            hash_=hash_,
            gas_price=gas_price,
            reason=reason,
            created_at=created_at,
        )

        legacy_replacement.additional_properties = d
        return legacy_replacement

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
