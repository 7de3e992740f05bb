from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.error_envelope_data_errors_item import ErrorEnvelopeDataErrorsItem


T = TypeVar("T", bound="ErrorEnvelopeData")


@_attrs_define
class ErrorEnvelopeData:
    """
    Attributes:
        code (str): Stable machine-readable error code (docs/errors.md); each operation lists the codes of each of its
            error statuses.
        errors (list[ErrorEnvelopeDataErrorsItem] | Unset): Validation errors, one per bad field.
    """

    code: str
    errors: list[ErrorEnvelopeDataErrorsItem] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        code = self.code

        errors: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.errors, Unset):
            errors = []
            for errors_item_data in self.errors:
                errors_item = errors_item_data.to_dict()
                errors.append(errors_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "code": code,
            }
        )
        if errors is not UNSET:
            field_dict["errors"] = errors

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.error_envelope_data_errors_item import ErrorEnvelopeDataErrorsItem

        d = dict(src_dict)
        code = d.pop("code")

        _errors = d.pop("errors", UNSET)
        errors: list[ErrorEnvelopeDataErrorsItem] | Unset = UNSET
        if _errors is not UNSET:
            errors = []
            for errors_item_data in _errors:
                errors_item = ErrorEnvelopeDataErrorsItem.from_dict(errors_item_data)

                errors.append(errors_item)

        error_envelope_data = cls(
            code=code,
            errors=errors,
        )

        error_envelope_data.additional_properties = d
        return error_envelope_data

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
