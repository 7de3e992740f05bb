from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.delivery_status import DeliveryStatus
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.delivery_attempt import DeliveryAttempt


T = TypeVar("T", bound="Delivery")


@_attrs_define
class Delivery:
    """
    Attributes:
        id (str):
        event_id (str):
        event_type (str):
        url (str):
        status (DeliveryStatus):
        attempts (int):
        created_at (str):
        last_response_status (int | None | Unset):
        last_error (None | str | Unset):
        last_attempt_at (None | str | Unset):
        next_attempt_at (None | str | Unset):
        delivered_at (None | str | Unset):
        log (list[DeliveryAttempt] | Unset): The last 10 attempts, oldest first (`attempts` counts them all).
        replay_of (None | str | Unset): For a replay made in the console: the delivery whose event it delivers again.
    """

    id: str
    event_id: str
    event_type: str
    url: str
    status: DeliveryStatus
    attempts: int
    created_at: str
    last_response_status: int | None | Unset = UNSET
    last_error: None | str | Unset = UNSET
    last_attempt_at: None | str | Unset = UNSET
    next_attempt_at: None | str | Unset = UNSET
    delivered_at: None | str | Unset = UNSET
    log: list[DeliveryAttempt] | Unset = UNSET
    replay_of: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        event_id = self.event_id

        event_type = self.event_type

        url = self.url

        status = self.status.value

        attempts = self.attempts

        created_at = self.created_at

        last_response_status: int | None | Unset
        if isinstance(self.last_response_status, Unset):
            last_response_status = UNSET
        else:
            last_response_status = self.last_response_status

        last_error: None | str | Unset
        if isinstance(self.last_error, Unset):
            last_error = UNSET
        else:
            last_error = self.last_error

        last_attempt_at: None | str | Unset
        if isinstance(self.last_attempt_at, Unset):
            last_attempt_at = UNSET
        else:
            last_attempt_at = self.last_attempt_at

        next_attempt_at: None | str | Unset
        if isinstance(self.next_attempt_at, Unset):
            next_attempt_at = UNSET
        else:
            next_attempt_at = self.next_attempt_at

        delivered_at: None | str | Unset
        if isinstance(self.delivered_at, Unset):
            delivered_at = UNSET
        else:
            delivered_at = self.delivered_at

        log: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.log, Unset):
            log = []
            for log_item_data in self.log:
                log_item = log_item_data.to_dict()
                log.append(log_item)

        replay_of: None | str | Unset
        if isinstance(self.replay_of, Unset):
            replay_of = UNSET
        else:
            replay_of = self.replay_of

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "eventId": event_id,
                "eventType": event_type,
                "url": url,
                "status": status,
                "attempts": attempts,
                "createdAt": created_at,
            }
        )
        if last_response_status is not UNSET:
            field_dict["lastResponseStatus"] = last_response_status
        if last_error is not UNSET:
            field_dict["lastError"] = last_error
        if last_attempt_at is not UNSET:
            field_dict["lastAttemptAt"] = last_attempt_at
        if next_attempt_at is not UNSET:
            field_dict["nextAttemptAt"] = next_attempt_at
        if delivered_at is not UNSET:
            field_dict["deliveredAt"] = delivered_at
        if log is not UNSET:
            field_dict["log"] = log
        if replay_of is not UNSET:
            field_dict["replayOf"] = replay_of

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.delivery_attempt import DeliveryAttempt

        d = dict(src_dict)
        id = d.pop("id")

        event_id = d.pop("eventId")

        event_type = d.pop("eventType")

        url = d.pop("url")

        status = DeliveryStatus(d.pop("status"))

        attempts = d.pop("attempts")

        created_at = d.pop("createdAt")

        def _parse_last_response_status(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        last_response_status = _parse_last_response_status(
            d.pop("lastResponseStatus", UNSET)
        )

        def _parse_last_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        last_error = _parse_last_error(d.pop("lastError", UNSET))

        def _parse_last_attempt_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        last_attempt_at = _parse_last_attempt_at(d.pop("lastAttemptAt", UNSET))

        def _parse_next_attempt_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        next_attempt_at = _parse_next_attempt_at(d.pop("nextAttemptAt", UNSET))

        def _parse_delivered_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        delivered_at = _parse_delivered_at(d.pop("deliveredAt", UNSET))

        _log = d.pop("log", UNSET)
        log: list[DeliveryAttempt] | Unset = UNSET
        if _log is not UNSET:
            log = []
            for log_item_data in _log:
                log_item = DeliveryAttempt.from_dict(log_item_data)

                log.append(log_item)

        def _parse_replay_of(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        replay_of = _parse_replay_of(d.pop("replayOf", UNSET))

        delivery = cls(
            id=id,
            event_id=event_id,
            event_type=event_type,
            url=url,
            status=status,
            attempts=attempts,
            created_at=created_at,
            last_response_status=last_response_status,
            last_error=last_error,
            last_attempt_at=last_attempt_at,
            next_attempt_at=next_attempt_at,
            delivered_at=delivered_at,
            log=log,
            replay_of=replay_of,
        )

        delivery.additional_properties = d
        return delivery

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
