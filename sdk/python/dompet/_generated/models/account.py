from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.account_accounttype import AccountAccounttype
from ..types import UNSET, Unset

T = TypeVar("T", bound="Account")


@_attrs_define
class Account:
    """
    Attributes:
        id (str):
        created_at (str):
        updated_at (None | str):
        owner_id (str): The owner record's id.
        status (str): `not_deployed` until the first user operation deploys it (an `eip7702` account: delegates the
            wallet), then `deployed`.
        aa_address (str): The counterfactual address the factory deploys the account to; an `eip7702` account's is the
            wallet's own address.
        chain_id (int):
        network (str):
        client_id (str):
        app_id (str):
        version (str): The account's implementation: `0.7` (SimpleAccount 0.7.0), `simple7702-0.8` (Simple7702Account
            0.8.0).
        account_type (AccountAccounttype | Unset): `simple`: a SimpleAccount (ERC-4337 v0.7) the factory deploys at a
            counterfactual address. `eip7702`: the owner's own address (an MPC wallet of the service) delegating to
            Simple7702Account (EIP-7702, EntryPoint v0.8). Present only on `eip7702` accounts. Default:
            AccountAccounttype.SIMPLE.
    """

    id: str
    created_at: str
    updated_at: None | str
    owner_id: str
    status: str
    aa_address: str
    chain_id: int
    network: str
    client_id: str
    app_id: str
    version: str
    account_type: AccountAccounttype | Unset = AccountAccounttype.SIMPLE
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        created_at = self.created_at

        updated_at: None | str
        updated_at = self.updated_at

        owner_id = self.owner_id

        status = self.status

        aa_address = self.aa_address

        chain_id = self.chain_id

        network = self.network

        client_id = self.client_id

        app_id = self.app_id

        version = self.version

        account_type: str | Unset = UNSET
        if not isinstance(self.account_type, Unset):
            account_type = self.account_type.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "createdAt": created_at,
                "updatedAt": updated_at,
                "ownerId": owner_id,
                "status": status,
                "aaAddress": aa_address,
                "chainId": chain_id,
                "network": network,
                "clientId": client_id,
                "appId": app_id,
                "version": version,
            }
        )
        if account_type is not UNSET:
            field_dict["accountType"] = account_type

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

        status = d.pop("status")

        aa_address = d.pop("aaAddress")

        chain_id = d.pop("chainId")

        network = d.pop("network")

        client_id = d.pop("clientId")

        app_id = d.pop("appId")

        version = d.pop("version")

        _account_type = d.pop("accountType", UNSET)
        account_type: AccountAccounttype | Unset
        if isinstance(_account_type, Unset):
            account_type = UNSET
        else:
            account_type = AccountAccounttype(_account_type)

        account = cls(
            id=id,
            created_at=created_at,
            updated_at=updated_at,
            owner_id=owner_id,
            status=status,
            aa_address=aa_address,
            chain_id=chain_id,
            network=network,
            client_id=client_id,
            app_id=app_id,
            version=version,
            account_type=account_type,
        )

        account.additional_properties = d
        return account

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
