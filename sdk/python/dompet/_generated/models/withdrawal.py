from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.withdrawal_status import WithdrawalStatus

T = TypeVar("T", bound="Withdrawal")


@_attrs_define
class Withdrawal:
    """
    Attributes:
        id (str):
        account_id (str):
        status (WithdrawalStatus):
        network (str):
        chain_id (int):
        token_code (str):
        amount (str):
        amount_in_decimals (str):
        fee (str): Charged on top of the amount; none today.
        from_ (str): The account's deposit address the amount is paid from.
        to (str):
        reference (None | str):
        tx_hash (None | str):
        failed_reason (None | str):
        created_at (str):
        updated_at (str):
        sent_at (None | str):
        completed_at (None | str):
        failed_at (None | str):
    """

    id: str
    account_id: str
    status: WithdrawalStatus
    network: str
    chain_id: int
    token_code: str
    amount: str
    amount_in_decimals: str
    fee: str
    from_: str
    to: str
    reference: None | str
    tx_hash: None | str
    failed_reason: None | str
    created_at: str
    updated_at: str
    sent_at: None | str
    completed_at: None | str
    failed_at: None | str
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

        fee = self.fee

        from_ = self.from_

        to = self.to

        reference: None | str
        reference = self.reference

        tx_hash: None | str
        tx_hash = self.tx_hash

        failed_reason: None | str
        failed_reason = self.failed_reason

        created_at = self.created_at

        updated_at = self.updated_at

        sent_at: None | str
        sent_at = self.sent_at

        completed_at: None | str
        completed_at = self.completed_at

        failed_at: None | str
        failed_at = self.failed_at

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
                "fee": fee,
                "from": from_,
                "to": to,
                "reference": reference,
                "txHash": tx_hash,
                "failedReason": failed_reason,
                "createdAt": created_at,
                "updatedAt": updated_at,
                "sentAt": sent_at,
                "completedAt": completed_at,
                "failedAt": failed_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = d.pop("id")

        account_id = d.pop("accountId")

        status = WithdrawalStatus(d.pop("status"))

        network = d.pop("network")

        chain_id = d.pop("chainId")

        token_code = d.pop("tokenCode")

        amount = d.pop("amount")

        amount_in_decimals = d.pop("amountInDecimals")

        fee = d.pop("fee")

        from_ = d.pop("from")

        to = d.pop("to")

        def _parse_reference(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        reference = _parse_reference(d.pop("reference"))

        def _parse_tx_hash(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        tx_hash = _parse_tx_hash(d.pop("txHash"))

        def _parse_failed_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        failed_reason = _parse_failed_reason(d.pop("failedReason"))

        created_at = d.pop("createdAt")

        updated_at = d.pop("updatedAt")

        def _parse_sent_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        sent_at = _parse_sent_at(d.pop("sentAt"))

        def _parse_completed_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        completed_at = _parse_completed_at(d.pop("completedAt"))

        def _parse_failed_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        failed_at = _parse_failed_at(d.pop("failedAt"))

        withdrawal = cls(
            id=id,
            account_id=account_id,
            status=status,
            network=network,
            chain_id=chain_id,
            token_code=token_code,
            amount=amount,
            amount_in_decimals=amount_in_decimals,
            fee=fee,
            from_=from_,
            to=to,
            reference=reference,
            tx_hash=tx_hash,
            failed_reason=failed_reason,
            created_at=created_at,
            updated_at=updated_at,
            sent_at=sent_at,
            completed_at=completed_at,
            failed_at=failed_at,
        )

        withdrawal.additional_properties = d
        return withdrawal

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
