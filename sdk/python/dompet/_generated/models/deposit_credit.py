from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="DepositCredit")


@_attrs_define
class DepositCredit:
    """
    Attributes:
        token_code (str):
        amount (str):
        reference_type (str):
        reference_id (str):
    """

    token_code: str
    amount: str
    reference_type: str
    reference_id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        token_code = self.token_code

        amount = self.amount

        reference_type = self.reference_type

        reference_id = self.reference_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "tokenCode": token_code,
                "amount": amount,
                "referenceType": reference_type,
                "referenceId": reference_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        token_code = d.pop("tokenCode")

        amount = d.pop("amount")

        reference_type = d.pop("referenceType")

        reference_id = d.pop("referenceId")

        deposit_credit = cls(
            token_code=token_code,
            amount=amount,
            reference_type=reference_type,
            reference_id=reference_id,
        )

        deposit_credit.additional_properties = d
        return deposit_credit

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
