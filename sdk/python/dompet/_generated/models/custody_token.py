from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="CustodyToken")


@_attrs_define
class CustodyToken:
    """
    Attributes:
        id (str):
        token_code (str):
        symbol (str):
        decimals (int):
        network (str):
        chain_id (int):
        token_address (str): Empty for the native coin.
        confirmations (int): Blocks after which a deposit of it is credited.
    """

    id: str
    token_code: str
    symbol: str
    decimals: int
    network: str
    chain_id: int
    token_address: str
    confirmations: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        token_code = self.token_code

        symbol = self.symbol

        decimals = self.decimals

        network = self.network

        chain_id = self.chain_id

        token_address = self.token_address

        confirmations = self.confirmations

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "tokenCode": token_code,
                "symbol": symbol,
                "decimals": decimals,
                "network": network,
                "chainId": chain_id,
                "tokenAddress": token_address,
                "confirmations": confirmations,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = d.pop("id")

        token_code = d.pop("tokenCode")

        symbol = d.pop("symbol")

        decimals = d.pop("decimals")

        network = d.pop("network")

        chain_id = d.pop("chainId")

        token_address = d.pop("tokenAddress")

        confirmations = d.pop("confirmations")

        custody_token = cls(
            id=id,
            token_code=token_code,
            symbol=symbol,
            decimals=decimals,
            network=network,
            chain_id=chain_id,
            token_address=token_address,
            confirmations=confirmations,
        )

        custody_token.additional_properties = d
        return custody_token

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
