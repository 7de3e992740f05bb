from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="MessageSignature")


@_attrs_define
class MessageSignature:
    """
    Attributes:
        signature (str): 0x + 65 bytes r ‖ s ‖ v, v 27 or 28 (what ethers and viem produce).
        address (str): The wallet's checksummed address: what the signature recovers to.
        message_hash (str): The EIP-191 digest signed: keccak256("\\x19Ethereum Signed Message:\\n" + length + message).
    """

    signature: str
    address: str
    message_hash: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        signature = self.signature

        address = self.address

        message_hash = self.message_hash

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "signature": signature,
                "address": address,
                "messageHash": message_hash,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        signature = d.pop("signature")

        address = d.pop("address")

        message_hash = d.pop("messageHash")

        message_signature = cls(
            signature=signature,
            address=address,
            message_hash=message_hash,
        )

        message_signature.additional_properties = d
        return message_signature

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
