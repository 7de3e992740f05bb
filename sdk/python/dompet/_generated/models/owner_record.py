from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.account import Account
    from ..models.gas_tank import GasTank


T = TypeVar("T", bound="OwnerRecord")


@_attrs_define
class OwnerRecord:
    """
    Attributes:
        id (str):
        created_at (str):
        updated_at (None | str):
        owner_id (str): The owner's address (EIP-55).
        provider (str):
        client_id (str):
        app_id (str):
        gas_tanks (list[GasTank]):
        accounts (list[Account]):
    """

    id: str
    created_at: str
    updated_at: None | str
    owner_id: str
    provider: str
    client_id: str
    app_id: str
    gas_tanks: list[GasTank]
    accounts: list[Account]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        created_at = self.created_at

        updated_at: None | str
        updated_at = self.updated_at

        owner_id = self.owner_id

        provider = self.provider

        client_id = self.client_id

        app_id = self.app_id

        gas_tanks = []
        for gas_tanks_item_data in self.gas_tanks:
            gas_tanks_item = gas_tanks_item_data.to_dict()
            gas_tanks.append(gas_tanks_item)

        accounts = []
        for accounts_item_data in self.accounts:
            accounts_item = accounts_item_data.to_dict()
            accounts.append(accounts_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "createdAt": created_at,
                "updatedAt": updated_at,
                "ownerId": owner_id,
                "provider": provider,
                "clientId": client_id,
                "appId": app_id,
                "gasTanks": gas_tanks,
                "accounts": accounts,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.account import Account
        from ..models.gas_tank import GasTank

        d = dict(src_dict)
        id = d.pop("id")

        created_at = d.pop("createdAt")

        def _parse_updated_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        updated_at = _parse_updated_at(d.pop("updatedAt"))

        owner_id = d.pop("ownerId")

        provider = d.pop("provider")

        client_id = d.pop("clientId")

        app_id = d.pop("appId")

        gas_tanks = []
        _gas_tanks = d.pop("gasTanks")
        for gas_tanks_item_data in _gas_tanks:
            gas_tanks_item = GasTank.from_dict(gas_tanks_item_data)

            gas_tanks.append(gas_tanks_item)

        accounts = []
        _accounts = d.pop("accounts")
        for accounts_item_data in _accounts:
            accounts_item = Account.from_dict(accounts_item_data)

            accounts.append(accounts_item)

        owner_record = cls(
            id=id,
            created_at=created_at,
            updated_at=updated_at,
            owner_id=owner_id,
            provider=provider,
            client_id=client_id,
            app_id=app_id,
            gas_tanks=gas_tanks,
            accounts=accounts,
        )

        owner_record.additional_properties = d
        return owner_record

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
