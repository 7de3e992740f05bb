"""A secp256k1 key in AWS KMS (key spec ECC_SECG_P256K1) that signs 32-byte digests; the private key never leaves it.

KMS answers a DER-encoded (r, s) ECDSA signature without a recovery id and with any `s`: the signature is
normalised to low `s` (EIP-2) and the recovery id found by recovering against the key's own address. Used
for the VerifyingPaymaster's signer (resources.py `paymaster-signer`).
"""

from __future__ import annotations

from chalicelib.platform import aws
from chalicelib.platform.cache import TtlCache

SECP256K1_N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141


class KmsSigner:
    def __init__(self, key_name: str) -> None:
        self.key_name = key_name

    @property
    def address(self) -> str:
        return _address(aws.key_alias(self.key_name))

    def sign_digest(self, digest: bytes) -> bytes:
        from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
        from eth_keys.datatypes import Signature

        if len(digest) != 32:
            raise ValueError("digest must be 32 bytes")
        der = aws.client("kms").sign(
            KeyId=aws.key_alias(self.key_name), Message=digest, MessageType="DIGEST", SigningAlgorithm="ECDSA_SHA_256"
        )["Signature"]
        r, s = decode_dss_signature(der)
        if s > SECP256K1_N // 2:
            s = SECP256K1_N - s
        for v in (0, 1):
            candidate = Signature(vrs=(v, r, s))
            if candidate.recover_public_key_from_msg_hash(digest).to_checksum_address() == self.address:
                return candidate.to_bytes()
        raise RuntimeError("KMS signature does not recover to the key's address")


# alias -> the key's address: it never changes (each fresh moto account in tests has new keys, so tests reset it).
_addresses: TtlCache[str, str] = TtlCache("kms-signer-addresses", None)


def _address(alias: str) -> str:
    found = _addresses.get(alias)
    return found if found is not None else _addresses.put(alias, _public_address(alias))


def _public_address(alias: str) -> str:
    """The key's Ethereum address from its public key (SubjectPublicKeyInfo DER)."""
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat, load_der_public_key
    from eth_keys.datatypes import PublicKey

    der = aws.client("kms").get_public_key(KeyId=alias)["PublicKey"]
    point = load_der_public_key(der).public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    return str(PublicKey(point[1:]).to_checksum_address())


def forget() -> None:
    """Tests: each fresh moto account has new keys under the same aliases."""
    _addresses.clear()
