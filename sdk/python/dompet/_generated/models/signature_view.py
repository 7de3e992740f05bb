from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.signature_view_kind import SignatureViewKind
from ..types import UNSET, Unset

T = TypeVar("T", bound="SignatureView")


@_attrs_define
class SignatureView:
    """A message signature in the wallet's history: what was signed, never the message or the signature.

    Attributes:
        kind (SignatureViewKind):
        hash_ (str): The digest signed (`messageHash` or `hash` of the answer).
        primary_type (None | str): Typed data: the document's primaryType.
        chain_id (None | str): Typed data: `domain.chainId` as a decimal string, when it has one; an authorization: its
            chain id ("0": any chain).
        verifying_contract (None | str): Typed data: `domain.verifyingContract`, when it has one.
        created_at (str):
        contract_address (None | str | Unset): An authorization: its delegate.
    """

    kind: SignatureViewKind
    hash_: str
    primary_type: None | str
    chain_id: None | str
    verifying_contract: None | str
    created_at: str
    contract_address: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        kind = self.kind.value

        hash_ = self.hash_

        primary_type: None | str
        primary_type = self.primary_type

        chain_id: None | str
        chain_id = self.chain_id

        verifying_contract: None | str
        verifying_contract = self.verifying_contract

        created_at = self.created_at

        contract_address: None | str | Unset
        if isinstance(self.contract_address, Unset):
            contract_address = UNSET
        else:
            contract_address = self.contract_address

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "kind": kind,
                "hash": hash_,
                "primaryType": primary_type,
                "chainId": chain_id,
                "verifyingContract": verifying_contract,
                "createdAt": created_at,
            }
        )
        if contract_address is not UNSET:
            field_dict["contractAddress"] = contract_address

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        kind = SignatureViewKind(d.pop("kind"))

        hash_ = d.pop("hash")

        def _parse_primary_type(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        primary_type = _parse_primary_type(d.pop("primaryType"))

        def _parse_chain_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        chain_id = _parse_chain_id(d.pop("chainId"))

        def _parse_verifying_contract(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        verifying_contract = _parse_verifying_contract(d.pop("verifyingContract"))

        created_at = d.pop("createdAt")

        def _parse_contract_address(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        contract_address = _parse_contract_address(d.pop("contractAddress", UNSET))

        signature_view = cls(
            kind=kind,
            hash_=hash_,
            primary_type=primary_type,
            chain_id=chain_id,
            verifying_contract=verifying_contract,
            created_at=created_at,
            contract_address=contract_address,
        )

        signature_view.additional_properties = d
        return signature_view

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
