"""Family S request signatures (docs/authentication.md):

    X-SIGNATURE = hex(HMAC-SHA256(app secret, X-TIMESTAMP "." METHOD "." path_with_query "." raw body))

`path_with_query` is the service path (no API Gateway stage prefix) with the query in canonical form: names in
order of first appearance with each name's values together, RFC 3986 percent-encoding (only `A-Z a-z 0-9 - _ . ~`
left as they are). The query is sent in that same form, so what is signed is what arrives.
"""

from __future__ import annotations

import hashlib
import hmac
from datetime import UTC, datetime
from urllib.parse import quote, unquote


def canonical_query(query: str) -> str:
    grouped: dict[str, list[str]] = {}
    for pair in filter(None, query.split("&")):
        name, _, value = pair.partition("=")
        grouped.setdefault(unquote(name), []).append(unquote(value))
    pairs = [(name, value) for name, values in grouped.items() for value in values]
    return "&".join(f"{quote(name, safe='-_.~')}={quote(value, safe='-_.~')}" for name, value in pairs)


def timestamp() -> str:
    """Now, RFC 3339 UTC with microseconds: two identical writes signed in one millisecond still differ."""
    return datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def sign(app_secret: str, timestamp: str, method: str, path_with_query: str, body: bytes) -> str:
    message = b".".join([timestamp.encode(), method.upper().encode(), path_with_query.encode(), body])
    return hmac.new(app_secret.encode(), message, hashlib.sha256).hexdigest()


def signature_headers(
    app_id: str, app_secret: str, method: str, path_with_query: str, body: bytes, at: str | None = None
) -> dict[str, str]:
    at = at or timestamp()
    return {"X-APP-ID": app_id, "X-TIMESTAMP": at, "X-SIGNATURE": sign(app_secret, at, method, path_with_query, body)}
