"""Family S: HMAC-SHA256 request signatures (see docs/authentication.md).

    X-SIGNATURE = hex(HMAC-SHA256(app secret, X-TIMESTAMP "." METHOD "." path_with_query "." raw body))

Checks, in order: headers present, timestamp parseable, within the window, app
known, signature matches (constant time) under the app's secret or, for the overlap
after a rotation, the secret it replaced; the app not disabled; and for
POST/PUT/DELETE the signature not seen before within the window (a conditional
write, so two concurrent replays cannot both pass).
"""

from __future__ import annotations

import hashlib
import hmac
import re
from datetime import UTC, datetime

from chalice.app import Request

from chalicelib.platform import aws
from chalicelib.platform.clock import epoch
from chalicelib.platform.errors import forbidden, unauthorized
from chalicelib.platform.router import path_with_query, raw_body_bytes
from chalicelib.platform.settings import load_settings
from chalicelib.tenancy import service as tenancy
from chalicelib.tenancy.models import App, AppSecrets

MISSING_SIGNATURE_HEADERS = "MISSING_SIGNATURE_HEADERS"
INVALID_TIMESTAMP = "INVALID_TIMESTAMP"
STALE_TIMESTAMP = "STALE_TIMESTAMP"
UNKNOWN_APP = "UNKNOWN_APP"
INVALID_SIGNATURE = "INVALID_SIGNATURE"
REPLAYED_REQUEST = "REPLAYED_REQUEST"
APP_DISABLED = "APP_DISABLED"

HEADERS = ("X-APP-ID", "X-TIMESTAMP", "X-SIGNATURE")
_SIGNATURE = re.compile(r"[0-9a-fA-F]{64}")
_APP_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
REPLAY_PROTECTED = frozenset({"POST", "PUT", "DELETE", "PATCH"})


def string_to_sign(timestamp: str, method: str, path_and_query: str, body: bytes) -> bytes:
    return b".".join([timestamp.encode(), method.upper().encode(), path_and_query.encode(), body])


def sign(secret: str, timestamp: str, method: str, path_and_query: str, body: bytes) -> str:
    return hmac.new(
        secret.encode(), string_to_sign(timestamp, method, path_and_query, body), hashlib.sha256
    ).hexdigest()


# RFC 3339 `date-time` exactly (section 5.6): "T"/"Z" in either case, optional fraction, offset required.
_RFC3339 = re.compile(r"\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})")


def parse_timestamp(value: str) -> datetime:
    """An RFC 3339 date-time with its offset; anything else (dates alone, basic format, no offset,
    a space for "T") is refused. Fractions of a second are kept, so two requests in one second differ."""
    if not _RFC3339.fullmatch(value):
        raise ValueError("not an RFC 3339 date-time")
    normal = value.upper()
    whole, _, rest = normal.partition(".")
    if rest:  # Python reads at most 6 fraction digits
        digits = re.match(r"\d+", rest)
        fraction = digits.group(0) if digits else ""
        normal = f"{whole}.{fraction[:6].ljust(6, '0')}{rest[len(fraction) :]}"
    return datetime.fromisoformat(normal.replace("Z", "+00:00")).astimezone(UTC)


def verify(request: Request) -> App:
    missing = [name for name in HEADERS if not request.headers.get(name)]
    if missing:
        raise unauthorized(MISSING_SIGNATURE_HEADERS, "Missing request signature headers", missing=missing)
    app_id, timestamp, signature = (request.headers[name] for name in HEADERS)
    try:
        signed_at = parse_timestamp(timestamp)
    except (ValueError, OverflowError):
        raise unauthorized(INVALID_TIMESTAMP, "X-TIMESTAMP must be an RFC 3339 time with offset") from None
    window = load_settings().signature_window_s
    if abs(epoch() - signed_at.timestamp()) > window:
        raise unauthorized(STALE_TIMESTAMP, f"X-TIMESTAMP is more than {window} seconds from server time")
    # Checked before any lookup: a malformed id or signature never reaches DynamoDB or compare_digest.
    signature = signature.strip().lower()
    found = tenancy.app_with_secret(app_id) if _APP_ID.fullmatch(app_id) else None
    if found is None:
        raise unauthorized(UNKNOWN_APP, "Unknown app id")
    if not _SIGNATURE.fullmatch(signature):
        raise unauthorized(INVALID_SIGNATURE, "Request signature does not match")
    message = (timestamp, request.method, path_with_query(request), raw_body_bytes(request))
    matched = _matching(found, signature, message)
    if matched is None:  # a secret rotated (or an app disabled) by another function since this one cached it
        fresh = tenancy.app_read_again(app_id)
        matched = _matching(fresh, signature, message) if fresh is not None else None
        found = fresh or found
    if matched is None:
        raise unauthorized(INVALID_SIGNATURE, "Request signature does not match")
    if found.app.disabledAt is not None:
        raise forbidden(APP_DISABLED, "This app is disabled; an admin of its organization can enable it again")
    if request.method.upper() in REPLAY_PROTECTED:
        _remember(app_id, matched, int(signed_at.timestamp()) + window)
    return found.app


def _matching(found: AppSecrets, signature: str, message: tuple[str, str, str, bytes]) -> str | None:
    """The expected signature under whichever accepted secret of the app matches `signature` (constant time
    for each), else None."""
    for secret in found.accepted(epoch()):
        expected = sign(secret, *message)
        if hmac.compare_digest(expected, signature):
            return expected
    return None


def _remember(app_id: str, signature: str, valid_until: int) -> None:
    try:
        aws.write(
            aws.put(
                "signature",
                "auth-state",
                {"pk": f"SIG#{app_id}#{signature}", "sk": "STATE", "expiresAt": valid_until + 60},
            )
        )
    except aws.ConditionFailedError:
        raise unauthorized(REPLAYED_REQUEST, "This signed request was already used") from None
