from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="KeyRotationBody")


@_attrs_define
class KeyRotationBody:
    """`PUT /api/v1/policies/key`: the new key, signed by the current one.

    Attributes:
        public_key (str): Base64 of the new Ed25519 public key.
        signature (str): Base64 of the CURRENT key's Ed25519 signature of the canonical JSON of `{"action": "rotate-
            policy-key", "appId": <appId>, "publicKey": <publicKey>, "sequence": <current sequence + 1>}`.
    """

    public_key: str
    signature: str

    def to_dict(self) -> dict[str, Any]:
        public_key = self.public_key

        signature = self.signature

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "publicKey": public_key,
                "signature": signature,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        public_key = d.pop("publicKey")

        signature = d.pop("signature")

        key_rotation_body = cls(
            public_key=public_key,
            signature=signature,
        )

        return key_rotation_body
