from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.policy_view_policy_type_0 import PolicyViewPolicyType0


T = TypeVar("T", bound="PolicyView")


@_attrs_define
class PolicyView:
    """
    Attributes:
        policy (None | PolicyViewPolicyType0): The document in force, as it was signed; null when none is.
        version (int | None): Its version; null when no document is in force.
        key_id (None | str): The app's policy key; null when the operator registered none.
        key_registered (bool): Whether a policy key is registered. Without one the app's wallets sign as before
            policies.
        key_sequence (int | None | Unset): The key's sequence number: a rotation signs the next one. Null when no key is
            registered.
    """

    policy: None | PolicyViewPolicyType0
    version: int | None
    key_id: None | str
    key_registered: bool
    key_sequence: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.policy_view_policy_type_0 import PolicyViewPolicyType0

        policy: dict[str, Any] | None
        if isinstance(self.policy, PolicyViewPolicyType0):
            policy = self.policy.to_dict()
        else:
            policy = self.policy

        version: int | None
        version = self.version

        key_id: None | str
        key_id = self.key_id

        key_registered = self.key_registered

        key_sequence: int | None | Unset
        if isinstance(self.key_sequence, Unset):
            key_sequence = UNSET
        else:
            key_sequence = self.key_sequence

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "policy": policy,
                "version": version,
                "keyId": key_id,
                "keyRegistered": key_registered,
            }
        )
        if key_sequence is not UNSET:
            field_dict["keySequence"] = key_sequence

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.policy_view_policy_type_0 import PolicyViewPolicyType0

        d = dict(src_dict)

        def _parse_policy(data: object) -> None | PolicyViewPolicyType0:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                policy_type_0 = PolicyViewPolicyType0.from_dict(data)

                return policy_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PolicyViewPolicyType0, data)

        policy = _parse_policy(d.pop("policy"))

        def _parse_version(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        version = _parse_version(d.pop("version"))

        def _parse_key_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        key_id = _parse_key_id(d.pop("keyId"))

        key_registered = d.pop("keyRegistered")

        def _parse_key_sequence(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        key_sequence = _parse_key_sequence(d.pop("keySequence", UNSET))

        policy_view = cls(
            policy=policy,
            version=version,
            key_id=key_id,
            key_registered=key_registered,
            key_sequence=key_sequence,
        )

        policy_view.additional_properties = d
        return policy_view

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
