from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.custody_balance import CustodyBalance


T = TypeVar("T", bound="CustodyBalances")


@_attrs_define
class CustodyBalances:
    """
    Attributes:
        account_id (str):
        balances (list[CustodyBalance]):
    """

    account_id: str
    balances: list[CustodyBalance]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        account_id = self.account_id

        balances = []
        for balances_item_data in self.balances:
            balances_item = balances_item_data.to_dict()
            balances.append(balances_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "accountId": account_id,
                "balances": balances,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.custody_balance import CustodyBalance

        d = dict(src_dict)
        account_id = d.pop("accountId")

        balances = []
        _balances = d.pop("balances")
        for balances_item_data in _balances:
            balances_item = CustodyBalance.from_dict(balances_item_data)

            balances.append(balances_item)

        custody_balances = cls(
            account_id=account_id,
            balances=balances,
        )

        custody_balances.additional_properties = d
        return custody_balances

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
