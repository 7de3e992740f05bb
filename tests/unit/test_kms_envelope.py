from __future__ import annotations

import pytest
from botocore.exceptions import ClientError
from cryptography.exceptions import InvalidTag

from chalicelib.platform.kms_envelope import Sealed, open_sealed, seal

CONTEXT = {"walletId": "w-1", "party": "signer"}


def test_round_trip(aws_env):
    sealed = seal("app-secrets", b"share bytes", CONTEXT)
    assert b"share bytes" not in sealed.ciphertext and b"share bytes" not in sealed.encrypted_key
    assert open_sealed("app-secrets", Sealed.from_item(sealed.to_item()), CONTEXT) == b"share bytes"


def test_another_context_does_not_open(aws_env):
    sealed = seal("app-secrets", b"share bytes", CONTEXT)
    with pytest.raises(ClientError):
        open_sealed("app-secrets", sealed, {**CONTEXT, "walletId": "w-2"})


def test_tampering_is_detected(aws_env):
    sealed = seal("app-secrets", b"share bytes", CONTEXT)
    flipped = Sealed(sealed.encrypted_key, sealed.nonce, bytes([sealed.ciphertext[0] ^ 1]) + sealed.ciphertext[1:])
    with pytest.raises(InvalidTag):
        open_sealed("app-secrets", flipped, CONTEXT)
