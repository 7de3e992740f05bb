from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="BatchCall")


@_attrs_define
class BatchCall:
    """
    Attributes:
        to (str): A 20-byte hex address; mixed case must be a correct EIP-55 checksum.
        value (str | Unset): Wei sent with the call, at most 2**256-1. Default: '0'.
        call_data (str | Unset):  Default: '0x'.
    """

    to: str
    value: str | Unset = "0"
    call_data: str | Unset = "0x"

    def to_dict(self) -> dict[str, Any]:
        to = self.to

        value = self.value

        call_data = self.call_data

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "to": to,
            }
        )
        if value is not UNSET:
            field_dict["value"] = value
        if call_data is not UNSET:
            field_dict["callData"] = call_data

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        to = d.pop("to")

        value = d.pop("value", UNSET)

        call_data = d.pop("callData", UNSET)

        batch_call = cls(
            to=to,
            value=value,
            call_data=call_data,
        )

        return batch_call
