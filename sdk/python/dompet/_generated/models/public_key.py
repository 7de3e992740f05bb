from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.previous_key import PreviousKey


T = TypeVar("T", bound="PublicKey")


@_attrs_define
class PublicKey:
    """
    Attributes:
        public_key (str): The app's Ed25519 public key, base64 of 32 bytes.
        key_id (str): Sent as X-Service-Key-Id with each delivery.
        previous (list[PreviousKey]): Keys replaced less than 14 days ago (still verify with them).
    """

    public_key: str
    key_id: str
    previous: list[PreviousKey]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        public_key = self.public_key

        key_id = self.key_id

        previous = []
        for previous_item_data in self.previous:
            previous_item = previous_item_data.to_dict()
            previous.append(previous_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "publicKey": public_key,
                "keyId": key_id,
                "previous": previous,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.previous_key import PreviousKey

        d = dict(src_dict)
        public_key = d.pop("publicKey")

        key_id = d.pop("keyId")

        previous = []
        _previous = d.pop("previous")
        for previous_item_data in _previous:
            previous_item = PreviousKey.from_dict(previous_item_data)

            previous.append(previous_item)

        public_key = cls(
            public_key=public_key,
            key_id=key_id,
            previous=previous,
        )

        public_key.additional_properties = d
        return public_key

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
