from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.sponsorship_remaining import SponsorshipRemaining


T = TypeVar("T", bound="SponsorshipCheck")


@_attrs_define
class SponsorshipCheck:
    """
    Attributes:
        sponsored (bool): Whether the policy would sponsor it now (nothing is counted or charged).
        rule (None | str): The rule that would refuse it.
        reason (None | str):
        required_gas_tank_balance (str): Its maximum cost in tank units, fees included.
        gas_tank_balance (str): The organization tank's balance (submit also needs it to cover the cost).
        remaining (SponsorshipRemaining): What is left of each cap before this operation; null where the policy sets
            none.
    """

    sponsored: bool
    rule: None | str
    reason: None | str
    required_gas_tank_balance: str
    gas_tank_balance: str
    remaining: SponsorshipRemaining
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        sponsored = self.sponsored

        rule: None | str
        rule = self.rule

        reason: None | str
        reason = self.reason

        required_gas_tank_balance = self.required_gas_tank_balance

        gas_tank_balance = self.gas_tank_balance

        remaining = self.remaining.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "sponsored": sponsored,
                "rule": rule,
                "reason": reason,
                "requiredGasTankBalance": required_gas_tank_balance,
                "gasTankBalance": gas_tank_balance,
                "remaining": remaining,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.sponsorship_remaining import SponsorshipRemaining

        d = dict(src_dict)
        sponsored = d.pop("sponsored")

        def _parse_rule(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        rule = _parse_rule(d.pop("rule"))

        def _parse_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        reason = _parse_reason(d.pop("reason"))

        required_gas_tank_balance = d.pop("requiredGasTankBalance")

        gas_tank_balance = d.pop("gasTankBalance")

        remaining = SponsorshipRemaining.from_dict(d.pop("remaining"))

        sponsorship_check = cls(
            sponsored=sponsored,
            rule=rule,
            reason=reason,
            required_gas_tank_balance=required_gas_tank_balance,
            gas_tank_balance=gas_tank_balance,
            remaining=remaining,
        )

        sponsorship_check.additional_properties = d
        return sponsorship_check

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
