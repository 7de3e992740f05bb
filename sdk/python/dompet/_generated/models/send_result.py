from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.tx_receipt import TxReceipt


T = TypeVar("T", bound="SendResult")


@_attrs_define
class SendResult:
    """
    Attributes:
        tx_receipt (TxReceipt): ethers v6's JSON of a pending transaction (see docs/wallets.md).
    """

    tx_receipt: TxReceipt
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        tx_receipt = self.tx_receipt.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "txReceipt": tx_receipt,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.tx_receipt import TxReceipt

        d = dict(src_dict)
        tx_receipt = TxReceipt.from_dict(d.pop("txReceipt"))

        send_result = cls(
            tx_receipt=tx_receipt,
        )

        send_result.additional_properties = d
        return send_result

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
