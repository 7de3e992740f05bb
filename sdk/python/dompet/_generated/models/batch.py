from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.batch_call import BatchCall


T = TypeVar("T", bound="Batch")


@_attrs_define
class Batch:
    """Several calls in one operation (`executeBatch`), in order, all or none.

    Attributes:
        account_id (str): The smart account (from the owner record).
        calls (list[BatchCall]): 1 to 16 calls, made in this order.
    """

    account_id: str
    calls: list[BatchCall]

    def to_dict(self) -> dict[str, Any]:
        account_id = self.account_id

        calls = []
        for calls_item_data in self.calls:
            calls_item = calls_item_data.to_dict()
            calls.append(calls_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "accountId": account_id,
                "calls": calls,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.batch_call import BatchCall

        d = dict(src_dict)
        account_id = d.pop("accountId")

        calls = []
        _calls = d.pop("calls")
        for calls_item_data in _calls:
            calls_item = BatchCall.from_dict(calls_item_data)

            calls.append(calls_item)

        batch = cls(
            account_id=account_id,
            calls=calls,
        )

        return batch
