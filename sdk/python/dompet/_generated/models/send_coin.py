from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="SendCoin")


@_attrs_define
class SendCoin:
    """
    Attributes:
        account_id (str): The smart account (from the owner record).
        to (str): A 20-byte hex address; mixed case must be a correct EIP-55 checksum.
        amount (str): Wei (smallest unit), at most 2**256-1.
    """

    account_id: str
    to: str
    amount: str

    def to_dict(self) -> dict[str, Any]:
        account_id = self.account_id

        to = self.to

        amount = self.amount

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "accountId": account_id,
                "to": to,
                "amount": amount,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        account_id = d.pop("accountId")

        to = d.pop("to")

        amount = d.pop("amount")

        send_coin = cls(
            account_id=account_id,
            to=to,
            amount=amount,
        )

        return send_coin
