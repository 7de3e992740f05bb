from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.session_info_tokentype import SessionInfoTokentype

T = TypeVar("T", bound="SessionInfo")


@_attrs_define
class SessionInfo:
    """
    Attributes:
        user_id (str):
        client_id (str):
        sub_id (str):
        token_type (SessionInfoTokentype):
        expires_at (str):
        is_wallet_created (bool):
        address (None | str): The wallet address, null while the user has no wallet.
    """

    user_id: str
    client_id: str
    sub_id: str
    token_type: SessionInfoTokentype
    expires_at: str
    is_wallet_created: bool
    address: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        user_id = self.user_id

        client_id = self.client_id

        sub_id = self.sub_id

        token_type = self.token_type.value

        expires_at = self.expires_at

        is_wallet_created = self.is_wallet_created

        address: None | str
        address = self.address

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "userId": user_id,
                "clientId": client_id,
                "subId": sub_id,
                "tokenType": token_type,
                "expiresAt": expires_at,
                "isWalletCreated": is_wallet_created,
                "address": address,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        user_id = d.pop("userId")

        client_id = d.pop("clientId")

        sub_id = d.pop("subId")

        token_type = SessionInfoTokentype(d.pop("tokenType"))

        expires_at = d.pop("expiresAt")

        is_wallet_created = d.pop("isWalletCreated")

        def _parse_address(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        address = _parse_address(d.pop("address"))

        session_info = cls(
            user_id=user_id,
            client_id=client_id,
            sub_id=sub_id,
            token_type=token_type,
            expires_at=expires_at,
            is_wallet_created=is_wallet_created,
            address=address,
        )

        session_info.additional_properties = d
        return session_info

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
