from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="TransactionToEvaluate")


@_attrs_define
class TransactionToEvaluate:
    """A would-be transaction: what the engine reads of a send (its chain, recipient, value and call data).

    Attributes:
        network (str): A network name of the service (`GET /api/v1/networks`).
        to (str): A 20-byte hex address; mixed case must be a correct EIP-55 checksum.
        value (str | Unset): Native coin sent, in base units (wei), as a decimal string. Default: '0'.
        data (str | Unset): 0x-prefixed call data (hex bytes, an even number of digits). Default: '0x'.
    """

    network: str
    to: str
    value: str | Unset = "0"
    data: str | Unset = "0x"

    def to_dict(self) -> dict[str, Any]:
        network = self.network

        to = self.to

        value = self.value

        data = self.data

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "network": network,
                "to": to,
            }
        )
        if value is not UNSET:
            field_dict["value"] = value
        if data is not UNSET:
            field_dict["data"] = data

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        network = d.pop("network")

        to = d.pop("to")

        value = d.pop("value", UNSET)

        data = d.pop("data", UNSET)

        transaction_to_evaluate = cls(
            network=network,
            to=to,
            value=value,
            data=data,
        )

        return transaction_to_evaluate
