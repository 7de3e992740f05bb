from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="GasTank")


@_attrs_define
class GasTank:
    """
    Attributes:
        id (str):
        created_at (str):
        updated_at (None | str):
        owner_id (str): The owner record's id.
        balance (str): Base units of the tank currency (USDT with `decimals`).
        decimals (int):
        type_ (str | Unset):  Default: 'token'.
        token_name (str | Unset):  Default: 'USDT'.
    """

    id: str
    created_at: str
    updated_at: None | str
    owner_id: str
    balance: str
    decimals: int
    type_: str | Unset = "token"
    token_name: str | Unset = "USDT"
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        created_at = self.created_at

        updated_at: None | str
        updated_at = self.updated_at

        owner_id = self.owner_id

        balance = self.balance

        decimals = self.decimals

        type_ = self.type_

        token_name = self.token_name

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "createdAt": created_at,
                "updatedAt": updated_at,
                "ownerId": owner_id,
                "balance": balance,
                "decimals": decimals,
            }
        )
        if type_ is not UNSET:
            field_dict["type"] = type_
        if token_name is not UNSET:
            field_dict["tokenName"] = token_name

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = d.pop("id")

        created_at = d.pop("createdAt")

        def _parse_updated_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        updated_at = _parse_updated_at(d.pop("updatedAt"))

        owner_id = d.pop("ownerId")

        balance = d.pop("balance")

        decimals = d.pop("decimals")

        type_ = d.pop("type", UNSET)

        token_name = d.pop("tokenName", UNSET)

        gas_tank = cls(
            id=id,
            created_at=created_at,
            updated_at=updated_at,
            owner_id=owner_id,
            balance=balance,
            decimals=decimals,
            type_=type_,
            token_name=token_name,
        )

        gas_tank.additional_properties = d
        return gas_tank

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
