from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.deposit_invoice_outcome_type_0 import DepositInvoiceOutcomeType0
from ..models.deposit_matchtype import DepositMatchtype
from ..models.deposit_status import DepositStatus

if TYPE_CHECKING:
    from ..models.deposit_credit import DepositCredit
    from ..models.deposit_transaction import DepositTransaction


T = TypeVar("T", bound="Deposit")


@_attrs_define
class Deposit:
    """
    Attributes:
        id (str):
        account_id (str):
        wallet_id (str):
        status (DepositStatus):
        match_type (DepositMatchtype):
        invoice_id (None | str):
        late (bool):
        network (str):
        chain_id (int):
        token_code (str):
        amount (str):
        amount_in_decimals (str):
        transaction (DepositTransaction):
        block_number (int):
        block_hash (str):
        log_index (int | None):
        confirmations (int | None):
        confirmations_required (int):
        credit (DepositCredit | None):
        invoice_outcome (DepositInvoiceOutcomeType0 | None):
        seen_at (str):
        credited_at (None | str):
        reverted_at (None | str):
        created_at (str):
    """

    id: str
    account_id: str
    wallet_id: str
    status: DepositStatus
    match_type: DepositMatchtype
    invoice_id: None | str
    late: bool
    network: str
    chain_id: int
    token_code: str
    amount: str
    amount_in_decimals: str
    transaction: DepositTransaction
    block_number: int
    block_hash: str
    log_index: int | None
    confirmations: int | None
    confirmations_required: int
    credit: DepositCredit | None
    invoice_outcome: DepositInvoiceOutcomeType0 | None
    seen_at: str
    credited_at: None | str
    reverted_at: None | str
    created_at: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.deposit_credit import DepositCredit

        id = self.id

        account_id = self.account_id

        wallet_id = self.wallet_id

        status = self.status.value

        match_type = self.match_type.value

        invoice_id: None | str
        invoice_id = self.invoice_id

        late = self.late

        network = self.network

        chain_id = self.chain_id

        token_code = self.token_code

        amount = self.amount

        amount_in_decimals = self.amount_in_decimals

        transaction = self.transaction.to_dict()

        block_number = self.block_number

        block_hash = self.block_hash

        log_index: int | None
        log_index = self.log_index

        confirmations: int | None
        confirmations = self.confirmations

        confirmations_required = self.confirmations_required

        credit: dict[str, Any] | None
        if isinstance(self.credit, DepositCredit):
            credit = self.credit.to_dict()
        else:
            credit = self.credit

        invoice_outcome: None | str
        if isinstance(self.invoice_outcome, DepositInvoiceOutcomeType0):
            invoice_outcome = self.invoice_outcome.value
        else:
            invoice_outcome = self.invoice_outcome

        seen_at = self.seen_at

        credited_at: None | str
        credited_at = self.credited_at

        reverted_at: None | str
        reverted_at = self.reverted_at

        created_at = self.created_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "accountId": account_id,
                "walletId": wallet_id,
                "status": status,
                "matchType": match_type,
                "invoiceId": invoice_id,
                "late": late,
                "network": network,
                "chainId": chain_id,
                "tokenCode": token_code,
                "amount": amount,
                "amountInDecimals": amount_in_decimals,
                "transaction": transaction,
                "blockNumber": block_number,
                "blockHash": block_hash,
                "logIndex": log_index,
                "confirmations": confirmations,
                "confirmationsRequired": confirmations_required,
                "credit": credit,
                "invoiceOutcome": invoice_outcome,
                "seenAt": seen_at,
                "creditedAt": credited_at,
                "revertedAt": reverted_at,
                "createdAt": created_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.deposit_credit import DepositCredit
        from ..models.deposit_transaction import DepositTransaction

        d = dict(src_dict)
        id = d.pop("id")

        account_id = d.pop("accountId")

        wallet_id = d.pop("walletId")

        status = DepositStatus(d.pop("status"))

        match_type = DepositMatchtype(d.pop("matchType"))

        def _parse_invoice_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        invoice_id = _parse_invoice_id(d.pop("invoiceId"))

        late = d.pop("late")

        network = d.pop("network")

        chain_id = d.pop("chainId")

        token_code = d.pop("tokenCode")

        amount = d.pop("amount")

        amount_in_decimals = d.pop("amountInDecimals")

        transaction = DepositTransaction.from_dict(d.pop("transaction"))

        block_number = d.pop("blockNumber")

        block_hash = d.pop("blockHash")

        def _parse_log_index(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        log_index = _parse_log_index(d.pop("logIndex"))

        def _parse_confirmations(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        confirmations = _parse_confirmations(d.pop("confirmations"))

        confirmations_required = d.pop("confirmationsRequired")

        def _parse_credit(data: object) -> DepositCredit | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                credit_type_0 = DepositCredit.from_dict(data)

                return credit_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DepositCredit | None, data)

        credit = _parse_credit(d.pop("credit"))

        def _parse_invoice_outcome(data: object) -> DepositInvoiceOutcomeType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                invoice_outcome_type_0 = DepositInvoiceOutcomeType0(data)

                return invoice_outcome_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DepositInvoiceOutcomeType0 | None, data)

        invoice_outcome = _parse_invoice_outcome(d.pop("invoiceOutcome"))

        seen_at = d.pop("seenAt")

        def _parse_credited_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        credited_at = _parse_credited_at(d.pop("creditedAt"))

        def _parse_reverted_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        reverted_at = _parse_reverted_at(d.pop("revertedAt"))

        created_at = d.pop("createdAt")

        deposit = cls(
            id=id,
            account_id=account_id,
            wallet_id=wallet_id,
            status=status,
            match_type=match_type,
            invoice_id=invoice_id,
            late=late,
            network=network,
            chain_id=chain_id,
            token_code=token_code,
            amount=amount,
            amount_in_decimals=amount_in_decimals,
            transaction=transaction,
            block_number=block_number,
            block_hash=block_hash,
            log_index=log_index,
            confirmations=confirmations,
            confirmations_required=confirmations_required,
            credit=credit,
            invoice_outcome=invoice_outcome,
            seen_at=seen_at,
            credited_at=credited_at,
            reverted_at=reverted_at,
            created_at=created_at,
        )

        deposit.additional_properties = d
        return deposit

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
