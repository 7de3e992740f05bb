from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.contract_rule import ContractRule
    from ..models.operation_caps import OperationCaps
    from ..models.owner_caps import OwnerCaps
    from ..models.total_caps import TotalCaps


T = TypeVar("T", bound="SponsorshipPolicy")


@_attrs_define
class SponsorshipPolicy:
    """Which sponsored user operations of the app the organization tank pays for. Every rule left out allows all.

    Attributes:
        per_owner (None | OwnerCaps | Unset):
        per_operation (None | OperationCaps | Unset):
        total (None | TotalCaps | Unset):
        networks (list[str] | None | Unset): The networks (names) whose operations are sponsored.
        contracts (list[ContractRule] | None | Unset): The calls that are sponsored; an operation calling anything else
            is not.
        active_from (datetime.datetime | None | Unset): Sponsored from this time (RFC 3339, with offset).
        active_until (datetime.datetime | None | Unset): Sponsored until (before) this time.
    """

    per_owner: None | OwnerCaps | Unset = UNSET
    per_operation: None | OperationCaps | Unset = UNSET
    total: None | TotalCaps | Unset = UNSET
    networks: list[str] | None | Unset = UNSET
    contracts: list[ContractRule] | None | Unset = UNSET
    active_from: datetime.datetime | None | Unset = UNSET
    active_until: datetime.datetime | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.operation_caps import OperationCaps
        from ..models.owner_caps import OwnerCaps
        from ..models.total_caps import TotalCaps

        per_owner: dict[str, Any] | None | Unset
        if isinstance(self.per_owner, Unset):
            per_owner = UNSET
        elif isinstance(self.per_owner, OwnerCaps):
            per_owner = self.per_owner.to_dict()
        else:
            per_owner = self.per_owner

        per_operation: dict[str, Any] | None | Unset
        if isinstance(self.per_operation, Unset):
            per_operation = UNSET
        elif isinstance(self.per_operation, OperationCaps):
            per_operation = self.per_operation.to_dict()
        else:
            per_operation = self.per_operation

        total: dict[str, Any] | None | Unset
        if isinstance(self.total, Unset):
            total = UNSET
        elif isinstance(self.total, TotalCaps):
            total = self.total.to_dict()
        else:
            total = self.total

        networks: list[str] | None | Unset
        if isinstance(self.networks, Unset):
            networks = UNSET
        elif isinstance(self.networks, list):
            networks = self.networks

        else:
            networks = self.networks

        contracts: list[dict[str, Any]] | None | Unset
        if isinstance(self.contracts, Unset):
            contracts = UNSET
        elif isinstance(self.contracts, list):
            contracts = []
            for contracts_type_0_item_data in self.contracts:
                contracts_type_0_item = contracts_type_0_item_data.to_dict()
                contracts.append(contracts_type_0_item)

        else:
            contracts = self.contracts

        active_from: None | str | Unset
        if isinstance(self.active_from, Unset):
            active_from = UNSET
        elif isinstance(self.active_from, datetime.datetime):
            active_from = self.active_from.isoformat()
        else:
            active_from = self.active_from

        active_until: None | str | Unset
        if isinstance(self.active_until, Unset):
            active_until = UNSET
        elif isinstance(self.active_until, datetime.datetime):
            active_until = self.active_until.isoformat()
        else:
            active_until = self.active_until

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if per_owner is not UNSET:
            field_dict["perOwner"] = per_owner
        if per_operation is not UNSET:
            field_dict["perOperation"] = per_operation
        if total is not UNSET:
            field_dict["total"] = total
        if networks is not UNSET:
            field_dict["networks"] = networks
        if contracts is not UNSET:
            field_dict["contracts"] = contracts
        if active_from is not UNSET:
            field_dict["activeFrom"] = active_from
        if active_until is not UNSET:
            field_dict["activeUntil"] = active_until

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.contract_rule import ContractRule
        from ..models.operation_caps import OperationCaps
        from ..models.owner_caps import OwnerCaps
        from ..models.total_caps import TotalCaps

        d = dict(src_dict)

        def _parse_per_owner(data: object) -> None | OwnerCaps | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                per_owner_type_0 = OwnerCaps.from_dict(data)

                return per_owner_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | OwnerCaps | Unset, data)

        per_owner = _parse_per_owner(d.pop("perOwner", UNSET))

        def _parse_per_operation(data: object) -> None | OperationCaps | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                per_operation_type_0 = OperationCaps.from_dict(data)

                return per_operation_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | OperationCaps | Unset, data)

        per_operation = _parse_per_operation(d.pop("perOperation", UNSET))

        def _parse_total(data: object) -> None | TotalCaps | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                total_type_0 = TotalCaps.from_dict(data)

                return total_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TotalCaps | Unset, data)

        total = _parse_total(d.pop("total", UNSET))

        def _parse_networks(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                networks_type_0 = cast(list[str], data)

                return networks_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        networks = _parse_networks(d.pop("networks", UNSET))

        def _parse_contracts(data: object) -> list[ContractRule] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                contracts_type_0 = []
                _contracts_type_0 = data
                for contracts_type_0_item_data in _contracts_type_0:
                    contracts_type_0_item = ContractRule.from_dict(
                        contracts_type_0_item_data
                    )

                    contracts_type_0.append(contracts_type_0_item)

                return contracts_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ContractRule] | None | Unset, data)

        contracts = _parse_contracts(d.pop("contracts", UNSET))

        def _parse_active_from(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                active_from_type_0 = datetime.datetime.fromisoformat(data)

                return active_from_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        active_from = _parse_active_from(d.pop("activeFrom", UNSET))

        def _parse_active_until(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                active_until_type_0 = datetime.datetime.fromisoformat(data)

                return active_until_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        active_until = _parse_active_until(d.pop("activeUntil", UNSET))

        sponsorship_policy = cls(
            per_owner=per_owner,
            per_operation=per_operation,
            total=total,
            networks=networks,
            contracts=contracts,
            active_from=active_from,
            active_until=active_until,
        )

        return sponsorship_policy
