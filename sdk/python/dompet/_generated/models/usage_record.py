from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="UsageRecord")


@_attrs_define
class UsageRecord:
    """
    Attributes:
        id (str):
        client_id (str):
        client_gas_tank_id (str):
        user_op_id (str):
        native_to_gas_tank_rate (float):
        amount_in_native (str):
        amount_in_gas_tank (str):
        initial_deducted_amount_in_native (str):
        initial_deducted_amount_in_gas_tank (str):
        refunded_amount_in_native (None | str):
        refunded_amount_in_gas_tank (None | str):
        client_fee_in_gas_tank (None | str):
        service_fee_in_gas_tank (None | str):
        created_at (str):
        refunded_at (None | str):
    """

    id: str
    client_id: str
    client_gas_tank_id: str
    user_op_id: str
    native_to_gas_tank_rate: float
    amount_in_native: str
    amount_in_gas_tank: str
    initial_deducted_amount_in_native: str
    initial_deducted_amount_in_gas_tank: str
    refunded_amount_in_native: None | str
    refunded_amount_in_gas_tank: None | str
    client_fee_in_gas_tank: None | str
    service_fee_in_gas_tank: None | str
    created_at: str
    refunded_at: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        client_id = self.client_id

        client_gas_tank_id = self.client_gas_tank_id

        user_op_id = self.user_op_id

        native_to_gas_tank_rate = self.native_to_gas_tank_rate

        amount_in_native = self.amount_in_native

        amount_in_gas_tank = self.amount_in_gas_tank

        initial_deducted_amount_in_native = self.initial_deducted_amount_in_native

        initial_deducted_amount_in_gas_tank = self.initial_deducted_amount_in_gas_tank

        refunded_amount_in_native: None | str
        refunded_amount_in_native = self.refunded_amount_in_native

        refunded_amount_in_gas_tank: None | str
        refunded_amount_in_gas_tank = self.refunded_amount_in_gas_tank

        client_fee_in_gas_tank: None | str
        client_fee_in_gas_tank = self.client_fee_in_gas_tank

        service_fee_in_gas_tank: None | str
        service_fee_in_gas_tank = self.service_fee_in_gas_tank

        created_at = self.created_at

        refunded_at: None | str
        refunded_at = self.refunded_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "clientId": client_id,
                "clientGasTankId": client_gas_tank_id,
                "userOpId": user_op_id,
                "nativeToGasTankRate": native_to_gas_tank_rate,
                "amountInNative": amount_in_native,
                "amountInGasTank": amount_in_gas_tank,
                "initialDeductedAmountInNative": initial_deducted_amount_in_native,
                "initialDeductedAmountInGasTank": initial_deducted_amount_in_gas_tank,
                "refundedAmountInNative": refunded_amount_in_native,
                "refundedAmountInGasTank": refunded_amount_in_gas_tank,
                "clientFeeInGasTank": client_fee_in_gas_tank,
                "serviceFeeInGasTank": service_fee_in_gas_tank,
                "createdAt": created_at,
                "refundedAt": refunded_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = d.pop("id")

        client_id = d.pop("clientId")

        client_gas_tank_id = d.pop("clientGasTankId")

        user_op_id = d.pop("userOpId")

        native_to_gas_tank_rate = d.pop("nativeToGasTankRate")

        amount_in_native = d.pop("amountInNative")

        amount_in_gas_tank = d.pop("amountInGasTank")

        initial_deducted_amount_in_native = d.pop("initialDeductedAmountInNative")

        initial_deducted_amount_in_gas_tank = d.pop("initialDeductedAmountInGasTank")

        def _parse_refunded_amount_in_native(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        refunded_amount_in_native = _parse_refunded_amount_in_native(
            d.pop("refundedAmountInNative")
        )

        def _parse_refunded_amount_in_gas_tank(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        refunded_amount_in_gas_tank = _parse_refunded_amount_in_gas_tank(
            d.pop("refundedAmountInGasTank")
        )

        def _parse_client_fee_in_gas_tank(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        client_fee_in_gas_tank = _parse_client_fee_in_gas_tank(
            d.pop("clientFeeInGasTank")
        )

        def _parse_service_fee_in_gas_tank(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        service_fee_in_gas_tank = _parse_service_fee_in_gas_tank(
            d.pop("serviceFeeInGasTank")
        )

        created_at = d.pop("createdAt")

        def _parse_refunded_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        refunded_at = _parse_refunded_at(d.pop("refundedAt"))

        usage_record = cls(
            id=id,
            client_id=client_id,
            client_gas_tank_id=client_gas_tank_id,
            user_op_id=user_op_id,
            native_to_gas_tank_rate=native_to_gas_tank_rate,
            amount_in_native=amount_in_native,
            amount_in_gas_tank=amount_in_gas_tank,
            initial_deducted_amount_in_native=initial_deducted_amount_in_native,
            initial_deducted_amount_in_gas_tank=initial_deducted_amount_in_gas_tank,
            refunded_amount_in_native=refunded_amount_in_native,
            refunded_amount_in_gas_tank=refunded_amount_in_gas_tank,
            client_fee_in_gas_tank=client_fee_in_gas_tank,
            service_fee_in_gas_tank=service_fee_in_gas_tank,
            created_at=created_at,
            refunded_at=refunded_at,
        )

        usage_record.additional_properties = d
        return usage_record

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
