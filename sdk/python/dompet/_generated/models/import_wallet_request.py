from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="ImportWalletRequest")


@_attrs_define
class ImportWalletRequest:
    """
    Attributes:
        private_key (str): The secp256k1 private key to import: 64 hex digits, optionally 0x-prefixed.
        expire_date (None | str | Unset): Expiry of the returned wallet token: an RFC 3339 date-time, or a date
            (midnight UTC at its start). At most 30 days ahead; default the service's wallet-token lifetime.
    """

    private_key: str
    expire_date: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        private_key = self.private_key

        expire_date: None | str | Unset
        if isinstance(self.expire_date, Unset):
            expire_date = UNSET
        else:
            expire_date = self.expire_date

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "privateKey": private_key,
            }
        )
        if expire_date is not UNSET:
            field_dict["expireDate"] = expire_date

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        private_key = d.pop("privateKey")

        def _parse_expire_date(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        expire_date = _parse_expire_date(d.pop("expireDate", UNSET))

        import_wallet_request = cls(
            private_key=private_key,
            expire_date=expire_date,
        )

        return import_wallet_request
