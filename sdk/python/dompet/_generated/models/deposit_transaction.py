from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="DepositTransaction")


@_attrs_define
class DepositTransaction:
    """
    Attributes:
        tx_hash (str):
        chain_id (int):
        network_code (str):
        from_ (str):
        to (str):
        token_address (str):
        token_symbol (str):
        value (str):
        value_decimals (int):
        blockchain_type (str):
    """

    tx_hash: str
    chain_id: int
    network_code: str
    from_: str
    to: str
    token_address: str
    token_symbol: str
    value: str
    value_decimals: int
    blockchain_type: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        tx_hash = self.tx_hash

        chain_id = self.chain_id

        network_code = self.network_code

        from_ = self.from_

        to = self.to

        token_address = self.token_address

        token_symbol = self.token_symbol

        value = self.value

        value_decimals = self.value_decimals

        blockchain_type = self.blockchain_type

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "txHash": tx_hash,
                "chainId": chain_id,
                "networkCode": network_code,
                "from": from_,
                "to": to,
                "tokenAddress": token_address,
                "tokenSymbol": token_symbol,
                "value": value,
                "valueDecimals": value_decimals,
                "blockchainType": blockchain_type,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        tx_hash = d.pop("txHash")

        chain_id = d.pop("chainId")

        network_code = d.pop("networkCode")

        from_ = d.pop("from")

        to = d.pop("to")

        token_address = d.pop("tokenAddress")

        token_symbol = d.pop("tokenSymbol")

        value = d.pop("value")

        value_decimals = d.pop("valueDecimals")

        blockchain_type = d.pop("blockchainType")

        deposit_transaction = cls(
            tx_hash=tx_hash,
            chain_id=chain_id,
            network_code=network_code,
            from_=from_,
            to=to,
            token_address=token_address,
            token_symbol=token_symbol,
            value=value,
            value_decimals=value_decimals,
            blockchain_type=blockchain_type,
        )

        deposit_transaction.additional_properties = d
        return deposit_transaction

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
