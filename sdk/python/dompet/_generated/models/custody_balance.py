from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="CustodyBalance")


@_attrs_define
class CustodyBalance:
    """
    Attributes:
        network (str):
        chain_id (int):
        token_code (str):
        symbol (str):
        decimals (int):
        active_balance (str): Credited and spendable.
        pending_balance (str): Seen on chain, not yet confirmed.
        held_balance (str): Reserved by pending withdrawals.
        active_balance_in_decimals (str):
        pending_balance_in_decimals (str):
        held_balance_in_decimals (str):
    """

    network: str
    chain_id: int
    token_code: str
    symbol: str
    decimals: int
    active_balance: str
    pending_balance: str
    held_balance: str
    active_balance_in_decimals: str
    pending_balance_in_decimals: str
    held_balance_in_decimals: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        network = self.network

        chain_id = self.chain_id

        token_code = self.token_code

        symbol = self.symbol

        decimals = self.decimals

        active_balance = self.active_balance

        pending_balance = self.pending_balance

        held_balance = self.held_balance

        active_balance_in_decimals = self.active_balance_in_decimals

        pending_balance_in_decimals = self.pending_balance_in_decimals

        held_balance_in_decimals = self.held_balance_in_decimals

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "network": network,
                "chainId": chain_id,
                "tokenCode": token_code,
                "symbol": symbol,
                "decimals": decimals,
                "activeBalance": active_balance,
                "pendingBalance": pending_balance,
                "heldBalance": held_balance,
                "activeBalanceInDecimals": active_balance_in_decimals,
                "pendingBalanceInDecimals": pending_balance_in_decimals,
                "heldBalanceInDecimals": held_balance_in_decimals,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        network = d.pop("network")

        chain_id = d.pop("chainId")

        token_code = d.pop("tokenCode")

        symbol = d.pop("symbol")

        decimals = d.pop("decimals")

        active_balance = d.pop("activeBalance")

        pending_balance = d.pop("pendingBalance")

        held_balance = d.pop("heldBalance")

        active_balance_in_decimals = d.pop("activeBalanceInDecimals")

        pending_balance_in_decimals = d.pop("pendingBalanceInDecimals")

        held_balance_in_decimals = d.pop("heldBalanceInDecimals")

        custody_balance = cls(
            network=network,
            chain_id=chain_id,
            token_code=token_code,
            symbol=symbol,
            decimals=decimals,
            active_balance=active_balance,
            pending_balance=pending_balance,
            held_balance=held_balance,
            active_balance_in_decimals=active_balance_in_decimals,
            pending_balance_in_decimals=pending_balance_in_decimals,
            held_balance_in_decimals=held_balance_in_decimals,
        )

        custody_balance.additional_properties = d
        return custody_balance

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
