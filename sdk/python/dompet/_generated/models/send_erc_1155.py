from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="SendErc1155")


@_attrs_define
class SendErc1155:
    """
    Attributes:
        account_id (str): The smart account (from the owner record).
        token_address (str): A 20-byte hex address; mixed case must be a correct EIP-55 checksum.
        to (str): A 20-byte hex address; mixed case must be a correct EIP-55 checksum.
        token_id (str): A decimal integer from 0 to 2**256-1 (uint256), as a string.
        amount (str): A decimal integer from 0 to 2**256-1 (uint256), as a string.
        data (str | Unset): Bytes passed to the receiver (hex). Default: '0x'.
    """

    account_id: str
    token_address: str
    to: str
    token_id: str
    amount: str
    data: str | Unset = "0x"

    def to_dict(self) -> dict[str, Any]:
        account_id = self.account_id

        token_address = self.token_address

        to = self.to

        token_id = self.token_id

        amount = self.amount

        data = self.data

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "accountId": account_id,
                "tokenAddress": token_address,
                "to": to,
                "tokenId": token_id,
                "amount": amount,
            }
        )
        if data is not UNSET:
            field_dict["data"] = data

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        account_id = d.pop("accountId")

        token_address = d.pop("tokenAddress")

        to = d.pop("to")

        token_id = d.pop("tokenId")

        amount = d.pop("amount")

        data = d.pop("data", UNSET)

        send_erc_1155 = cls(
            account_id=account_id,
            token_address=token_address,
            to=to,
            token_id=token_id,
            amount=amount,
            data=data,
        )

        return send_erc_1155
