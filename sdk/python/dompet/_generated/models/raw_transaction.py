from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.authorization_list_entry import AuthorizationListEntry


T = TypeVar("T", bound="RawTransaction")


@_attrs_define
class RawTransaction:
    """A raw transaction, every field a hex string. Missing gas fields are filled in by the service.

    Attributes:
        from_ (str): Must be the wallet's address.
        to (None | str | Unset):
        data (None | str | Unset): 0x-prefixed call data.
        nonce (None | str | Unset): Hex; default: the wallet's next nonce.
        gas_price (None | str | Unset): Hex wei; given: a legacy (type 0) transaction.
        gas_limit (None | str | Unset): Hex; default: estimated.
        value (None | str | Unset): Hex wei; default 0x0.
        authorization_list (list[AuthorizationListEntry] | None | Unset): Signed EIP-7702 authorizations: given, the
            transaction is a set-code transaction (type 4, EIP-1559 fees, `to` required). Entries as POST
            /api/v1/wallet/sign-authorization answers them; the wallet's own authorization must name its nonce + 1 (the
            transaction's nonce is used first).
    """

    from_: str
    to: None | str | Unset = UNSET
    data: None | str | Unset = UNSET
    nonce: None | str | Unset = UNSET
    gas_price: None | str | Unset = UNSET
    gas_limit: None | str | Unset = UNSET
    value: None | str | Unset = UNSET
    authorization_list: list[AuthorizationListEntry] | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from_ = self.from_

        to: None | str | Unset
        if isinstance(self.to, Unset):
            to = UNSET
        else:
            to = self.to

        data: None | str | Unset
        if isinstance(self.data, Unset):
            data = UNSET
        else:
            data = self.data

        nonce: None | str | Unset
        if isinstance(self.nonce, Unset):
            nonce = UNSET
        else:
            nonce = self.nonce

        gas_price: None | str | Unset
        if isinstance(self.gas_price, Unset):
            gas_price = UNSET
        else:
            gas_price = self.gas_price

        gas_limit: None | str | Unset
        if isinstance(self.gas_limit, Unset):
            gas_limit = UNSET
        else:
            gas_limit = self.gas_limit

        value: None | str | Unset
        if isinstance(self.value, Unset):
            value = UNSET
        else:
            value = self.value

        authorization_list: list[dict[str, Any]] | None | Unset
        if isinstance(self.authorization_list, Unset):
            authorization_list = UNSET
        elif isinstance(self.authorization_list, list):
            authorization_list = []
            for authorization_list_type_0_item_data in self.authorization_list:
                authorization_list_type_0_item = (
                    authorization_list_type_0_item_data.to_dict()
                )
                authorization_list.append(authorization_list_type_0_item)

        else:
            authorization_list = self.authorization_list

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "from": from_,
            }
        )
        if to is not UNSET:
            field_dict["to"] = to
        if data is not UNSET:
            field_dict["data"] = data
        if nonce is not UNSET:
            field_dict["nonce"] = nonce
        if gas_price is not UNSET:
            field_dict["gasPrice"] = gas_price
        if gas_limit is not UNSET:
            field_dict["gasLimit"] = gas_limit
        if value is not UNSET:
            field_dict["value"] = value
        if authorization_list is not UNSET:
            field_dict["authorizationList"] = authorization_list

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.authorization_list_entry import AuthorizationListEntry

        d = dict(src_dict)
        from_ = d.pop("from")

        def _parse_to(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        to = _parse_to(d.pop("to", UNSET))

        def _parse_data(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        data = _parse_data(d.pop("data", UNSET))

        def _parse_nonce(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        nonce = _parse_nonce(d.pop("nonce", UNSET))

        def _parse_gas_price(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        gas_price = _parse_gas_price(d.pop("gasPrice", UNSET))

        def _parse_gas_limit(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        gas_limit = _parse_gas_limit(d.pop("gasLimit", UNSET))

        def _parse_value(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        value = _parse_value(d.pop("value", UNSET))

        def _parse_authorization_list(
            data: object,
        ) -> list[AuthorizationListEntry] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                authorization_list_type_0 = []
                _authorization_list_type_0 = data
                for authorization_list_type_0_item_data in _authorization_list_type_0:
                    authorization_list_type_0_item = AuthorizationListEntry.from_dict(
                        authorization_list_type_0_item_data
                    )

                    authorization_list_type_0.append(authorization_list_type_0_item)

                return authorization_list_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[AuthorizationListEntry] | None | Unset, data)

        authorization_list = _parse_authorization_list(
            d.pop("authorizationList", UNSET)
        )

        raw_transaction = cls(
            from_=from_,
            to=to,
            data=data,
            nonce=nonce,
            gas_price=gas_price,
            gas_limit=gas_limit,
            value=value,
            authorization_list=authorization_list,
        )

        return raw_transaction
