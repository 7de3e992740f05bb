"""The one conversion of a signer's 65-byte signature to the form Ethereum tools take, and the one recovery of who
signed a personal message (EIP-191). Pure: no I/O. eth_account is imported on use (it pulls in py_ecc's pairing
tables: a third of the API function's cold start)."""

from __future__ import annotations


def with_v27(signature: bytes) -> bytes:
    """r ‖ s ‖ recovery id (0/1, as the signers give it) as r ‖ s ‖ v with v 27/28: what eth_account, ethers, viem
    and contracts' ECDSA.recover take (a signature already in that form is returned as it is)."""
    if len(signature) != 65 or signature[64] not in (0, 1, 27, 28):
        raise ValueError("not a 65-byte signature with a recovery id")
    return signature[:64] + bytes([signature[64] % 27 + 27])


def personal_signer(message: str | bytes, signature: str) -> str | None:
    """The lower-case address that signed `message` (EIP-191 `personal_sign`: text, or the bytes themselves), or
    None for a signature that recovers to nothing."""
    from eth_account import Account
    from eth_account.messages import encode_defunct

    signable = encode_defunct(text=message) if isinstance(message, str) else encode_defunct(primitive=message)
    try:
        return str(Account.recover_message(signable, signature=signature)).lower()
    except Exception:  # noqa: BLE001 - a malformed signature simply is nobody's
        return None
