from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="CreateWalletRequest")


@_attrs_define
class CreateWalletRequest:
    """
    Attributes:
        expire_date (None | str | Unset): Expiry of the returned wallet token: an RFC 3339 date-time, or a date
            (midnight UTC at its start). At most 30 days ahead; default the service's wallet-token lifetime.
    """

    expire_date: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        expire_date: None | str | Unset
        if isinstance(self.expire_date, Unset):
            expire_date = UNSET
        else:
            expire_date = self.expire_date

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if expire_date is not UNSET:
            field_dict["expireDate"] = expire_date

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_expire_date(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        expire_date = _parse_expire_date(d.pop("expireDate", UNSET))

        create_wallet_request = cls(
            expire_date=expire_date,
        )

        return create_wallet_request
