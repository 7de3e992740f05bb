from __future__ import annotations

from collections.abc import Mapping
from typing import (
    TYPE_CHECKING,
    Any,
    Literal,
    Self,
    TypeVar,
    cast,
)

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.webhook_event_data import WebhookEventData


T = TypeVar("T", bound="WebhookEvent")


@_attrs_define
class WebhookEvent:
    """
    Attributes:
        api_version (Literal['2025-06-22']): The webhook schema version (a date).
        id (str): Stable event id (`<type>:<ids>`, a random UUID for `webhook.test`), equal to `X-Service-Event-Id`.
            Deduplicate by it: a delivery may arrive more than once.
        type_ (str): account.created, deposit.invoice.pending_confirmation, deposit.wallet.pending_confirmation,
            deposit.invoice.paid, deposit.wallet.credited, deposit.reverted, invoice.expired, invoice.failed,
            withdraw.created, withdraw.success, withdraw.failed, userOp.success, userOp.failed, webhook.test.
        created_at (str): UTC, RFC 3339.
        data (WebhookEventData): The event's payload (docs/webhooks.md).
    """

    api_version: Literal["2025-06-22"]
    id: str
    type_: str
    created_at: str
    data: WebhookEventData
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        api_version = self.api_version

        id = self.id

        type_ = self.type_

        created_at = self.created_at

        data = self.data.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "apiVersion": api_version,
                "id": id,
                "type": type_,
                "createdAt": created_at,
                "data": data,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.webhook_event_data import WebhookEventData

        d = dict(src_dict)
        api_version = cast(Literal["2025-06-22"], d.pop("apiVersion"))
        if api_version != "2025-06-22":
            raise ValueError(
                f"apiVersion must match const '2025-06-22', got '{api_version}'"
            )

        id = d.pop("id")

        type_ = d.pop("type")

        created_at = d.pop("createdAt")

        data = WebhookEventData.from_dict(d.pop("data"))

        webhook_event = cls(
            api_version=api_version,
            id=id,
            type_=type_,
            created_at=created_at,
            data=data,
        )

        webhook_event.additional_properties = d
        return webhook_event

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
