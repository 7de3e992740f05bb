from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.tx_receipt import TxReceipt


T = TypeVar("T", bound="TransactionView")


@_attrs_define
class TransactionView:
    """
    Attributes:
        hash_ (str):
        status (str): signing, pending, mined, failed or dropped.
        network (str):
        chain_id (str):
        kind (str): coin, token, erc721 or raw.
        from_ (str):
        to (None | str):
        value (str): Native coin sent, in wei (decimal string).
        nonce (int):
        block_number (int | None):
        block_hash (None | str):
        gas_used (None | str):
        effective_gas_price (None | str):
        failed_reason (None | str):
        created_at (str):
        updated_at (str):
        tx_receipt (TxReceipt): ethers v6's JSON of a pending transaction (see docs/wallets.md).
    """

    hash_: str
    status: str
    network: str
    chain_id: str
    kind: str
    from_: str
    to: None | str
    value: str
    nonce: int
    block_number: int | None
    block_hash: None | str
    gas_used: None | str
    effective_gas_price: None | str
    failed_reason: None | str
    created_at: str
    updated_at: str
    tx_receipt: TxReceipt
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        hash_ = self.hash_

        status = self.status

        network = self.network

        chain_id = self.chain_id

        kind = self.kind

        from_ = self.from_

        to: None | str
        to = self.to

        value = self.value

        nonce = self.nonce

        block_number: int | None
        block_number = self.block_number

        block_hash: None | str
        block_hash = self.block_hash

        gas_used: None | str
        gas_used = self.gas_used

        effective_gas_price: None | str
        effective_gas_price = self.effective_gas_price

        failed_reason: None | str
        failed_reason = self.failed_reason

        created_at = self.created_at

        updated_at = self.updated_at

        tx_receipt = self.tx_receipt.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "hash": hash_,
                "status": status,
                "network": network,
                "chainId": chain_id,
                "kind": kind,
                "from": from_,
                "to": to,
                "value": value,
                "nonce": nonce,
                "blockNumber": block_number,
                "blockHash": block_hash,
                "gasUsed": gas_used,
                "effectiveGasPrice": effective_gas_price,
                "failedReason": failed_reason,
                "createdAt": created_at,
                "updatedAt": updated_at,
                "txReceipt": tx_receipt,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.tx_receipt import TxReceipt

        d = dict(src_dict)
        hash_ = d.pop("hash")

        status = d.pop("status")

        network = d.pop("network")

        chain_id = d.pop("chainId")

        kind = d.pop("kind")

        from_ = d.pop("from")

        def _parse_to(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        to = _parse_to(d.pop("to"))

        value = d.pop("value")

        nonce = d.pop("nonce")

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

        def _parse_gas_used(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        gas_used = _parse_gas_used(d.pop("gasUsed"))

        def _parse_effective_gas_price(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        effective_gas_price = _parse_effective_gas_price(d.pop("effectiveGasPrice"))

        def _parse_failed_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        failed_reason = _parse_failed_reason(d.pop("failedReason"))

        created_at = d.pop("createdAt")

        updated_at = d.pop("updatedAt")

        tx_receipt = TxReceipt.from_dict(d.pop("txReceipt"))

        transaction_view = cls(
            hash_=hash_,
            status=status,
            network=network,
            chain_id=chain_id,
            kind=kind,
            from_=from_,
            to=to,
            value=value,
            nonce=nonce,
            block_number=block_number,
            block_hash=block_hash,
            gas_used=gas_used,
            effective_gas_price=effective_gas_price,
            failed_reason=failed_reason,
            created_at=created_at,
            updated_at=updated_at,
            tx_receipt=tx_receipt,
        )

        transaction_view.additional_properties = d
        return transaction_view

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
