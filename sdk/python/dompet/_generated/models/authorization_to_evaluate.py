from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="AuthorizationToEvaluate")


@_attrs_define
class AuthorizationToEvaluate:
    """A would-be EIP-7702 authorization: its chain (`network`, or `chainId`, "0" for any chain) and its delegate.

    Attributes:
        contract_address (str): The delegate: the contract whose code the wallet would run (the zero address revokes).
        network (None | str | Unset): A network name of the service; or give `chainId`.
        chain_id (None | str | Unset): The chain id as a decimal string; "0" is an authorization valid on any chain.
        nonce (int | Unset): The account nonce (no rule reads it). Default: 0.
    """

    contract_address: str
    network: None | str | Unset = UNSET
    chain_id: None | str | Unset = UNSET
    nonce: int | Unset = 0

    def to_dict(self) -> dict[str, Any]:
        contract_address = self.contract_address

        network: None | str | Unset
        if isinstance(self.network, Unset):
            network = UNSET
        else:
            network = self.network

        chain_id: None | str | Unset
        if isinstance(self.chain_id, Unset):
            chain_id = UNSET
        else:
            chain_id = self.chain_id

        nonce = self.nonce

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "contractAddress": contract_address,
            }
        )
        if network is not UNSET:
            field_dict["network"] = network
        if chain_id is not UNSET:
            field_dict["chainId"] = chain_id
        if nonce is not UNSET:
            field_dict["nonce"] = nonce

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        contract_address = d.pop("contractAddress")

        def _parse_network(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        network = _parse_network(d.pop("network", UNSET))

        def _parse_chain_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        chain_id = _parse_chain_id(d.pop("chainId", UNSET))

        nonce = d.pop("nonce", UNSET)

        authorization_to_evaluate = cls(
            contract_address=contract_address,
            network=network,
            chain_id=chain_id,
            nonce=nonce,
        )

        return authorization_to_evaluate
