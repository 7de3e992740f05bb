from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="TypedDataSignature")


@_attrs_define
class TypedDataSignature:
    """
    Attributes:
        signature (str): 0x + 65 bytes r ‖ s ‖ v, v 27 or 28.
        address (str): The wallet's checksummed address: what the signature recovers to.
        hash_ (str): The EIP-712 digest signed: keccak256(0x1901 ‖ domainSeparator ‖ hashStruct).
        domain_separator (str): hashStruct(EIP712Domain) of the document's domain.
    """

    signature: str
    address: str
    hash_: str
    domain_separator: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        signature = self.signature

        address = self.address

        hash_ = self.hash_

        domain_separator = self.domain_separator

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "signature": signature,
                "address": address,
                "hash": hash_,
                "domainSeparator": domain_separator,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        signature = d.pop("signature")

        address = d.pop("address")

        hash_ = d.pop("hash")

        domain_separator = d.pop("domainSeparator")

        typed_data_signature = cls(
            signature=signature,
            address=address,
            hash_=hash_,
            domain_separator=domain_separator,
        )

        typed_data_signature.additional_properties = d
        return typed_data_signature

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
