from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.network_info import NetworkInfo


T = TypeVar("T", bound="NetworkList")


@_attrs_define
class NetworkList:
    """
    Attributes:
        networks (list[NetworkInfo]):
    """

    networks: list[NetworkInfo]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        networks = []
        for networks_item_data in self.networks:
            networks_item = networks_item_data.to_dict()
            networks.append(networks_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "networks": networks,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.network_info import NetworkInfo

        d = dict(src_dict)
        networks = []
        _networks = d.pop("networks")
        for networks_item_data in _networks:
            networks_item = NetworkInfo.from_dict(networks_item_data)

            networks.append(networks_item)

        network_list = cls(
            networks=networks,
        )

        network_list.additional_properties = d
        return network_list

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
