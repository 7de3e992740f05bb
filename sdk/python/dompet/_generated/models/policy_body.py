from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.policy_body_policy import PolicyBodyPolicy


T = TypeVar("T", bound="PolicyBody")


@_attrs_define
class PolicyBody:
    """`PUT /api/v1/policies`: the document and the policy key's signature of it for this app (canonical JSON).

    Attributes:
        policy (PolicyBodyPolicy): The policy document (docs/policies.md), at most 64 KiB of JSON. Signed exactly as
            sent: the signature is over the RFC 8785 (JCS) canonical JSON of `{"appId": <appId>, "policy": <policy>}`.
        signature (str): Base64 of the Ed25519 signature by the app's policy key of the canonical JSON of `{"appId":
            <this app's id>, "policy": <policy>}`: a document signed for another app is refused.
    """

    policy: PolicyBodyPolicy
    signature: str

    def to_dict(self) -> dict[str, Any]:
        policy = self.policy.to_dict()

        signature = self.signature

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "policy": policy,
                "signature": signature,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.policy_body_policy import PolicyBodyPolicy

        d = dict(src_dict)
        policy = PolicyBodyPolicy.from_dict(d.pop("policy"))

        signature = d.pop("signature")

        policy_body = cls(
            policy=policy,
            signature=signature,
        )

        return policy_body
