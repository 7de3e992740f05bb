from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="CreateInvoiceRequest")


@_attrs_define
class CreateInvoiceRequest:
    """
    Attributes:
        account_id (str):
        network (str):
        token_code (str):
        amount (str): Human units, a decimal string such as "12.5".
        reference (str): Your reference; unique per app.
        expires_in_seconds (int | None | Unset):
    """

    account_id: str
    network: str
    token_code: str
    amount: str
    reference: str
    expires_in_seconds: int | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        account_id = self.account_id

        network = self.network

        token_code = self.token_code

        amount = self.amount

        reference = self.reference

        expires_in_seconds: int | None | Unset
        if isinstance(self.expires_in_seconds, Unset):
            expires_in_seconds = UNSET
        else:
            expires_in_seconds = self.expires_in_seconds

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "accountId": account_id,
                "network": network,
                "tokenCode": token_code,
                "amount": amount,
                "reference": reference,
            }
        )
        if expires_in_seconds is not UNSET:
            field_dict["expiresInSeconds"] = expires_in_seconds

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        account_id = d.pop("accountId")

        network = d.pop("network")

        token_code = d.pop("tokenCode")

        amount = d.pop("amount")

        reference = d.pop("reference")

        def _parse_expires_in_seconds(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        expires_in_seconds = _parse_expires_in_seconds(d.pop("expiresInSeconds", UNSET))

        create_invoice_request = cls(
            account_id=account_id,
            network=network,
            token_code=token_code,
            amount=amount,
            reference=reference,
            expires_in_seconds=expires_in_seconds,
        )

        return create_invoice_request
