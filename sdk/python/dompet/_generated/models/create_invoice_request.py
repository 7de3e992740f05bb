from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.create_invoice_request_address_type_type_0 import (
    CreateInvoiceRequestAddressTypeType0,
)
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
        address_type (CreateInvoiceRequestAddressTypeType0 | None | Unset): Where a network has several address types
            (Bitcoin): the deposit address's type; `native-segwit` unless `legacy` is asked. Other networks have one
            address, of type "" (leave this out).
    """

    account_id: str
    network: str
    token_code: str
    amount: str
    reference: str
    expires_in_seconds: int | None | Unset = UNSET
    address_type: CreateInvoiceRequestAddressTypeType0 | None | Unset = UNSET

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

        address_type: None | str | Unset
        if isinstance(self.address_type, Unset):
            address_type = UNSET
        elif isinstance(self.address_type, CreateInvoiceRequestAddressTypeType0):
            address_type = self.address_type.value
        else:
            address_type = self.address_type

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
        if address_type is not UNSET:
            field_dict["addressType"] = address_type

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

        def _parse_address_type(
            data: object,
        ) -> CreateInvoiceRequestAddressTypeType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                address_type_type_0 = CreateInvoiceRequestAddressTypeType0(data)

                return address_type_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CreateInvoiceRequestAddressTypeType0 | None | Unset, data)

        address_type = _parse_address_type(d.pop("addressType", UNSET))

        create_invoice_request = cls(
            account_id=account_id,
            network=network,
            token_code=token_code,
            amount=amount,
            reference=reference,
            expires_in_seconds=expires_in_seconds,
            address_type=address_type,
        )

        return create_invoice_request
