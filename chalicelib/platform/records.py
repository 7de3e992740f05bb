"""Typed DynamoDB records: a pydantic model read from an item (`from_item`) and written back as one (`to_item`).

DynamoDB answers every number as a Decimal: an integral one (base units, counters, block numbers) comes back as
an int, any other stays the exact Decimal it is (never a float). Attributes the model does not declare are kept
as they are, so a read and a write of a record lose nothing; a declared field left at its default None is not
written (the item simply lacks it), one set to None explicitly is written as NULL.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any, Self

from pydantic import ConfigDict

from chalicelib.platform.wire import WireModel


def plain(value: Any) -> Any:
    """`value` as read from DynamoDB with its integral Decimals as ints (inside lists, maps and sets too)."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else value
    if isinstance(value, Mapping):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, set | frozenset):
        return {plain(v) for v in value}
    return value


class Record(WireModel):
    """One item of a table, keyed by `pk`/`sk`."""

    model_config = ConfigDict(extra="allow", frozen=True)

    pk: str
    sk: str

    @classmethod
    def from_item(cls, item: Mapping[str, Any]) -> Self:
        return cls.model_validate(plain(item))

    def to_item(self) -> dict[str, Any]:
        unset_none = {name for name in type(self).model_fields if name not in self.model_fields_set}
        unset_none = {name for name in unset_none if getattr(self, name) is None}
        return self.model_dump(mode="python", exclude=unset_none)

    def key(self) -> dict[str, str]:
        return {"pk": self.pk, "sk": self.sk}
