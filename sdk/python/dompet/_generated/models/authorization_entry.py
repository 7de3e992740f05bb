from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="AuthorizationEntry")


@_attrs_define
class AuthorizationEntry:
    """A signed EIP-7702 authorization tuple: an entry of a type-4 transaction's `authorizationList`.

    Attributes:
        chain_id (int): The chain id signed; 0: any chain.
        address (str): The delegate's checksummed address.
        nonce (int): The account nonce signed.
        y_parity (int): 0 or 1.
        r (str): 0x + 32 bytes.
        s (str): 0x + 32 bytes, in the lower half of the curve order (low s).
    """

    chain_id: int
    address: str
    nonce: int
    y_parity: int
    r: str
    s: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        chain_id = self.chain_id

        address = self.address

        nonce = self.nonce

        y_parity = self.y_parity

        r = self.r

        s = self.s

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "chainId": chain_id,
                "address": address,
                "nonce": nonce,
                "yParity": y_parity,
                "r": r,
                "s": s,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        chain_id = d.pop("chainId")

        address = d.pop("address")

        nonce = d.pop("nonce")

        y_parity = d.pop("yParity")

        r = d.pop("r")

        s = d.pop("s")

        authorization_entry = cls(
            chain_id=chain_id,
            address=address,
            nonce=nonce,
            y_parity=y_parity,
            r=r,
            s=s,
        )

        authorization_entry.additional_properties = d
        return authorization_entry

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
