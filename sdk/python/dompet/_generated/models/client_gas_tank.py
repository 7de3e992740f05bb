from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ClientGasTank")


@_attrs_define
class ClientGasTank:
    """
    Attributes:
        id (str):
        client_id (str):
        balance (str):
        type_ (str):
        token_name (str):
        decimals (int):
        created_at (str):
        updated_at (None | str):
    """

    id: str
    client_id: str
    balance: str
    type_: str
    token_name: str
    decimals: int
    created_at: str
    updated_at: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        client_id = self.client_id

        balance = self.balance

        type_ = self.type_

        token_name = self.token_name

        decimals = self.decimals

        created_at = self.created_at

        updated_at: None | str
        updated_at = self.updated_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "clientId": client_id,
                "balance": balance,
                "type": type_,
                "tokenName": token_name,
                "decimals": decimals,
                "createdAt": created_at,
                "updatedAt": updated_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = d.pop("id")

        client_id = d.pop("clientId")

        balance = d.pop("balance")

        type_ = d.pop("type")

        token_name = d.pop("tokenName")

        decimals = d.pop("decimals")

        created_at = d.pop("createdAt")

        def _parse_updated_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        updated_at = _parse_updated_at(d.pop("updatedAt"))

        client_gas_tank = cls(
            id=id,
            client_id=client_id,
            balance=balance,
            type_=type_,
            token_name=token_name,
            decimals=decimals,
            created_at=created_at,
            updated_at=updated_at,
        )

        client_gas_tank.additional_properties = d
        return client_gas_tank

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
