from __future__ import annotations

from collections.abc import Mapping
from typing import (
    TYPE_CHECKING,
    Any,
    Literal,
    Self,
    TypeVar,
    cast,
)

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.estimate import Estimate


T = TypeVar("T", bound="PostUserOpBatchEstimateResponse200")


@_attrs_define
class PostUserOpBatchEstimateResponse200:
    """
    Attributes:
        status (Literal[200]):
        message (str):
        data (Estimate | Unset):
    """

    status: Literal[200]
    message: str
    data: Estimate | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        status = self.status

        message = self.message

        data: dict[str, Any] | Unset = UNSET
        if not isinstance(self.data, Unset):
            data = self.data.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "status": status,
                "message": message,
            }
        )
        if data is not UNSET:
            field_dict["data"] = data

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.estimate import Estimate

        d = dict(src_dict)
        status = cast(Literal[200], d.pop("status"))
        if status != 200:
            raise ValueError(f"status must match const 200, got '{status}'")

        message = d.pop("message")

        _data = d.pop("data", UNSET)
        data: Estimate | Unset
        if isinstance(_data, Unset):
            data = UNSET
        else:
            data = Estimate.from_dict(_data)

        post_user_op_batch_estimate_response_200 = cls(
            status=status,
            message=message,
            data=data,
        )

        post_user_op_batch_estimate_response_200.additional_properties = d
        return post_user_op_batch_estimate_response_200

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
