"""Verify a Dompet webhook delivery (receivers can copy this file; needs PyNaCl).

    from dompet_webhook_verify import verify
    ok = verify(public_key_b64, headers["X-Service-Event-Id"], headers["X-Service-Timestamp"],
                raw_body_bytes, headers["X-Service-Signature"])

The signature is Ed25519 over `{id}.{timestamp}.{raw body}`; the public key comes from
`GET /api/v1/webhooks/public-key`. Also check that the event id inside the body equals
the header, and deduplicate by id: delivery is at least once.
"""

from __future__ import annotations

import base64
import binascii
import time

MAX_AGE_S = 300


def verify(
    public_key_b64: str,
    event_id: str,
    timestamp: str,
    raw_body: bytes,
    signature_b64: str,
    now: float | None = None,
    max_age_s: int = MAX_AGE_S,
) -> bool:
    from nacl.exceptions import BadSignatureError
    from nacl.signing import VerifyKey

    try:
        sent_at = int(timestamp)
        key = VerifyKey(base64.b64decode(public_key_b64, validate=True))
        signature = base64.b64decode(signature_b64, validate=True)
    except (ValueError, binascii.Error):
        return False
    if abs((time.time() if now is None else now) - sent_at) > max_age_s:
        return False  # an old delivery replayed by someone who captured it
    try:
        key.verify(f"{event_id}.{timestamp}.".encode() + raw_body, signature)
    except BadSignatureError:
        return False
    return True
