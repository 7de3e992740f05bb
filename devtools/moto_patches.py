"""Where moto differs from AWS in a way the service depends on: patched in the tests and the local stack."""

from __future__ import annotations

import functools
import json


@functools.cache  # once per process
def kms_signs_digests() -> None:
    """moto ignores Sign's MessageType=DIGEST and hashes the message again; AWS KMS signs the digest as given
    (what an Ethereum signer needs). Same answer shape as moto's own."""
    import base64

    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec, utils
    from moto.kms.responses import KmsResponse

    sign = KmsResponse.sign

    def sign_digest(self):  # type: ignore[no-untyped-def]
        if self._get_param("MessageType") != "DIGEST":
            return sign(self)
        key = self.kms_backend.describe_key(self._get_param("KeyId"))
        digest: bytes = self._get_param("Message")  # moto decodes the wire's base64
        der = key.private_key.private_key.sign(digest, ec.ECDSA(utils.Prehashed(hashes.SHA256())))
        return json.dumps(
            {"KeyId": key.arn, "Signature": base64.b64encode(der).decode(), "SigningAlgorithm": "ECDSA_SHA_256"}
        )

    KmsResponse.sign = sign_digest  # type: ignore[method-assign]
