from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="SignTransaction")


@_attrs_define
class SignTransaction:
    """
    Attributes:
        account_id (str): The smart account (from the owner record).
        to (str): A 20-byte hex address; mixed case must be a correct EIP-55 checksum.
        value (str): Wei sent with the call, at most 2**256-1.
        call_data (str):
    """

    account_id: str
    to: str
    value: str
    call_data: str

    def to_dict(self) -> dict[str, Any]:
        account_id = self.account_id

        to = self.to

        value = self.value

        call_data = self.call_data

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "accountId": account_id,
                "to": to,
                "value": value,
                "callData": call_data,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        account_id = d.pop("accountId")

        to = d.pop("to")

        value = d.pop("value")

        call_data = d.pop("callData")

        sign_transaction = cls(
            account_id=account_id,
            to=to,
            value=value,
            call_data=call_data,
        )

        return sign_transaction
