from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="SponsorshipCheckRequest")


@_attrs_define
class SponsorshipCheckRequest:
    """Either an operation that was hashed (`userOpId`), or a call to estimate (`accountId`, `to`, `value`,
    `callData`: the `signTransaction/estimate` body).

        Attributes:
            user_op_id (None | str | Unset):
            account_id (None | str | Unset):
            to (None | str | Unset):
            value (str | Unset): Wei sent with the call, at most 2**256-1. Default: '0'.
            call_data (str | Unset):  Default: '0x'.
    """

    user_op_id: None | str | Unset = UNSET
    account_id: None | str | Unset = UNSET
    to: None | str | Unset = UNSET
    value: str | Unset = "0"
    call_data: str | Unset = "0x"

    def to_dict(self) -> dict[str, Any]:
        user_op_id: None | str | Unset
        if isinstance(self.user_op_id, Unset):
            user_op_id = UNSET
        else:
            user_op_id = self.user_op_id

        account_id: None | str | Unset
        if isinstance(self.account_id, Unset):
            account_id = UNSET
        else:
            account_id = self.account_id

        to: None | str | Unset
        if isinstance(self.to, Unset):
            to = UNSET
        else:
            to = self.to

        value = self.value

        call_data = self.call_data

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if user_op_id is not UNSET:
            field_dict["userOpId"] = user_op_id
        if account_id is not UNSET:
            field_dict["accountId"] = account_id
        if to is not UNSET:
            field_dict["to"] = to
        if value is not UNSET:
            field_dict["value"] = value
        if call_data is not UNSET:
            field_dict["callData"] = call_data

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_user_op_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        user_op_id = _parse_user_op_id(d.pop("userOpId", UNSET))

        def _parse_account_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        account_id = _parse_account_id(d.pop("accountId", UNSET))

        def _parse_to(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        to = _parse_to(d.pop("to", UNSET))

        value = d.pop("value", UNSET)

        call_data = d.pop("callData", UNSET)

        sponsorship_check_request = cls(
            user_op_id=user_op_id,
            account_id=account_id,
            to=to,
            value=value,
            call_data=call_data,
        )

        return sponsorship_check_request
