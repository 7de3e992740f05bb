from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.usdt_info import UsdtInfo


T = TypeVar("T", bound="NetworkInfo")


@_attrs_define
class NetworkInfo:
    """
    Attributes:
        name (str):
        chain_id (int):
        native_symbol (str):
        native_decimals (int):
        usdt (UsdtInfo):
        pool_address (str): Where top-ups are sent (USDT transfers).
        entry_point (str):
        account_factory (str):
        paymaster (str):
        account_version (str):
        bundler_version (str | Unset):  Default: '0.7'.
        entry_point_v08 (None | str | Unset): EIP-7702 accounts (absent: the network has none): ERC-4337 v0.8
            EntryPoint.
        eip_7702_account (None | str | Unset): The delegate of EIP-7702 accounts (Simple7702Account 0.8.0): what
            `eip7702Auth` names.
        paymaster_v08 (None | str | Unset): The service's paymaster for v0.8 operations.
    """

    name: str
    chain_id: int
    native_symbol: str
    native_decimals: int
    usdt: UsdtInfo
    pool_address: str
    entry_point: str
    account_factory: str
    paymaster: str
    account_version: str
    bundler_version: str | Unset = "0.7"
    entry_point_v08: None | str | Unset = UNSET
    eip_7702_account: None | str | Unset = UNSET
    paymaster_v08: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        chain_id = self.chain_id

        native_symbol = self.native_symbol

        native_decimals = self.native_decimals

        usdt = self.usdt.to_dict()

        pool_address = self.pool_address

        entry_point = self.entry_point

        account_factory = self.account_factory

        paymaster = self.paymaster

        account_version = self.account_version

        bundler_version = self.bundler_version

        entry_point_v08: None | str | Unset
        if isinstance(self.entry_point_v08, Unset):
            entry_point_v08 = UNSET
        else:
            entry_point_v08 = self.entry_point_v08

        eip_7702_account: None | str | Unset
        if isinstance(self.eip_7702_account, Unset):
            eip_7702_account = UNSET
        else:
            eip_7702_account = self.eip_7702_account

        paymaster_v08: None | str | Unset
        if isinstance(self.paymaster_v08, Unset):
            paymaster_v08 = UNSET
        else:
            paymaster_v08 = self.paymaster_v08

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "name": name,
                "chainId": chain_id,
                "nativeSymbol": native_symbol,
                "nativeDecimals": native_decimals,
                "usdt": usdt,
                "poolAddress": pool_address,
                "entryPoint": entry_point,
                "accountFactory": account_factory,
                "paymaster": paymaster,
                "accountVersion": account_version,
            }
        )
        if bundler_version is not UNSET:
            field_dict["bundlerVersion"] = bundler_version
        if entry_point_v08 is not UNSET:
            field_dict["entryPointV08"] = entry_point_v08
        if eip_7702_account is not UNSET:
            field_dict["eip7702Account"] = eip_7702_account
        if paymaster_v08 is not UNSET:
            field_dict["paymasterV08"] = paymaster_v08

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.usdt_info import UsdtInfo

        d = dict(src_dict)
        name = d.pop("name")

        chain_id = d.pop("chainId")

        native_symbol = d.pop("nativeSymbol")

        native_decimals = d.pop("nativeDecimals")

        usdt = UsdtInfo.from_dict(d.pop("usdt"))

        pool_address = d.pop("poolAddress")

        entry_point = d.pop("entryPoint")

        account_factory = d.pop("accountFactory")

        paymaster = d.pop("paymaster")

        account_version = d.pop("accountVersion")

        bundler_version = d.pop("bundlerVersion", UNSET)

        def _parse_entry_point_v08(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        entry_point_v08 = _parse_entry_point_v08(d.pop("entryPointV08", UNSET))

        def _parse_eip_7702_account(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        eip_7702_account = _parse_eip_7702_account(d.pop("eip7702Account", UNSET))

        def _parse_paymaster_v08(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        paymaster_v08 = _parse_paymaster_v08(d.pop("paymasterV08", UNSET))

        network_info = cls(
            name=name,
            chain_id=chain_id,
            native_symbol=native_symbol,
            native_decimals=native_decimals,
            usdt=usdt,
            pool_address=pool_address,
            entry_point=entry_point,
            account_factory=account_factory,
            paymaster=paymaster,
            account_version=account_version,
            bundler_version=bundler_version,
            entry_point_v08=entry_point_v08,
            eip_7702_account=eip_7702_account,
            paymaster_v08=paymaster_v08,
        )

        network_info.additional_properties = d
        return network_info

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
