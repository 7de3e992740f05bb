from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.invoice_status import InvoiceStatus
from ..types import UNSET, Unset

T = TypeVar("T", bound="Invoice")


@_attrs_define
class Invoice:
    """
    Attributes:
        id (str):
        account_id (str):
        status (InvoiceStatus):
        network (str):
        chain_id (int):
        token_code (str):
        amount (str):
        amount_in_decimals (str): The amount in the token's smallest unit.
        reference (str):
        wallet_id (str):
        deposit_address (str):
        expires_at (str):
        buffer_in_seconds (int):
        created_at (str):
        address_type (str | Unset): `native-segwit` or `legacy` on Bitcoin; empty on EVM networks. Default: ''.
        paid_at (None | str | Unset):
        failed_at (None | str | Unset):
        expired_at (None | str | Unset):
        transaction_hash (None | str | Unset):
        deposit_id (None | str | Unset): The deposit that pays (or paid) it.
        failed_reason (None | str | Unset): `amount_mismatch` for a failed invoice.
        received_amount_in_decimals (None | str | Unset): What a failed invoice's payment brought.
    """

    id: str
    account_id: str
    status: InvoiceStatus
    network: str
    chain_id: int
    token_code: str
    amount: str
    amount_in_decimals: str
    reference: str
    wallet_id: str
    deposit_address: str
    expires_at: str
    buffer_in_seconds: int
    created_at: str
    address_type: str | Unset = ""
    paid_at: None | str | Unset = UNSET
    failed_at: None | str | Unset = UNSET
    expired_at: None | str | Unset = UNSET
    transaction_hash: None | str | Unset = UNSET
    deposit_id: None | str | Unset = UNSET
    failed_reason: None | str | Unset = UNSET
    received_amount_in_decimals: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        account_id = self.account_id

        status = self.status.value

        network = self.network

        chain_id = self.chain_id

        token_code = self.token_code

        amount = self.amount

        amount_in_decimals = self.amount_in_decimals

        reference = self.reference

        wallet_id = self.wallet_id

        deposit_address = self.deposit_address

        expires_at = self.expires_at

        buffer_in_seconds = self.buffer_in_seconds

        created_at = self.created_at

        address_type = self.address_type

        paid_at: None | str | Unset
        if isinstance(self.paid_at, Unset):
            paid_at = UNSET
        else:
            paid_at = self.paid_at

        failed_at: None | str | Unset
        if isinstance(self.failed_at, Unset):
            failed_at = UNSET
        else:
            failed_at = self.failed_at

        expired_at: None | str | Unset
        if isinstance(self.expired_at, Unset):
            expired_at = UNSET
        else:
            expired_at = self.expired_at

        transaction_hash: None | str | Unset
        if isinstance(self.transaction_hash, Unset):
            transaction_hash = UNSET
        else:
            transaction_hash = self.transaction_hash

        deposit_id: None | str | Unset
        if isinstance(self.deposit_id, Unset):
            deposit_id = UNSET
        else:
            deposit_id = self.deposit_id

        failed_reason: None | str | Unset
        if isinstance(self.failed_reason, Unset):
            failed_reason = UNSET
        else:
            failed_reason = self.failed_reason

        received_amount_in_decimals: None | str | Unset
        if isinstance(self.received_amount_in_decimals, Unset):
            received_amount_in_decimals = UNSET
        else:
            received_amount_in_decimals = self.received_amount_in_decimals

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "accountId": account_id,
                "status": status,
                "network": network,
                "chainId": chain_id,
                "tokenCode": token_code,
                "amount": amount,
                "amountInDecimals": amount_in_decimals,
                "reference": reference,
                "walletId": wallet_id,
                "depositAddress": deposit_address,
                "expiresAt": expires_at,
                "bufferInSeconds": buffer_in_seconds,
                "createdAt": created_at,
            }
        )
        if address_type is not UNSET:
            field_dict["addressType"] = address_type
        if paid_at is not UNSET:
            field_dict["paidAt"] = paid_at
        if failed_at is not UNSET:
            field_dict["failedAt"] = failed_at
        if expired_at is not UNSET:
            field_dict["expiredAt"] = expired_at
        if transaction_hash is not UNSET:
            field_dict["transactionHash"] = transaction_hash
        if deposit_id is not UNSET:
            field_dict["depositId"] = deposit_id
        if failed_reason is not UNSET:
            field_dict["failedReason"] = failed_reason
        if received_amount_in_decimals is not UNSET:
            field_dict["receivedAmountInDecimals"] = received_amount_in_decimals

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = d.pop("id")

        account_id = d.pop("accountId")

        status = InvoiceStatus(d.pop("status"))

        network = d.pop("network")

        chain_id = d.pop("chainId")

        token_code = d.pop("tokenCode")

        amount = d.pop("amount")

        amount_in_decimals = d.pop("amountInDecimals")

        reference = d.pop("reference")

        wallet_id = d.pop("walletId")

        deposit_address = d.pop("depositAddress")

        expires_at = d.pop("expiresAt")

        buffer_in_seconds = d.pop("bufferInSeconds")

        created_at = d.pop("createdAt")

        address_type = d.pop("addressType", UNSET)

        def _parse_paid_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        paid_at = _parse_paid_at(d.pop("paidAt", UNSET))

        def _parse_failed_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        failed_at = _parse_failed_at(d.pop("failedAt", UNSET))

        def _parse_expired_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        expired_at = _parse_expired_at(d.pop("expiredAt", UNSET))

        def _parse_transaction_hash(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        transaction_hash = _parse_transaction_hash(d.pop("transactionHash", UNSET))

        def _parse_deposit_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        deposit_id = _parse_deposit_id(d.pop("depositId", UNSET))

        def _parse_failed_reason(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        failed_reason = _parse_failed_reason(d.pop("failedReason", UNSET))

        def _parse_received_amount_in_decimals(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        received_amount_in_decimals = _parse_received_amount_in_decimals(
            d.pop("receivedAmountInDecimals", UNSET)
        )

        invoice = cls(
            id=id,
            account_id=account_id,
            status=status,
            network=network,
            chain_id=chain_id,
            token_code=token_code,
            amount=amount,
            amount_in_decimals=amount_in_decimals,
            reference=reference,
            wallet_id=wallet_id,
            deposit_address=deposit_address,
            expires_at=expires_at,
            buffer_in_seconds=buffer_in_seconds,
            created_at=created_at,
            address_type=address_type,
            paid_at=paid_at,
            failed_at=failed_at,
            expired_at=expired_at,
            transaction_hash=transaction_hash,
            deposit_id=deposit_id,
            failed_reason=failed_reason,
            received_amount_in_decimals=received_amount_in_decimals,
        )

        invoice.additional_properties = d
        return invoice

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
