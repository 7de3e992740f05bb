from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="RecoverWalletRequest")


@_attrs_define
class RecoverWalletRequest:
    """JSON `{secret0}`; or multipart/form-data with the recovery file in part `file`.

    Attributes:
        secret0 (None | str | Unset): The wallet's secret0 (JSON body).
        file (None | str | Unset): The recovery file `<address>.service` (multipart part), content secret0.
        expire_date (None | str | Unset): Expiry of the returned wallet token: an RFC 3339 date-time, or a date
            (midnight UTC at its start). At most 30 days ahead; default the service's wallet-token lifetime.
    """

    secret0: None | str | Unset = UNSET
    file: None | str | Unset = UNSET
    expire_date: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        secret0: None | str | Unset
        if isinstance(self.secret0, Unset):
            secret0 = UNSET
        else:
            secret0 = self.secret0

        file: None | str | Unset
        if isinstance(self.file, Unset):
            file = UNSET
        else:
            file = self.file

        expire_date: None | str | Unset
        if isinstance(self.expire_date, Unset):
            expire_date = UNSET
        else:
            expire_date = self.expire_date

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if secret0 is not UNSET:
            field_dict["secret0"] = secret0
        if file is not UNSET:
            field_dict["file"] = file
        if expire_date is not UNSET:
            field_dict["expireDate"] = expire_date

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_secret0(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        secret0 = _parse_secret0(d.pop("secret0", UNSET))

        def _parse_file(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        file = _parse_file(d.pop("file", UNSET))

        def _parse_expire_date(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        expire_date = _parse_expire_date(d.pop("expireDate", UNSET))

        recover_wallet_request = cls(
            secret0=secret0,
            file=file,
            expire_date=expire_date,
        )

        return recover_wallet_request
