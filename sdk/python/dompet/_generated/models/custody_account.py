from __future__ import annotations

from collections.abc import Mapping
from typing import (
    TYPE_CHECKING,
    Any,
    Literal,
    Self,
    TypeVar,
    cast,
)

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.custody_account_pooltype import CustodyAccountPooltype

if TYPE_CHECKING:
    from ..models.custody_wallet import CustodyWallet


T = TypeVar("T", bound="CustodyAccount")


@_attrs_define
class CustodyAccount:
    """
    Attributes:
        id (str):
        sub_id (str):
        mpc_sub_id (str): The custody key the deposit addresses belong to.
        status (Literal['active']):
        pool_type (CustodyAccountPooltype):
        wallets (list[CustodyWallet]):
        created_at (str):
    """

    id: str
    sub_id: str
    mpc_sub_id: str
    status: Literal["active"]
    pool_type: CustodyAccountPooltype
    wallets: list[CustodyWallet]
    created_at: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        sub_id = self.sub_id

        mpc_sub_id = self.mpc_sub_id

        status = self.status

        pool_type = self.pool_type.value

        wallets = []
        for wallets_item_data in self.wallets:
            wallets_item = wallets_item_data.to_dict()
            wallets.append(wallets_item)

        created_at = self.created_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "subId": sub_id,
                "mpcSubId": mpc_sub_id,
                "status": status,
                "poolType": pool_type,
                "wallets": wallets,
                "createdAt": created_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.custody_wallet import CustodyWallet

        d = dict(src_dict)
        id = d.pop("id")

        sub_id = d.pop("subId")

        mpc_sub_id = d.pop("mpcSubId")

        status = cast(Literal["active"], d.pop("status"))
        if status != "active":
            raise ValueError(f"status must match const 'active', got '{status}'")

        pool_type = CustodyAccountPooltype(d.pop("poolType"))

        wallets = []
        _wallets = d.pop("wallets")
        for wallets_item_data in _wallets:
            wallets_item = CustodyWallet.from_dict(wallets_item_data)

            wallets.append(wallets_item)

        created_at = d.pop("createdAt")

        custody_account = cls(
            id=id,
            sub_id=sub_id,
            mpc_sub_id=mpc_sub_id,
            status=status,
            pool_type=pool_type,
            wallets=wallets,
            created_at=created_at,
        )

        custody_account.additional_properties = d
        return custody_account

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
