from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="TxSignature")


@_attrs_define
class TxSignature:
    """
    Attributes:
        field_type_ (str): Always "signature".
        network_v (None | str):
        r (str):
        s (str):
        v (int):
    """

    field_type_: str
    network_v: None | str
    r: str
    s: str
    v: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        field_type_ = self.field_type_

        network_v: None | str
        network_v = self.network_v

        r = self.r

        s = self.s

        v = self.v

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "_type": field_type_,
                "networkV": network_v,
                "r": r,
                "s": s,
                "v": v,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        field_type_ = d.pop("_type")

        def _parse_network_v(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        network_v = _parse_network_v(d.pop("networkV"))

        r = d.pop("r")

        s = d.pop("s")

        v = d.pop("v")

        tx_signature = cls(
            field_type_=field_type_,
            network_v=network_v,
            r=r,
            s=s,
            v=v,
        )

        tx_signature.additional_properties = d
        return tx_signature

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
