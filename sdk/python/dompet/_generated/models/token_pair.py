from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="TokenPair")


@_attrs_define
class TokenPair:
    """`accessToken` for a user without a wallet, `walletToken` once the wallet exists; never both.

    Attributes:
        is_wallet_created (bool):
        refresh_token (str):
        expires_at (str): Expiry of the access or wallet token (UTC, RFC 3339).
        access_token (None | str | Unset): Present while the user has no wallet.
        wallet_token (None | str | Unset): Present once the user has a wallet.
    """

    is_wallet_created: bool
    refresh_token: str
    expires_at: str
    access_token: None | str | Unset = UNSET
    wallet_token: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        is_wallet_created = self.is_wallet_created

        refresh_token = self.refresh_token

        expires_at = self.expires_at

        access_token: None | str | Unset
        if isinstance(self.access_token, Unset):
            access_token = UNSET
        else:
            access_token = self.access_token

        wallet_token: None | str | Unset
        if isinstance(self.wallet_token, Unset):
            wallet_token = UNSET
        else:
            wallet_token = self.wallet_token

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "isWalletCreated": is_wallet_created,
                "refreshToken": refresh_token,
                "expiresAt": expires_at,
            }
        )
        if access_token is not UNSET:
            field_dict["accessToken"] = access_token
        if wallet_token is not UNSET:
            field_dict["walletToken"] = wallet_token

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        is_wallet_created = d.pop("isWalletCreated")

        refresh_token = d.pop("refreshToken")

        expires_at = d.pop("expiresAt")

        def _parse_access_token(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        access_token = _parse_access_token(d.pop("accessToken", UNSET))

        def _parse_wallet_token(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        wallet_token = _parse_wallet_token(d.pop("walletToken", UNSET))

        token_pair = cls(
            is_wallet_created=is_wallet_created,
            refresh_token=refresh_token,
            expires_at=expires_at,
            access_token=access_token,
            wallet_token=wallet_token,
        )

        token_pair.additional_properties = d
        return token_pair

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
