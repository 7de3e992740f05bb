from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.authorization_entry import AuthorizationEntry
    from ..models.tx_signature import TxSignature


T = TypeVar("T", bound="TxReceipt")


@_attrs_define
class TxReceipt:
    """ethers v6's JSON of a pending transaction (see docs/wallets.md).

    Attributes:
        field_type_ (str): Always "TransactionReceipt".
        access_list (list[Any] | None):
        block_number (int | None):
        block_hash (None | str):
        chain_id (str):
        data (str):
        from_ (str):
        gas_limit (str):
        gas_price (None | str):
        hash_ (str):
        max_fee_per_gas (None | str):
        max_priority_fee_per_gas (None | str):
        nonce (int):
        signature (TxSignature):
        to (None | str):
        type_ (int): 0 legacy, 2 EIP-1559, 4 set-code (EIP-7702).
        value (str):
        authorization_list (list[AuthorizationEntry] | None | Unset): A type-4 transaction's signed authorizations;
            absent for any other type.
    """

    field_type_: str
    access_list: list[Any] | None
    block_number: int | None
    block_hash: None | str
    chain_id: str
    data: str
    from_: str
    gas_limit: str
    gas_price: None | str
    hash_: str
    max_fee_per_gas: None | str
    max_priority_fee_per_gas: None | str
    nonce: int
    signature: TxSignature
    to: None | str
    type_: int
    value: str
    authorization_list: list[AuthorizationEntry] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        field_type_ = self.field_type_

        access_list: list[Any] | None
        if isinstance(self.access_list, list):
            access_list = self.access_list

        else:
            access_list = self.access_list

        block_number: int | None
        block_number = self.block_number

        block_hash: None | str
        block_hash = self.block_hash

        chain_id = self.chain_id

        data = self.data

        from_ = self.from_

        gas_limit = self.gas_limit

        gas_price: None | str
        gas_price = self.gas_price

        hash_ = self.hash_

        max_fee_per_gas: None | str
        max_fee_per_gas = self.max_fee_per_gas

        max_priority_fee_per_gas: None | str
        max_priority_fee_per_gas = self.max_priority_fee_per_gas

        nonce = self.nonce

        signature = self.signature.to_dict()

        to: None | str
        to = self.to

        type_ = self.type_

        value = self.value

        authorization_list: list[dict[str, Any]] | None | Unset
        if isinstance(self.authorization_list, Unset):
            authorization_list = UNSET
        elif isinstance(self.authorization_list, list):
            authorization_list = []
            for authorization_list_type_0_item_data in self.authorization_list:
                authorization_list_type_0_item = (
                    authorization_list_type_0_item_data.to_dict()
                )
                authorization_list.append(authorization_list_type_0_item)

        else:
            authorization_list = self.authorization_list

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "_type": field_type_,
                "accessList": access_list,
                "blockNumber": block_number,
                "blockHash": block_hash,
                "chainId": chain_id,
                "data": data,
                "from": from_,
                "gasLimit": gas_limit,
                "gasPrice": gas_price,
                "hash": hash_,
                "maxFeePerGas": max_fee_per_gas,
                "maxPriorityFeePerGas": max_priority_fee_per_gas,
                "nonce": nonce,
                "signature": signature,
                "to": to,
                "type": type_,
                "value": value,
            }
        )
        if authorization_list is not UNSET:
            field_dict["authorizationList"] = authorization_list

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.authorization_entry import AuthorizationEntry
        from ..models.tx_signature import TxSignature

        d = dict(src_dict)
        field_type_ = d.pop("_type")

        def _parse_access_list(data: object) -> list[Any] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                access_list_type_0 = cast(list[Any], data)

                return access_list_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[Any] | None, data)

        access_list = _parse_access_list(d.pop("accessList"))

        def _parse_block_number(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        block_number = _parse_block_number(d.pop("blockNumber"))

        def _parse_block_hash(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        block_hash = _parse_block_hash(d.pop("blockHash"))

        chain_id = d.pop("chainId")

        data = d.pop("data")

        from_ = d.pop("from")

        gas_limit = d.pop("gasLimit")

        def _parse_gas_price(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        gas_price = _parse_gas_price(d.pop("gasPrice"))

        hash_ = d.pop("hash")

        def _parse_max_fee_per_gas(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        max_fee_per_gas = _parse_max_fee_per_gas(d.pop("maxFeePerGas"))

        def _parse_max_priority_fee_per_gas(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        max_priority_fee_per_gas = _parse_max_priority_fee_per_gas(
            d.pop("maxPriorityFeePerGas")
        )

        nonce = d.pop("nonce")

        signature = TxSignature.from_dict(d.pop("signature"))

        def _parse_to(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        to = _parse_to(d.pop("to"))

        type_ = d.pop("type")

        value = d.pop("value")

        def _parse_authorization_list(
            data: object,
        ) -> list[AuthorizationEntry] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                authorization_list_type_0 = []
                _authorization_list_type_0 = data
                for authorization_list_type_0_item_data in _authorization_list_type_0:
                    authorization_list_type_0_item = AuthorizationEntry.from_dict(
                        authorization_list_type_0_item_data
                    )

                    authorization_list_type_0.append(authorization_list_type_0_item)

                return authorization_list_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[AuthorizationEntry] | None | Unset, data)

        authorization_list = _parse_authorization_list(
            d.pop("authorizationList", UNSET)
        )

        tx_receipt = cls(
            field_type_=field_type_,
            access_list=access_list,
            block_number=block_number,
            block_hash=block_hash,
            chain_id=chain_id,
            data=data,
            from_=from_,
            gas_limit=gas_limit,
            gas_price=gas_price,
            hash_=hash_,
            max_fee_per_gas=max_fee_per_gas,
            max_priority_fee_per_gas=max_priority_fee_per_gas,
            nonce=nonce,
            signature=signature,
            to=to,
            type_=type_,
            value=value,
            authorization_list=authorization_list,
        )

        tx_receipt.additional_properties = d
        return tx_receipt

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
