from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="CreateWithdrawalRequest")


@_attrs_define
class CreateWithdrawalRequest:
    """
    Attributes:
        account_id (str):
        network (str):
        token_code (str):
        to (str): The recipient's address: 0x-hex on an EVM network; on a Bitcoin network, an address of its chain.
        amount (str): Human units, a decimal string such as "12.5".
        reference (None | str | Unset): Your reference; unique per app.
    """

    account_id: str
    network: str
    token_code: str
    to: str
    amount: str
    reference: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        account_id = self.account_id

        network = self.network

        token_code = self.token_code

        to = self.to

        amount = self.amount

        reference: None | str | Unset
        if isinstance(self.reference, Unset):
            reference = UNSET
        else:
            reference = self.reference

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "accountId": account_id,
                "network": network,
                "tokenCode": token_code,
                "to": to,
                "amount": amount,
            }
        )
        if reference is not UNSET:
            field_dict["reference"] = reference

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        account_id = d.pop("accountId")

        network = d.pop("network")

        token_code = d.pop("tokenCode")

        to = d.pop("to")

        amount = d.pop("amount")

        def _parse_reference(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reference = _parse_reference(d.pop("reference", UNSET))

        create_withdrawal_request = cls(
            account_id=account_id,
            network=network,
            token_code=token_code,
            to=to,
            amount=amount,
            reference=reference,
        )

        return create_withdrawal_request
