"""Verifying a webhook delivery (docs/webhooks.md, "Verifying a delivery").

Each delivery is `POST <url>` with the raw JSON event and `X-Service-Event-Id`, `X-Service-Timestamp` (Unix
seconds), `X-Service-Signature` (base64 Ed25519 over `{id}.{timestamp}.{raw body}`) and `X-Service-Key-Id`.
`verify` checks the signature over the body exactly as received, the timestamp window (5 minutes either way by
default) and that the body's `id` is the header's, and returns the event. Deduplicate by its `id`.
"""

from __future__ import annotations

import base64
import binascii
import json
import time
from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from dompet.errors import WebhookVerificationError

TOLERANCE_S = 300


class _Headers(Protocol):
    def items(self) -> Iterable[tuple[str, str]]: ...


PublicKey = str | bytes | Ed25519PublicKey | Mapping[str, Any]


def _key(value: str | bytes | Ed25519PublicKey) -> Ed25519PublicKey:
    if isinstance(value, Ed25519PublicKey):
        return value
    try:
        raw = value if isinstance(value, bytes) and len(value) == 32 else base64.b64decode(value, validate=True)
        return Ed25519PublicKey.from_public_bytes(raw)
    except (binascii.Error, ValueError) as exc:
        raise WebhookVerificationError("the public key is not a base64 Ed25519 key of 32 bytes") from exc


def _keys(public_key: PublicKey, key_id: str | None) -> list[Ed25519PublicKey]:
    """The candidate keys. A mapping is either the answer of GET /api/v1/webhooks/public-key
    (`{publicKey, keyId, previous: [{publicKey, keyId}]}`: the key named by X-Service-Key-Id, current or previous)
    or `{keyId: publicKey}`."""
    if not isinstance(public_key, Mapping):
        return [_key(public_key)]
    if "publicKey" in public_key:
        entries = [public_key, *public_key.get("previous", [])]
        by_id = {str(e.get("keyId")): e["publicKey"] for e in entries}
    else:
        by_id = {str(k): v for k, v in public_key.items()}
    if key_id is not None:
        if key_id not in by_id:
            raise WebhookVerificationError(f"unknown key id {key_id!r}: fetch the public key again")
        return [_key(by_id[key_id])]
    return [_key(v) for v in by_id.values()]


def verify(
    body: bytes,
    headers: Mapping[str, str] | _Headers,
    public_key: PublicKey,
    *,
    tolerance_s: int = TOLERANCE_S,
    now: float | None = None,
) -> dict[str, Any]:
    """The event of a genuine delivery; raises WebhookVerificationError otherwise.

    `body`: the raw request body, before any JSON parsing. `headers`: the request's headers (any mapping or
    object with items(), names in any case). `public_key`: the app's key (base64 string or 32 raw bytes), or the
    `data` of GET /api/v1/webhooks/public-key (so a delivery signed by a previous key still verifies)."""
    if not isinstance(body, bytes | bytearray):
        raise TypeError("body must be the raw bytes as received")
    named = {str(k).lower(): str(v) for k, v in headers.items()}
    missing = [h for h in ("x-service-event-id", "x-service-timestamp", "x-service-signature") if not named.get(h)]
    if missing:
        raise WebhookVerificationError(f"missing header(s): {', '.join(missing)}")
    event_id, stamp = named["x-service-event-id"], named["x-service-timestamp"]
    if not stamp.isdigit():
        raise WebhookVerificationError("X-Service-Timestamp is not Unix seconds")
    if abs((time.time() if now is None else now) - int(stamp)) > tolerance_s:
        raise WebhookVerificationError(f"X-Service-Timestamp is more than {tolerance_s} s from now")
    try:
        signature = base64.b64decode(named["x-service-signature"], validate=True)
    except binascii.Error as exc:
        raise WebhookVerificationError("X-Service-Signature is not base64") from exc
    signed = f"{event_id}.{stamp}.".encode() + bytes(body)
    for key in _keys(public_key, named.get("x-service-key-id")):
        try:
            key.verify(signature, signed)
            break
        except InvalidSignature:
            continue
    else:
        raise WebhookVerificationError("the signature does not match")
    try:
        event = json.loads(body)
    except ValueError as exc:
        raise WebhookVerificationError("the body is not JSON") from exc
    if not isinstance(event, dict) or event.get("id") != event_id:
        raise WebhookVerificationError("the body's id is not X-Service-Event-Id")
    return event


def is_valid(body: bytes, headers: Mapping[str, str] | _Headers, public_key: PublicKey, **kwargs: Any) -> bool:
    try:
        verify(body, headers, public_key, **kwargs)
    except WebhookVerificationError:
        return False
    return True
