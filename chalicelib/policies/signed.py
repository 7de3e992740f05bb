"""Signed policy documents: RFC 8785 canonical JSON and Ed25519 signatures by the app's policy key.

The integrator signs the canonical JSON (JCS) of `{"appId", "policy"}` with the document exactly as sent, so any
JSON library on their side yields the same bytes and a document signed for one app cannot be installed on another
app that shares the key; the cosigner verifies against the public key the operator registered. A key rotation is
signed by the current key over `rotation_message(...)`. Pure: no I/O.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from typing import Any

__all__ = [
    "INVALID_POLICY_KEY",
    "ROTATE_ACTION",
    "PolicyKeyError",
    "canonical",
    "key_id",
    "parse_public_key",
    "policy_message",
    "rotation_message",
    "verify",
]

INVALID_POLICY_KEY = "INVALID_POLICY_KEY"
ROTATE_ACTION = "rotate-policy-key"
_PUBLIC_KEY_BYTES = 32
_SIGNATURE_BYTES = 64


class PolicyKeyError(ValueError):
    def __init__(self, message: str, code: str = INVALID_POLICY_KEY) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def canonical(obj: Any) -> bytes:
    """The RFC 8785 (JCS) bytes of `obj`; ValueError (rfc8785.CanonicalizationError) for what JSON cannot carry
    exactly: an integer beyond 2**53 - 1, NaN or infinity, a lone surrogate, a key that is not a string."""
    import rfc8785

    return rfc8785.dumps(obj)


def verify(public_key: bytes, message: bytes, signature: bytes) -> bool:
    """True only for a valid Ed25519 signature of `message` by `public_key`; never raises on bad input."""
    from nacl.exceptions import BadSignatureError, CryptoError
    from nacl.signing import VerifyKey

    if len(public_key) != _PUBLIC_KEY_BYTES or len(signature) != _SIGNATURE_BYTES:
        return False
    try:
        VerifyKey(public_key).verify(message, signature)
    except (BadSignatureError, CryptoError, ValueError, TypeError):
        return False
    return True


def key_id(public_key: bytes) -> str:
    """A short stable name of a policy key, safe to show (a hash of the public key)."""
    return "pk_" + hashlib.sha256(public_key).hexdigest()[:16]


def parse_public_key(text: str) -> bytes:
    """The 32 bytes of a base64 Ed25519 public key; PolicyKeyError for anything else, including a point off the
    curve or of small order (nothing verifies against those: registering one would lock the app's policy)."""
    from nacl.bindings import crypto_sign_ed25519_pk_to_curve25519
    from nacl.exceptions import CryptoError

    if not isinstance(text, str) or not text.isascii():
        raise PolicyKeyError("a policy key is the base64 of a 32-byte Ed25519 public key")
    try:
        key = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise PolicyKeyError("a policy key is the base64 of a 32-byte Ed25519 public key") from None
    if len(key) != _PUBLIC_KEY_BYTES:
        raise PolicyKeyError(f"a policy key is 32 bytes (an Ed25519 public key), not {len(key)}")
    try:
        crypto_sign_ed25519_pk_to_curve25519(key)
    except CryptoError:
        raise PolicyKeyError("not a usable Ed25519 public key (not a point of the curve, or of small order)") from None
    return key


def rotation_message(app_id: str, public_key: str, sequence: int) -> bytes:
    """What the current key signs to replace itself by `public_key` (base64), the key's `sequence`-th."""
    return canonical({"action": ROTATE_ACTION, "appId": app_id, "publicKey": public_key, "sequence": sequence})


def policy_message(app_id: str, policy: Any) -> bytes:
    """What the app's policy key signs to set `policy` (the document as sent) on the app `app_id`, and no other."""
    return canonical({"appId": app_id, "policy": policy})
