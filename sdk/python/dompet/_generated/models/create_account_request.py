from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.create_account_request_pooltype import CreateAccountRequestPooltype
from ..types import UNSET, Unset

T = TypeVar("T", bound="CreateAccountRequest")


@_attrs_define
class CreateAccountRequest:
    """
    Attributes:
        sub_id (str): Your identifier of the account's user; one account per subId.
        pool_type (CreateAccountRequestPooltype | Unset): Whose custody key controls the deposit addresses: this app's
            own (`dedicated`) or one shared by the organization's apps (`organization_owned`). Default:
            CreateAccountRequestPooltype.DEDICATED.
    """

    sub_id: str
    pool_type: CreateAccountRequestPooltype | Unset = (
        CreateAccountRequestPooltype.DEDICATED
    )

    def to_dict(self) -> dict[str, Any]:
        sub_id = self.sub_id

        pool_type: str | Unset = UNSET
        if not isinstance(self.pool_type, Unset):
            pool_type = self.pool_type.value

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "subId": sub_id,
            }
        )
        if pool_type is not UNSET:
            field_dict["poolType"] = pool_type

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        sub_id = d.pop("subId")

        _pool_type = d.pop("poolType", UNSET)
        pool_type: CreateAccountRequestPooltype | Unset
        if isinstance(_pool_type, Unset):
            pool_type = UNSET
        else:
            pool_type = CreateAccountRequestPooltype(_pool_type)

        create_account_request = cls(
            sub_id=sub_id,
            pool_type=pool_type,
        )

        return create_account_request
