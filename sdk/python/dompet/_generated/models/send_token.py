from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="SendToken")


@_attrs_define
class SendToken:
    """
    Attributes:
        account_id (str): The smart account (from the owner record).
        token_address (str): ERC-20 contract.
        to (str): A 20-byte hex address; mixed case must be a correct EIP-55 checksum.
        amount (str): Smallest unit of the token, at most 2**256-1.
    """

    account_id: str
    token_address: str
    to: str
    amount: str

    def to_dict(self) -> dict[str, Any]:
        account_id = self.account_id

        token_address = self.token_address

        to = self.to

        amount = self.amount

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "accountId": account_id,
                "tokenAddress": token_address,
                "to": to,
                "amount": amount,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        account_id = d.pop("accountId")

        token_address = d.pop("tokenAddress")

        to = d.pop("to")

        amount = d.pop("amount")

        send_token = cls(
            account_id=account_id,
            token_address=token_address,
            to=to,
            amount=amount,
        )

        return send_token
