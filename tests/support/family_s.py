"""Family S calls through the Chalice test client: HMAC-signed as an app's backend signs them."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from tests.support.scripts import dompet_sign

OWNER = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"


def call(api, tenant, method, path, body=None):
    raw = json.dumps(body).encode() if body is not None else b""
    # Microseconds: identical requests signed in the same millisecond by parallel test threads would be replays.
    timestamp = datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")
    headers = dompet_sign.signed_headers(
        tenant.appId, tenant.appSecret, method, f"http://x{path}", raw, timestamp=timestamp
    )
    if body is not None:
        headers["Content-Type"] = "application/json"
    return getattr(api, method.lower())(path, headers=headers, **({"body": raw} if body is not None else {}))


def create(api, tenant, owner=OWNER, provider="wallet"):
    return call(api, tenant, "POST", "/api/v1/smart-account", {"owner": {"id": owner, "provider": provider}})
