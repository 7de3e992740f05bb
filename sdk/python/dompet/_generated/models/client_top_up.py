from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="ClientTopUp")


@_attrs_define
class ClientTopUp:
    """
    Attributes:
        tx_hash (str): The transaction that sent USDT to the pool.
        chain_id (int): The network it was sent on.
        token_address (str): That network's USDT.
        pool_address (str): That network's pool (GET /api/v1/networks).
        immediate (bool): true: checked now; false: checked about 20 s later.
        signature (str): EIP-191 personal_sign of the text `<chainId>.<txHash>` by the address that sent the USDT.
    """

    tx_hash: str
    chain_id: int
    token_address: str
    pool_address: str
    immediate: bool
    signature: str

    def to_dict(self) -> dict[str, Any]:
        tx_hash = self.tx_hash

        chain_id = self.chain_id

        token_address = self.token_address

        pool_address = self.pool_address

        immediate = self.immediate

        signature = self.signature

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "txHash": tx_hash,
                "chainId": chain_id,
                "tokenAddress": token_address,
                "poolAddress": pool_address,
                "immediate": immediate,
                "signature": signature,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        tx_hash = d.pop("txHash")

        chain_id = d.pop("chainId")

        token_address = d.pop("tokenAddress")

        pool_address = d.pop("poolAddress")

        immediate = d.pop("immediate")

        signature = d.pop("signature")

        client_top_up = cls(
            tx_hash=tx_hash,
            chain_id=chain_id,
            token_address=token_address,
            pool_address=pool_address,
            immediate=immediate,
            signature=signature,
        )

        return client_top_up
