from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="DelegateRequest")


@_attrs_define
class DelegateRequest:
    """A set-code transaction from the wallet to itself carrying its own authorization of `contractAddress`.

    Attributes:
        contract_address (str): The delegate: the contract whose code the wallet runs from then on; the zero address
            revokes the wallet's delegation (its code is empty again).
        secret (None | str | Unset): The wallet's secret0 from the user's device. Only operations that sign use it.
        network (None | str | Unset): Network name; required when chainId is empty.
        chain_id (None | str | Unset): Chain id as a decimal string; required when network is empty.
    """

    contract_address: str
    secret: None | str | Unset = UNSET
    network: None | str | Unset = UNSET
    chain_id: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        contract_address = self.contract_address

        secret: None | str | Unset
        if isinstance(self.secret, Unset):
            secret = UNSET
        else:
            secret = self.secret

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

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "contractAddress": contract_address,
            }
        )
        if secret is not UNSET:
            field_dict["secret"] = secret
        if network is not UNSET:
            field_dict["network"] = network
        if chain_id is not UNSET:
            field_dict["chainId"] = chain_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        contract_address = d.pop("contractAddress")

        def _parse_secret(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        secret = _parse_secret(d.pop("secret", UNSET))

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

        delegate_request = cls(
            contract_address=contract_address,
            secret=secret,
            network=network,
            chain_id=chain_id,
        )

        return delegate_request
