from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.eip_1559_replacement import Eip1559Replacement
    from ..models.legacy_replacement import LegacyReplacement
    from ..models.tx_receipt import TxReceipt


T = TypeVar("T", bound="TransactionView")


@_attrs_define
class TransactionView:
    """One transaction record: one per nonce, the first signature's and every replacement signed at its nonce.

    Attributes:
        hash_ (str): The first signature's hash (any hash in `replacements` finds this record too).
        status (str): `signing` (briefly, before its broadcast), `pending`, `mined`, `failed`, `dropped` or `cancelled`
            (its cancel was mined: nothing was sent).
        network (str):
        chain_id (str):
        kind (str): coin, token, erc721 or raw; `gap_fill`: a 0-value send to the wallet itself, signed by the service
            at a nonce left empty under a pending transaction.
        from_ (str):
        to (None | str):
        value (str): Native coin sent, in wei (decimal string).
        nonce (int):
        block_number (int | None):
        block_hash (None | str):
        gas_used (None | str):
        effective_gas_price (None | str):
        failed_reason (None | str):
        mined_hash (None | str): The hash that was mined (the first signature's or a replacement's), once mined, failed
            or cancelled.
        replacements (list[Eip1559Replacement | LegacyReplacement]): Signatures at the same nonce after the first one,
            oldest first: the newest is the one on its way. Fees as in the transaction's type.
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
    mined_hash: None | str
    replacements: list[Eip1559Replacement | LegacyReplacement]
    created_at: str
    updated_at: str
    tx_receipt: TxReceipt
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.legacy_replacement import LegacyReplacement

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

        mined_hash: None | str
        mined_hash = self.mined_hash

        replacements = []
        for replacements_item_data in self.replacements:
            replacements_item: dict[str, Any]
            if isinstance(replacements_item_data, LegacyReplacement):
                replacements_item = replacements_item_data.to_dict()
            else:
                replacements_item = replacements_item_data.to_dict()

            replacements.append(replacements_item)

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
                "minedHash": mined_hash,
                "replacements": replacements,
                "createdAt": created_at,
                "updatedAt": updated_at,
                "txReceipt": tx_receipt,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.eip_1559_replacement import Eip1559Replacement
        from ..models.legacy_replacement import LegacyReplacement
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

        def _parse_mined_hash(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        mined_hash = _parse_mined_hash(d.pop("minedHash"))

        replacements = []
        _replacements = d.pop("replacements")
        for replacements_item_data in _replacements:

            def _parse_replacements_item(
                data: object,
            ) -> Eip1559Replacement | LegacyReplacement:
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    replacements_item_type_0 = LegacyReplacement.from_dict(data)

                    return replacements_item_type_0
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                if not isinstance(data, dict):
                    raise TypeError()
                replacements_item_type_1 = Eip1559Replacement.from_dict(data)

                return replacements_item_type_1

            replacements_item = _parse_replacements_item(replacements_item_data)

            replacements.append(replacements_item)

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
            mined_hash=mined_hash,
            replacements=replacements,
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
