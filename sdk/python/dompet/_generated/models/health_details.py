from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.component import Component


T = TypeVar("T", bound="HealthDetails")


@_attrs_define
class HealthDetails:
    """
    Attributes:
        service (str):
        version (str):
        stage (str):
        components (list[Component]):
        checked_at (str):
    """

    service: str
    version: str
    stage: str
    components: list[Component]
    checked_at: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        service = self.service

        version = self.version

        stage = self.stage

        components = []
        for components_item_data in self.components:
            components_item = components_item_data.to_dict()
            components.append(components_item)

        checked_at = self.checked_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "service": service,
                "version": version,
                "stage": stage,
                "components": components,
                "checkedAt": checked_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.component import Component

        d = dict(src_dict)
        service = d.pop("service")

        version = d.pop("version")

        stage = d.pop("stage")

        components = []
        _components = d.pop("components")
        for components_item_data in _components:
            components_item = Component.from_dict(components_item_data)

            components.append(components_item)

        checked_at = d.pop("checkedAt")

        health_details = cls(
            service=service,
            version=version,
            stage=stage,
            components=components,
            checked_at=checked_at,
        )

        health_details.additional_properties = d
        return health_details

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
