"""Signing an app's signing policy with its policy key (docs/policies.md, "Setting up: the policy key").

The policy key is an Ed25519 key that only the integrator holds; the operator registers its public half. A policy is
signed over the RFC 8785 (JCS) canonical JSON of `{"appId": <app>, "policy": <document>}`, so the signature sets that
document on that app only, even where one key is registered for several apps. A rotation is signed by the current
key over `{"action": "rotate-policy-key", "appId", "publicKey", "sequence"}`.

    key = dompet.policies.load_key(seed_b64)                 # or an Ed25519PrivateKey
    body = dompet.policies.sign_policy(app_id, {"version": 2, "default": "deny"}, key)
    d.request("PUT", "/api/v1/policies", body)
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from typing import Any

import rfc8785
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

__all__ = ["load_key", "public_key", "sign_key_rotation", "sign_policy"]

ROTATE_ACTION = "rotate-policy-key"


def load_key(seed: str | bytes) -> Ed25519PrivateKey:
    """The key of a 32-byte Ed25519 seed, raw or base64 (what docs/examples/sign_policy.py `new-key` prints)."""
    try:
        raw = seed if isinstance(seed, bytes) and len(seed) == 32 else base64.b64decode(seed.strip(), validate=True)
        return Ed25519PrivateKey.from_private_bytes(raw)
    except (binascii.Error, ValueError) as exc:
        raise ValueError("a policy key is the base64 of a 32-byte Ed25519 seed") from exc


def public_key(key: Ed25519PrivateKey) -> str:
    """The base64 public key the operator registers (`set-policy-key --public-key`)."""
    return base64.b64encode(key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)).decode()


def _sign(key: Ed25519PrivateKey, message: Any) -> str:
    # The canonical bytes, not any formatting of the caller's: key order, spacing and escapes are fixed by JCS.
    return base64.b64encode(key.sign(rfc8785.dumps(message))).decode()


def sign_policy(app_id: str, policy: Mapping[str, Any], key: Ed25519PrivateKey) -> dict[str, Any]:
    """The body of `PUT /api/v1/policies` that sets `policy` on the app `app_id` (and on no other app)."""
    document = dict(policy)
    return {"policy": document, "signature": _sign(key, {"appId": app_id, "policy": document})}


def sign_key_rotation(app_id: str, new_public_key: str, sequence: int, key: Ed25519PrivateKey) -> dict[str, Any]:
    """The body of `PUT /api/v1/policies/key`: the CURRENT key approves `new_public_key` (base64) as the app's key
    number `sequence` (the current key's sequence + 1; the operator's registration is 1)."""
    message = {"action": ROTATE_ACTION, "appId": app_id, "publicKey": new_public_key, "sequence": sequence}
    return {"publicKey": new_public_key, "signature": _sign(key, message)}
