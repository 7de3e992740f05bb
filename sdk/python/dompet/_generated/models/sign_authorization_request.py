from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="SignAuthorizationRequest")


@_attrs_define
class SignAuthorizationRequest:
    """An EIP-7702 authorization: the wallet lets `contractAddress`'s code run as its own account.

    Attributes:
        contract_address (str): The delegate: the contract whose code the wallet runs once the authorization is applied;
            the zero address revokes a delegation.
        secret (None | str | Unset): The wallet's secret0 from the user's device. Only operations that sign use it.
        network (None | str | Unset): Network name; required when chainId is empty.
        chain_id (None | str | Unset): The chain id as a decimal string, or "0": an authorization valid on any chain
            (then `nonce` is required and `network` is not given). Required when network is empty.
        nonce (int | None | Unset): The wallet's account nonce the authorization is valid at. Default: its current nonce
            on the chain (pending transactions included). A type-4 transaction the wallet itself sends needs its own nonce +
            1.
    """

    contract_address: str
    secret: None | str | Unset = UNSET
    network: None | str | Unset = UNSET
    chain_id: None | str | Unset = UNSET
    nonce: int | None | Unset = UNSET

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

        nonce: int | None | Unset
        if isinstance(self.nonce, Unset):
            nonce = UNSET
        else:
            nonce = self.nonce

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
        if nonce is not UNSET:
            field_dict["nonce"] = nonce

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

        def _parse_nonce(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        nonce = _parse_nonce(d.pop("nonce", UNSET))

        sign_authorization_request = cls(
            contract_address=contract_address,
            secret=secret,
            network=network,
            chain_id=chain_id,
            nonce=nonce,
        )

        return sign_authorization_request
