from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="AuthorizationListEntry")


@_attrs_define
class AuthorizationListEntry:
    """An authorization a transaction carries, as POST /api/v1/wallet/sign-authorization answers it (`hash`, when
    given, must be the tuple's). Integers are JSON numbers.

        Attributes:
            chain_id (int):
            address (str):
            nonce (int):
            y_parity (int):
            r (str):
            s (str):
            hash_ (None | str | Unset):
    """

    chain_id: int
    address: str
    nonce: int
    y_parity: int
    r: str
    s: str
    hash_: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        chain_id = self.chain_id

        address = self.address

        nonce = self.nonce

        y_parity = self.y_parity

        r = self.r

        s = self.s

        hash_: None | str | Unset
        if isinstance(self.hash_, Unset):
            hash_ = UNSET
        else:
            hash_ = self.hash_

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "chainId": chain_id,
                "address": address,
                "nonce": nonce,
                "yParity": y_parity,
                "r": r,
                "s": s,
            }
        )
        if hash_ is not UNSET:
            field_dict["hash"] = hash_

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        chain_id = d.pop("chainId")

        address = d.pop("address")

        nonce = d.pop("nonce")

        y_parity = d.pop("yParity")

        r = d.pop("r")

        s = d.pop("s")

        def _parse_hash_(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        hash_ = _parse_hash_(d.pop("hash", UNSET))

        authorization_list_entry = cls(
            chain_id=chain_id,
            address=address,
            nonce=nonce,
            y_parity=y_parity,
            r=r,
            s=s,
            hash_=hash_,
        )

        return authorization_list_entry
