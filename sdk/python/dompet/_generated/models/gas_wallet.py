from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.gas_wallet_pooltype import GasWalletPooltype

if TYPE_CHECKING:
    from ..models.gas_wallet_balance import GasWalletBalance


T = TypeVar("T", bound="GasWallet")


@_attrs_define
class GasWallet:
    """
    Attributes:
        mpc_sub_id (str): The custody key.
        pool_type (GasWalletPooltype):
        address (str): The key's own address: it pays the gas of withdrawals; fund it.
        balances (list[GasWalletBalance]):
    """

    mpc_sub_id: str
    pool_type: GasWalletPooltype
    address: str
    balances: list[GasWalletBalance]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        mpc_sub_id = self.mpc_sub_id

        pool_type = self.pool_type.value

        address = self.address

        balances = []
        for balances_item_data in self.balances:
            balances_item = balances_item_data.to_dict()
            balances.append(balances_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "mpcSubId": mpc_sub_id,
                "poolType": pool_type,
                "address": address,
                "balances": balances,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.gas_wallet_balance import GasWalletBalance

        d = dict(src_dict)
        mpc_sub_id = d.pop("mpcSubId")

        pool_type = GasWalletPooltype(d.pop("poolType"))

        address = d.pop("address")

        balances = []
        _balances = d.pop("balances")
        for balances_item_data in _balances:
            balances_item = GasWalletBalance.from_dict(balances_item_data)

            balances.append(balances_item)

        gas_wallet = cls(
            mpc_sub_id=mpc_sub_id,
            pool_type=pool_type,
            address=address,
            balances=balances,
        )

        gas_wallet.additional_properties = d
        return gas_wallet

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
