from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="WalletCreated")


@_attrs_define
class WalletCreated:
    """The interface's MPC wallet creation result, plus a refresh token for later logins.

    Attributes:
        wallet_token (str): JWT for the wallet operation endpoints.
        refresh_token (str): Single-use refresh token (see docs/authentication.md).
        secret0 (str): Share C sealed for this wallet; the user saves it as `<address>.service`.
        secret_0_link (str): Presigned download of that file; expires 300 s after this response.
        address (str): The wallet's checksummed address.
    """

    wallet_token: str
    refresh_token: str
    secret0: str
    secret_0_link: str
    address: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        wallet_token = self.wallet_token

        refresh_token = self.refresh_token

        secret0 = self.secret0

        secret_0_link = self.secret_0_link

        address = self.address

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "walletToken": wallet_token,
                "refreshToken": refresh_token,
                "secret0": secret0,
                "secret0Link": secret_0_link,
                "address": address,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        wallet_token = d.pop("walletToken")

        refresh_token = d.pop("refreshToken")

        secret0 = d.pop("secret0")

        secret_0_link = d.pop("secret0Link")

        address = d.pop("address")

        wallet_created = cls(
            wallet_token=wallet_token,
            refresh_token=refresh_token,
            secret0=secret0,
            secret_0_link=secret_0_link,
            address=address,
        )

        wallet_created.additional_properties = d
        return wallet_created

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
