from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.eip_1559_replacement_reason import Eip1559ReplacementReason

T = TypeVar("T", bound="Eip1559Replacement")


@_attrs_define
class Eip1559Replacement:
    """A replacement of an EIP-1559 transaction: the same nonce, both fees higher.

    Attributes:
        hash_ (str): The replacement's hash; it answers the record too.
        max_fee_per_gas (str): Wei per gas (decimal string).
        max_priority_fee_per_gas (str): Wei per gas (decimal string).
        reason (Eip1559ReplacementReason): `bump`: re-priced by the tracker while the chain asked more; `speed_up` and
            `cancel`: asked for through the API.
        created_at (str):
    """

    hash_: str
    max_fee_per_gas: str
    max_priority_fee_per_gas: str
    reason: Eip1559ReplacementReason
    created_at: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        hash_ = self.hash_

        max_fee_per_gas = self.max_fee_per_gas

        max_priority_fee_per_gas = self.max_priority_fee_per_gas

        reason = self.reason.value

        created_at = self.created_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "hash": hash_,
                "maxFeePerGas": max_fee_per_gas,
                "maxPriorityFeePerGas": max_priority_fee_per_gas,
                "reason": reason,
                "createdAt": created_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        hash_ = d.pop("hash")

        max_fee_per_gas = d.pop("maxFeePerGas")

        max_priority_fee_per_gas = d.pop("maxPriorityFeePerGas")

        reason = Eip1559ReplacementReason(d.pop("reason"))

        created_at = d.pop("createdAt")

        eip_1559_replacement = cls(
            hash_=hash_,
            max_fee_per_gas=max_fee_per_gas,
            max_priority_fee_per_gas=max_priority_fee_per_gas,
            reason=reason,
            created_at=created_at,
        )

        eip_1559_replacement.additional_properties = d
        return eip_1559_replacement

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
