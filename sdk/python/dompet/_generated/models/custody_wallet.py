from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="CustodyWallet")


@_attrs_define
class CustodyWallet:
    """
    Attributes:
        wallet_id (str):
        network (str):
        chain_id (int):
        address (str):
        address_type (str): `native-segwit` or `legacy` on a Bitcoin network (two wallets there); empty for EVM
            networks.
    """

    wallet_id: str
    network: str
    chain_id: int
    address: str
    address_type: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        wallet_id = self.wallet_id

        network = self.network

        chain_id = self.chain_id

        address = self.address

        address_type = self.address_type

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "walletId": wallet_id,
                "network": network,
                "chainId": chain_id,
                "address": address,
                "addressType": address_type,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        wallet_id = d.pop("walletId")

        network = d.pop("network")

        chain_id = d.pop("chainId")

        address = d.pop("address")

        address_type = d.pop("addressType")

        custody_wallet = cls(
            wallet_id=wallet_id,
            network=network,
            chain_id=chain_id,
            address=address,
            address_type=address_type,
        )

        custody_wallet.additional_properties = d
        return custody_wallet

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
