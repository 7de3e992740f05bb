from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.sponsorship_policy import SponsorshipPolicy


T = TypeVar("T", bound="SponsorshipPolicyState")


@_attrs_define
class SponsorshipPolicyState:
    """
    Attributes:
        policy (None | SponsorshipPolicy): The app's policy; null: none set (every operation paid).
        updated_at (None | str):
    """

    policy: None | SponsorshipPolicy
    updated_at: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.sponsorship_policy import SponsorshipPolicy

        policy: dict[str, Any] | None
        if isinstance(self.policy, SponsorshipPolicy):
            policy = self.policy.to_dict()
        else:
            policy = self.policy

        updated_at: None | str
        updated_at = self.updated_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "policy": policy,
                "updatedAt": updated_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.sponsorship_policy import SponsorshipPolicy

        d = dict(src_dict)

        def _parse_policy(data: object) -> None | SponsorshipPolicy:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                policy_type_0 = SponsorshipPolicy.from_dict(data)

                return policy_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SponsorshipPolicy, data)

        policy = _parse_policy(d.pop("policy"))

        def _parse_updated_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        updated_at = _parse_updated_at(d.pop("updatedAt"))

        sponsorship_policy_state = cls(
            policy=policy,
            updated_at=updated_at,
        )

        sponsorship_policy_state.additional_properties = d
        return sponsorship_policy_state

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
