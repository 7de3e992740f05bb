"""Reads of token contracts the send path checks before signing (ERC-721 ownership)."""

from __future__ import annotations

from chalicelib.evm import abi
from chalicelib.evm.rpc import RpcError, rpc_call
from chalicelib.platform.errors import UPSTREAM_UNAVAILABLE, ApiError
from chalicelib.platform.networks import Network

NOT_TOKEN_OWNER = "NOT_TOKEN_OWNER"


def owner_of(network: Network, token: str, token_id: int) -> str:
    """ERC-721 `ownerOf(tokenId)`, checksummed; 422 NOT_TOKEN_OWNER when the token or the contract is not one."""
    try:
        result = rpc_call(network, "eth_call", [{"to": token, "data": "0x" + abi.owner_of(token_id).hex()}, "latest"])
    except RpcError as exc:
        if exc.reverted:  # no such token, or not an ERC-721
            raise ApiError(422, NOT_TOKEN_OWNER, f"Token {token_id} of {token} does not exist") from None
        raise ApiError(502, UPSTREAM_UNAVAILABLE, f"The node of {network.name} failed the call") from None
    try:
        return abi.decode_address(abi.result_bytes(result))
    except ValueError:
        raise ApiError(422, NOT_TOKEN_OWNER, f"{token} is not an ERC-721 contract on {network.name}") from None
