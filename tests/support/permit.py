"""EIP-2612 permits of the local stack's test token (contracts/TestPermitToken.sol): the typed data a wallet
signs, read from the token itself, and the signature split the way `permit(...)` takes it."""

from __future__ import annotations

from typing import Any

from web3 import Web3
from web3.contract import Contract

from devtools import chain

PERMIT_TYPES = {
    "EIP712Domain": [
        {"name": "name", "type": "string"},
        {"name": "version", "type": "string"},
        {"name": "chainId", "type": "uint256"},
        {"name": "verifyingContract", "type": "address"},
    ],
    "Permit": [
        {"name": "owner", "type": "address"},
        {"name": "spender", "type": "address"},
        {"name": "value", "type": "uint256"},
        {"name": "nonce", "type": "uint256"},
        {"name": "deadline", "type": "uint256"},
    ],
}


def token(w3: Web3, address: str) -> Contract:
    return w3.eth.contract(address=Web3.to_checksum_address(address), abi=chain.load_artifact("TestPermitToken")["abi"])


def typed_data(permit_token: Contract, owner: str, spender: str, value: int, deadline: int) -> dict[str, Any]:
    """The eth_signTypedData_v4 document of a Permit: the domain and the owner's nonce as the token has them
    (OpenZeppelin's ERC20Permit: version "1")."""
    return {
        "types": PERMIT_TYPES,
        "primaryType": "Permit",
        "domain": {
            "name": permit_token.functions.name().call(),
            "version": "1",
            "chainId": permit_token.w3.eth.chain_id,
            "verifyingContract": permit_token.address,
        },
        "message": {
            "owner": owner,
            "spender": spender,
            "value": value,
            "nonce": permit_token.functions.nonces(owner).call(),
            "deadline": deadline,
        },
    }


def split(signature: str) -> tuple[int, bytes, bytes]:
    """(v, r, s) of a 0x-hex 65-byte r‖s‖v signature (v 27/28)."""
    raw = bytes.fromhex(signature.removeprefix("0x"))
    assert len(raw) == 65, signature
    return raw[64], raw[:32], raw[32:64]
