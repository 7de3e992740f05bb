from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.journal_entry_kind import JournalEntryKind

T = TypeVar("T", bound="JournalEntry")


@_attrs_define
class JournalEntry:
    """
    Attributes:
        id (str):
        kind (JournalEntryKind):
        debit_account (str): The ledger account debited (`account:<id>:<balance>` or `house:...`).
        credit_account (str): The ledger account credited.
        amount (str): Smallest units, positive.
        network (str):
        chain_id (int):
        token_code (str):
        active_delta (str):
        pending_delta (str):
        held_delta (str):
        active_after (str):
        pending_after (str):
        held_after (str):
        reason (str):
        reference_type (str):
        reference_id (str):
        created_at (str):
    """

    id: str
    kind: JournalEntryKind
    debit_account: str
    credit_account: str
    amount: str
    network: str
    chain_id: int
    token_code: str
    active_delta: str
    pending_delta: str
    held_delta: str
    active_after: str
    pending_after: str
    held_after: str
    reason: str
    reference_type: str
    reference_id: str
    created_at: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        kind = self.kind.value

        debit_account = self.debit_account

        credit_account = self.credit_account

        amount = self.amount

        network = self.network

        chain_id = self.chain_id

        token_code = self.token_code

        active_delta = self.active_delta

        pending_delta = self.pending_delta

        held_delta = self.held_delta

        active_after = self.active_after

        pending_after = self.pending_after

        held_after = self.held_after

        reason = self.reason

        reference_type = self.reference_type

        reference_id = self.reference_id

        created_at = self.created_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "kind": kind,
                "debitAccount": debit_account,
                "creditAccount": credit_account,
                "amount": amount,
                "network": network,
                "chainId": chain_id,
                "tokenCode": token_code,
                "activeDelta": active_delta,
                "pendingDelta": pending_delta,
                "heldDelta": held_delta,
                "activeAfter": active_after,
                "pendingAfter": pending_after,
                "heldAfter": held_after,
                "reason": reason,
                "referenceType": reference_type,
                "referenceId": reference_id,
                "createdAt": created_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = d.pop("id")

        kind = JournalEntryKind(d.pop("kind"))

        debit_account = d.pop("debitAccount")

        credit_account = d.pop("creditAccount")

        amount = d.pop("amount")

        network = d.pop("network")

        chain_id = d.pop("chainId")

        token_code = d.pop("tokenCode")

        active_delta = d.pop("activeDelta")

        pending_delta = d.pop("pendingDelta")

        held_delta = d.pop("heldDelta")

        active_after = d.pop("activeAfter")

        pending_after = d.pop("pendingAfter")

        held_after = d.pop("heldAfter")

        reason = d.pop("reason")

        reference_type = d.pop("referenceType")

        reference_id = d.pop("referenceId")

        created_at = d.pop("createdAt")

        journal_entry = cls(
            id=id,
            kind=kind,
            debit_account=debit_account,
            credit_account=credit_account,
            amount=amount,
            network=network,
            chain_id=chain_id,
            token_code=token_code,
            active_delta=active_delta,
            pending_delta=pending_delta,
            held_delta=held_delta,
            active_after=active_after,
            pending_after=pending_after,
            held_after=held_after,
            reason=reason,
            reference_type=reference_type,
            reference_id=reference_id,
            created_at=created_at,
        )

        journal_entry.additional_properties = d
        return journal_entry

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
