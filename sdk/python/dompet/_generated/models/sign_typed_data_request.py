from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.sign_typed_data_request_typeddata import SignTypedDataRequestTypeddata


T = TypeVar("T", bound="SignTypedDataRequest")


@_attrs_define
class SignTypedDataRequest:
    """An EIP-712 document (`eth_signTypedData_v4`). The chain is the one its `domain.chainId` names.

    Attributes:
        typed_data (SignTypedDataRequestTypeddata): `{types, primaryType, domain, message}` as `eth_signTypedData_v4`
            takes it; `EIP712Domain` may be left out of `types` (derived from the domain's fields). At most 64 KiB as
            canonical JSON.
        secret (None | str | Unset): The wallet's secret0 from the user's device. Only operations that sign use it.
    """

    typed_data: SignTypedDataRequestTypeddata
    secret: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        typed_data = self.typed_data.to_dict()

        secret: None | str | Unset
        if isinstance(self.secret, Unset):
            secret = UNSET
        else:
            secret = self.secret

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "typedData": typed_data,
            }
        )
        if secret is not UNSET:
            field_dict["secret"] = secret

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.sign_typed_data_request_typeddata import (
            SignTypedDataRequestTypeddata,
        )

        d = dict(src_dict)
        typed_data = SignTypedDataRequestTypeddata.from_dict(d.pop("typedData"))

        def _parse_secret(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        secret = _parse_secret(d.pop("secret", UNSET))

        sign_typed_data_request = cls(
            typed_data=typed_data,
            secret=secret,
        )

        return sign_typed_data_request
