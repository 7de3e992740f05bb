from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.actor import Actor
    from ..models.audit_entry_details import AuditEntryDetails
    from ..models.audit_entry_target import AuditEntryTarget


T = TypeVar("T", bound="AuditEntry")


@_attrs_define
class AuditEntry:
    """
    Attributes:
        id (str):
        at (str):
        actor (Actor): Who changed something: a console user, or the operator's admin command.
        action (str): What was done, e.g. `app.created`, `webhook.url_set`, `member.invited`.
        target (AuditEntryTarget): What it was done to: `type` and `id`.
        source_ip (None | str | Unset):
        user_agent (None | str | Unset):
        details (AuditEntryDetails | Unset):
    """

    id: str
    at: str
    actor: Actor
    action: str
    target: AuditEntryTarget
    source_ip: None | str | Unset = UNSET
    user_agent: None | str | Unset = UNSET
    details: AuditEntryDetails | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        at = self.at

        actor = self.actor.to_dict()

        action = self.action

        target = self.target.to_dict()

        source_ip: None | str | Unset
        if isinstance(self.source_ip, Unset):
            source_ip = UNSET
        else:
            source_ip = self.source_ip

        user_agent: None | str | Unset
        if isinstance(self.user_agent, Unset):
            user_agent = UNSET
        else:
            user_agent = self.user_agent

        details: dict[str, Any] | Unset = UNSET
        if not isinstance(self.details, Unset):
            details = self.details.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "at": at,
                "actor": actor,
                "action": action,
                "target": target,
            }
        )
        if source_ip is not UNSET:
            field_dict["sourceIp"] = source_ip
        if user_agent is not UNSET:
            field_dict["userAgent"] = user_agent
        if details is not UNSET:
            field_dict["details"] = details

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.actor import Actor
        from ..models.audit_entry_details import AuditEntryDetails
        from ..models.audit_entry_target import AuditEntryTarget

        d = dict(src_dict)
        id = d.pop("id")

        at = d.pop("at")

        actor = Actor.from_dict(d.pop("actor"))

        action = d.pop("action")

        target = AuditEntryTarget.from_dict(d.pop("target"))

        def _parse_source_ip(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        source_ip = _parse_source_ip(d.pop("sourceIp", UNSET))

        def _parse_user_agent(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        user_agent = _parse_user_agent(d.pop("userAgent", UNSET))

        _details = d.pop("details", UNSET)
        details: AuditEntryDetails | Unset
        if isinstance(_details, Unset):
            details = UNSET
        else:
            details = AuditEntryDetails.from_dict(_details)

        audit_entry = cls(
            id=id,
            at=at,
            actor=actor,
            action=action,
            target=target,
            source_ip=source_ip,
            user_agent=user_agent,
            details=details,
        )

        audit_entry.additional_properties = d
        return audit_entry

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
