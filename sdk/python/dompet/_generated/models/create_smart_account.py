from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.create_smart_account_accounttype import CreateSmartAccountAccounttype
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.owner_ref import OwnerRef


T = TypeVar("T", bound="CreateSmartAccount")


@_attrs_define
class CreateSmartAccount:
    """
    Attributes:
        owner (OwnerRef):
        account_type (CreateSmartAccountAccounttype | Unset): `simple`: a SimpleAccount (ERC-4337 v0.7) the factory
            deploys at a counterfactual address. `eip7702`: the owner's own address (an MPC wallet of the service)
            delegating to Simple7702Account (EIP-7702, EntryPoint v0.8). Creating the other type for an owner that has
            accounts adds them. Default: CreateSmartAccountAccounttype.SIMPLE.
    """

    owner: OwnerRef
    account_type: CreateSmartAccountAccounttype | Unset = (
        CreateSmartAccountAccounttype.SIMPLE
    )

    def to_dict(self) -> dict[str, Any]:
        owner = self.owner.to_dict()

        account_type: str | Unset = UNSET
        if not isinstance(self.account_type, Unset):
            account_type = self.account_type.value

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "owner": owner,
            }
        )
        if account_type is not UNSET:
            field_dict["accountType"] = account_type

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.owner_ref import OwnerRef

        d = dict(src_dict)
        owner = OwnerRef.from_dict(d.pop("owner"))

        _account_type = d.pop("accountType", UNSET)
        account_type: CreateSmartAccountAccounttype | Unset
        if isinstance(_account_type, Unset):
            account_type = UNSET
        else:
            account_type = CreateSmartAccountAccounttype(_account_type)

        create_smart_account = cls(
            owner=owner,
            account_type=account_type,
        )

        return create_smart_account
