from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="Activate")


@_attrs_define
class Activate:
    """Deploy the account only (an operation with an empty call); an EIP-7702 account: delegate the wallet.

    Attributes:
        account_id (str): The smart account (from the owner record).
    """

    account_id: str

    def to_dict(self) -> dict[str, Any]:
        account_id = self.account_id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "accountId": account_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        account_id = d.pop("accountId")

        activate = cls(
            account_id=account_id,
        )

        return activate
