from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="CancelRequest")


@_attrs_define
class CancelRequest:
    """Nothing but the optional `secret`: the cancel is a 0-value send to the wallet itself at the transaction's
    nonce, at the next bump's fees.

        Attributes:
            secret (None | str | Unset): The wallet's secret0 from the user's device. Only operations that sign use it.
    """

    secret: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        secret: None | str | Unset
        if isinstance(self.secret, Unset):
            secret = UNSET
        else:
            secret = self.secret

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if secret is not UNSET:
            field_dict["secret"] = secret

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_secret(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        secret = _parse_secret(d.pop("secret", UNSET))

        cancel_request = cls(
            secret=secret,
        )

        return cancel_request
