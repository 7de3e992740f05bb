from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.authorization_list_entry import AuthorizationListEntry


T = TypeVar("T", bound="Submit")


@_attrs_define
class Submit:
    """
    Attributes:
        signature (str): The owner's signature of `hash`.
        user_op_id (str):
        hash_ (str):
        is_sponsored (bool): true: the organization's gas tank pays; false: the owner's.
        eip_7702_auth (AuthorizationListEntry | None | Unset): An operation with `delegates`: the wallet's EIP-7702
            authorization of the network's Simple7702Account at the wallet's current nonce, as POST /api/v1/wallet/sign-
            authorization answers it.
    """

    signature: str
    user_op_id: str
    hash_: str
    is_sponsored: bool
    eip_7702_auth: AuthorizationListEntry | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.authorization_list_entry import AuthorizationListEntry

        signature = self.signature

        user_op_id = self.user_op_id

        hash_ = self.hash_

        is_sponsored = self.is_sponsored

        eip_7702_auth: dict[str, Any] | None | Unset
        if isinstance(self.eip_7702_auth, Unset):
            eip_7702_auth = UNSET
        elif isinstance(self.eip_7702_auth, AuthorizationListEntry):
            eip_7702_auth = self.eip_7702_auth.to_dict()
        else:
            eip_7702_auth = self.eip_7702_auth

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "signature": signature,
                "userOpId": user_op_id,
                "hash": hash_,
                "isSponsored": is_sponsored,
            }
        )
        if eip_7702_auth is not UNSET:
            field_dict["eip7702Auth"] = eip_7702_auth

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.authorization_list_entry import AuthorizationListEntry

        d = dict(src_dict)
        signature = d.pop("signature")

        user_op_id = d.pop("userOpId")

        hash_ = d.pop("hash")

        is_sponsored = d.pop("isSponsored")

        def _parse_eip_7702_auth(data: object) -> AuthorizationListEntry | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                eip_7702_auth_type_0 = AuthorizationListEntry.from_dict(data)

                return eip_7702_auth_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AuthorizationListEntry | None | Unset, data)

        eip_7702_auth = _parse_eip_7702_auth(d.pop("eip7702Auth", UNSET))

        submit = cls(
            signature=signature,
            user_op_id=user_op_id,
            hash_=hash_,
            is_sponsored=is_sponsored,
            eip_7702_auth=eip_7702_auth,
        )

        return submit
