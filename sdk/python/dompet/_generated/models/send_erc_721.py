from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="SendErc721")


@_attrs_define
class SendErc721:
    """
    Attributes:
        account_id (str): The smart account (from the owner record).
        token_address (str): A 20-byte hex address; mixed case must be a correct EIP-55 checksum.
        to (str): A 20-byte hex address; mixed case must be a correct EIP-55 checksum.
        token_id (str): A decimal integer from 0 to 2**256-1 (uint256), as a string.
    """

    account_id: str
    token_address: str
    to: str
    token_id: str

    def to_dict(self) -> dict[str, Any]:
        account_id = self.account_id

        token_address = self.token_address

        to = self.to

        token_id = self.token_id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "accountId": account_id,
                "tokenAddress": token_address,
                "to": to,
                "tokenId": token_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        account_id = d.pop("accountId")

        token_address = d.pop("tokenAddress")

        to = d.pop("to")

        token_id = d.pop("tokenId")

        send_erc_721 = cls(
            account_id=account_id,
            token_address=token_address,
            to=to,
            token_id=token_id,
        )

        return send_erc_721
