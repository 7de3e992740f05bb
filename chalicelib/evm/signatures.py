"""The one conversion of a signer's 65-byte signature to the form Ethereum tools take, and the recoveries of who
signed a personal message (EIP-191) or a 32-byte digest itself (an EIP-712 hash, an EIP-7702 authorization). Pure:
no I/O. eth_account is imported on use (it pulls in py_ecc's pairing tables: a third of the API function's cold
start)."""

from __future__ import annotations

from chalicelib.evm.transactions import SECP256K1_HALF_N, SECP256K1_N


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


def hash_signer(digest: bytes, signature: str) -> str | None:
    """The lower-case address whose key signed the 32-byte `digest` itself, as OpenZeppelin's ECDSA.recover accepts it
    (65 bytes, v 27 or 28, low s), or None for any other signature."""
    raw = bytes.fromhex(signature[2:]) if len(signature) == 132 and signature.startswith("0x") else b""
    if len(raw) != 65 or raw[64] not in (27, 28):
        return None
    signer = recovered(digest, raw[64] - 27, int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:64], "big"))
    return None if signer is None else signer.lower()


def recovered(digest: bytes, y_parity: int, r: int, s: int) -> str | None:
    """The checksummed address whose key made the signature (y_parity, r, s) of `digest`; None for one that is not
    canonical (high s) or recovers to no key."""
    from eth_keys.datatypes import Signature
    from eth_keys.exceptions import BadSignature

    if not (0 < r < SECP256K1_N and 0 < s <= SECP256K1_HALF_N) or y_parity not in (0, 1):
        return None
    try:
        return str(Signature(vrs=(y_parity, r, s)).recover_public_key_from_msg_hash(digest).to_checksum_address())
    except (BadSignature, ValueError):
        return None
