from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.user_operation_payer_type_0 import UserOperationPayerType0
from ..models.user_operation_status import UserOperationStatus
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.embedded_usage import EmbeddedUsage


T = TypeVar("T", bound="UserOperation")


@_attrs_define
class UserOperation:
    """
    Attributes:
        id (str):
        created_at (str):
        updated_at (None | str):
        account_id (str):
        owner_id (str):
        client_id (str):
        app_id (str):
        signature (None | str):
        user_op_hash (str):
        tx_hash (None | str):
        status (UserOperationStatus):
        type_ (str):
        network (str):
        chain_id (int):
        payer (None | UserOperationPayerType0):
        valid_until (str):
        failed_reason (None | str):
        success_at (None | str):
        failed_at (None | str):
        sent_at (None | str):
        bundler_version (str | Unset):  Default: '0.7'.
        client_gas_tank_usage_history (EmbeddedUsage | None | Unset): In the all-owners list: what the operation
            charged.
    """

    id: str
    created_at: str
    updated_at: None | str
    account_id: str
    owner_id: str
    client_id: str
    app_id: str
    signature: None | str
    user_op_hash: str
    tx_hash: None | str
    status: UserOperationStatus
    type_: str
    network: str
    chain_id: int
    payer: None | UserOperationPayerType0
    valid_until: str
    failed_reason: None | str
    success_at: None | str
    failed_at: None | str
    sent_at: None | str
    bundler_version: str | Unset = "0.7"
    client_gas_tank_usage_history: EmbeddedUsage | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.embedded_usage import EmbeddedUsage

        id = self.id

        created_at = self.created_at

        updated_at: None | str
        updated_at = self.updated_at

        account_id = self.account_id

        owner_id = self.owner_id

        client_id = self.client_id

        app_id = self.app_id

        signature: None | str
        signature = self.signature

        user_op_hash = self.user_op_hash

        tx_hash: None | str
        tx_hash = self.tx_hash

        status = self.status.value

        type_ = self.type_

        network = self.network

        chain_id = self.chain_id

        payer: None | str
        if isinstance(self.payer, UserOperationPayerType0):
            payer = self.payer.value
        else:
            payer = self.payer

        valid_until = self.valid_until

        failed_reason: None | str
        failed_reason = self.failed_reason

        success_at: None | str
        success_at = self.success_at

        failed_at: None | str
        failed_at = self.failed_at

        sent_at: None | str
        sent_at = self.sent_at

        bundler_version = self.bundler_version

        client_gas_tank_usage_history: dict[str, Any] | None | Unset
        if isinstance(self.client_gas_tank_usage_history, Unset):
            client_gas_tank_usage_history = UNSET
        elif isinstance(self.client_gas_tank_usage_history, EmbeddedUsage):
            client_gas_tank_usage_history = self.client_gas_tank_usage_history.to_dict()
        else:
            client_gas_tank_usage_history = self.client_gas_tank_usage_history

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "createdAt": created_at,
                "updatedAt": updated_at,
                "accountId": account_id,
                "ownerId": owner_id,
                "clientId": client_id,
                "appId": app_id,
                "signature": signature,
                "userOpHash": user_op_hash,
                "txHash": tx_hash,
                "status": status,
                "type": type_,
                "network": network,
                "chainId": chain_id,
                "payer": payer,
                "validUntil": valid_until,
                "failedReason": failed_reason,
                "successAt": success_at,
                "failedAt": failed_at,
                "sentAt": sent_at,
            }
        )
        if bundler_version is not UNSET:
            field_dict["bundlerVersion"] = bundler_version
        if client_gas_tank_usage_history is not UNSET:
            field_dict["clientGasTankUsageHistory"] = client_gas_tank_usage_history

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.embedded_usage import EmbeddedUsage

        d = dict(src_dict)
        id = d.pop("id")

        created_at = d.pop("createdAt")

        def _parse_updated_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        updated_at = _parse_updated_at(d.pop("updatedAt"))

        account_id = d.pop("accountId")

        owner_id = d.pop("ownerId")

        client_id = d.pop("clientId")

        app_id = d.pop("appId")

        def _parse_signature(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        signature = _parse_signature(d.pop("signature"))

        user_op_hash = d.pop("userOpHash")

        def _parse_tx_hash(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        tx_hash = _parse_tx_hash(d.pop("txHash"))

        status = UserOperationStatus(d.pop("status"))

        type_ = d.pop("type")

        network = d.pop("network")

        chain_id = d.pop("chainId")

        def _parse_payer(data: object) -> None | UserOperationPayerType0:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                payer_type_0 = UserOperationPayerType0(data)

                return payer_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UserOperationPayerType0, data)

        payer = _parse_payer(d.pop("payer"))

        valid_until = d.pop("validUntil")

        def _parse_failed_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        failed_reason = _parse_failed_reason(d.pop("failedReason"))

        def _parse_success_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        success_at = _parse_success_at(d.pop("successAt"))

        def _parse_failed_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        failed_at = _parse_failed_at(d.pop("failedAt"))

        def _parse_sent_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        sent_at = _parse_sent_at(d.pop("sentAt"))

        bundler_version = d.pop("bundlerVersion", UNSET)

        def _parse_client_gas_tank_usage_history(
            data: object,
        ) -> EmbeddedUsage | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                client_gas_tank_usage_history_type_0 = EmbeddedUsage.from_dict(data)

                return client_gas_tank_usage_history_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(EmbeddedUsage | None | Unset, data)

        client_gas_tank_usage_history = _parse_client_gas_tank_usage_history(
            d.pop("clientGasTankUsageHistory", UNSET)
        )

        user_operation = cls(
            id=id,
            created_at=created_at,
            updated_at=updated_at,
            account_id=account_id,
            owner_id=owner_id,
            client_id=client_id,
            app_id=app_id,
            signature=signature,
            user_op_hash=user_op_hash,
            tx_hash=tx_hash,
            status=status,
            type_=type_,
            network=network,
            chain_id=chain_id,
            payer=payer,
            valid_until=valid_until,
            failed_reason=failed_reason,
            success_at=success_at,
            failed_at=failed_at,
            sent_at=sent_at,
            bundler_version=bundler_version,
            client_gas_tank_usage_history=client_gas_tank_usage_history,
        )

        user_operation.additional_properties = d
        return user_operation

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
