from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.hash_result_typed_data_type_0 import HashResultTypedDataType0


T = TypeVar("T", bound="HashResult")


@_attrs_define
class HashResult:
    """
    Attributes:
        hash_ (str): The userOpHash. A `simple` account's owner signs it as EIP-191 personal_sign of the 32 bytes; an
            `eip7702` account's (EntryPoint v0.8) signs `typedData`, whose EIP-712 digest it is.
        user_op_id (str):
        valid_until (int): Unix seconds until which the operation can be submitted and included.
        typed_data (HashResultTypedDataType0 | None | Unset): An `eip7702` account's operation (EntryPoint v0.8): the
            `PackedUserOperation` EIP-712 document whose digest is `hash`, for POST /api/v1/wallet/sign-typed-data. Absent
            for a `simple` account's.
        delegates (bool | None | Unset): An `eip7702` account's operation that delegates the wallet (its code is not yet
            Simple7702Account's): submit it with `eip7702Auth`. Absent for a `simple` account's.
    """

    hash_: str
    user_op_id: str
    valid_until: int
    typed_data: HashResultTypedDataType0 | None | Unset = UNSET
    delegates: bool | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.hash_result_typed_data_type_0 import HashResultTypedDataType0

        hash_ = self.hash_

        user_op_id = self.user_op_id

        valid_until = self.valid_until

        typed_data: dict[str, Any] | None | Unset
        if isinstance(self.typed_data, Unset):
            typed_data = UNSET
        elif isinstance(self.typed_data, HashResultTypedDataType0):
            typed_data = self.typed_data.to_dict()
        else:
            typed_data = self.typed_data

        delegates: bool | None | Unset
        if isinstance(self.delegates, Unset):
            delegates = UNSET
        else:
            delegates = self.delegates

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "hash": hash_,
                "userOpId": user_op_id,
                "validUntil": valid_until,
            }
        )
        if typed_data is not UNSET:
            field_dict["typedData"] = typed_data
        if delegates is not UNSET:
            field_dict["delegates"] = delegates

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.hash_result_typed_data_type_0 import HashResultTypedDataType0

        d = dict(src_dict)
        hash_ = d.pop("hash")

        user_op_id = d.pop("userOpId")

        valid_until = d.pop("validUntil")

        def _parse_typed_data(data: object) -> HashResultTypedDataType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                typed_data_type_0 = HashResultTypedDataType0.from_dict(data)

                return typed_data_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(HashResultTypedDataType0 | None | Unset, data)

        typed_data = _parse_typed_data(d.pop("typedData", UNSET))

        def _parse_delegates(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        delegates = _parse_delegates(d.pop("delegates", UNSET))

        hash_result = cls(
            hash_=hash_,
            user_op_id=user_op_id,
            valid_until=valid_until,
            typed_data=typed_data,
            delegates=delegates,
        )

        hash_result.additional_properties = d
        return hash_result

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
