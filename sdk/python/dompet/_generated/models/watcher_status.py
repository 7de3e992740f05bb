from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="WatcherStatus")


@_attrs_define
class WatcherStatus:
    """
    Attributes:
        network (str):
        chain_id (int):
        cursor (int | None): The last block scanned.
        head (int | None):
        lag (int | None):
        confirmations (int):
        last_step_at (None | str):
    """

    network: str
    chain_id: int
    cursor: int | None
    head: int | None
    lag: int | None
    confirmations: int
    last_step_at: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        network = self.network

        chain_id = self.chain_id

        cursor: int | None
        cursor = self.cursor

        head: int | None
        head = self.head

        lag: int | None
        lag = self.lag

        confirmations = self.confirmations

        last_step_at: None | str
        last_step_at = self.last_step_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "network": network,
                "chainId": chain_id,
                "cursor": cursor,
                "head": head,
                "lag": lag,
                "confirmations": confirmations,
                "lastStepAt": last_step_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        network = d.pop("network")

        chain_id = d.pop("chainId")

        def _parse_cursor(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        cursor = _parse_cursor(d.pop("cursor"))

        def _parse_head(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        head = _parse_head(d.pop("head"))

        def _parse_lag(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        lag = _parse_lag(d.pop("lag"))

        confirmations = d.pop("confirmations")

        def _parse_last_step_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        last_step_at = _parse_last_step_at(d.pop("lastStepAt"))

        watcher_status = cls(
            network=network,
            chain_id=chain_id,
            cursor=cursor,
            head=head,
            lag=lag,
            confirmations=confirmations,
            last_step_at=last_step_at,
        )

        watcher_status.additional_properties = d
        return watcher_status

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
