from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="GasWalletBalance")


@_attrs_define
class GasWalletBalance:
    """
    Attributes:
        network (str):
        chain_id (int):
        balance (str): Native coin, human units.
        symbol (str):
    """

    network: str
    chain_id: int
    balance: str
    symbol: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        network = self.network

        chain_id = self.chain_id

        balance = self.balance

        symbol = self.symbol

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "network": network,
                "chainId": chain_id,
                "balance": balance,
                "symbol": symbol,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        network = d.pop("network")

        chain_id = d.pop("chainId")

        balance = d.pop("balance")

        symbol = d.pop("symbol")

        gas_wallet_balance = cls(
            network=network,
            chain_id=chain_id,
            balance=balance,
            symbol=symbol,
        )

        gas_wallet_balance.additional_properties = d
        return gas_wallet_balance

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
