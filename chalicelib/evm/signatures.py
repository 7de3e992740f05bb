"""The one conversion of a signer's 65-byte signature to the form Ethereum tools take. Pure: no I/O."""

from __future__ import annotations


def with_v27(signature: bytes) -> bytes:
    """r ‖ s ‖ recovery id (0/1, as the signers give it) as r ‖ s ‖ v with v 27/28: what eth_account, ethers, viem
    and contracts' ECDSA.recover take (a signature already in that form is returned as it is)."""
    if len(signature) != 65 or signature[64] not in (0, 1, 27, 28):
        raise ValueError("not a 65-byte signature with a recovery id")
    return signature[:64] + bytes([signature[64] % 27 + 27])
