from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.top_up_record_status import TopUpRecordStatus

T = TypeVar("T", bound="TopUpRecord")


@_attrs_define
class TopUpRecord:
    """
    Attributes:
        id (str):
        created_at (str):
        updated_at (None | str):
        client_id (str):
        gas_tank_id (str):
        tx_hash (str):
        network (str):
        chain_id (int):
        pool_address (str):
        amount (str): USDT base units of the network's token as transferred; "0" while pending.
        token_address (str):
        status (TopUpRecordStatus):
    """

    id: str
    created_at: str
    updated_at: None | str
    client_id: str
    gas_tank_id: str
    tx_hash: str
    network: str
    chain_id: int
    pool_address: str
    amount: str
    token_address: str
    status: TopUpRecordStatus
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        created_at = self.created_at

        updated_at: None | str
        updated_at = self.updated_at

        client_id = self.client_id

        gas_tank_id = self.gas_tank_id

        tx_hash = self.tx_hash

        network = self.network

        chain_id = self.chain_id

        pool_address = self.pool_address

        amount = self.amount

        token_address = self.token_address

        status = self.status.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "createdAt": created_at,
                "updatedAt": updated_at,
                "clientId": client_id,
                "gasTankId": gas_tank_id,
                "txHash": tx_hash,
                "network": network,
                "chainId": chain_id,
                "poolAddress": pool_address,
                "amount": amount,
                "tokenAddress": token_address,
                "status": status,
            }
        )

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

        client_id = d.pop("clientId")

        gas_tank_id = d.pop("gasTankId")

        tx_hash = d.pop("txHash")

        network = d.pop("network")

        chain_id = d.pop("chainId")

        pool_address = d.pop("poolAddress")

        amount = d.pop("amount")

        token_address = d.pop("tokenAddress")

        status = TopUpRecordStatus(d.pop("status"))

        top_up_record = cls(
            id=id,
            created_at=created_at,
            updated_at=updated_at,
            client_id=client_id,
            gas_tank_id=gas_tank_id,
            tx_hash=tx_hash,
            network=network,
            chain_id=chain_id,
            pool_address=pool_address,
            amount=amount,
            token_address=token_address,
            status=status,
        )

        top_up_record.additional_properties = d
        return top_up_record

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
