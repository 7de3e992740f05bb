"""The Ed25519 key set that signs the service's JWTs.

It lives in Secrets Manager (`dompet/<stage>/jwt-signing-keys`) as
`{"keys": [{"kid", "privateKey" (base64url raw 32 bytes), "createdAt" (epoch s)}]}`.
The newest key signs; older keys stay published in the JWKS until every token
they signed has expired (MAX_TOKEN_LIFETIME_S after they stopped signing).
Only the scheduled `rotate_signing_keys` function writes the secret; the API reads
it and caches it for a few minutes.
"""

from __future__ import annotations

import base64
import itertools
import json
import secrets
import time
from dataclasses import dataclass
from typing import Any

from chalicelib.platform import aws
from chalicelib.platform.cache import TtlCache
from chalicelib.platform.clock import epoch
from chalicelib.platform.logging import logger
from chalicelib.platform.settings import load_settings

SECRET = "jwt-signing-keys"
MAX_TOKEN_LIFETIME_S = 30 * 86_400  # no JWT the service issues lives longer
CACHE_S = 300


class SigningKeysMissingError(RuntimeError):
    """The key set was never initialised: run rotate_signing_keys once."""


@dataclass(frozen=True)
class SigningKey:
    kid: str
    private_bytes: bytes
    created_at: int

    def private_key(self) -> Any:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        return Ed25519PrivateKey.from_private_bytes(self.private_bytes)

    def public_key(self) -> Any:
        return self.private_key().public_key()

    def jwk(self) -> dict[str, str]:
        from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

        raw = self.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        return {"kty": "OKP", "crv": "Ed25519", "alg": "EdDSA", "use": "sig", "kid": self.kid, "x": _b64(raw)}


@dataclass(frozen=True)
class KeySet:
    keys: tuple[SigningKey, ...]  # newest first

    def current(self) -> SigningKey:
        if not self.keys:
            raise SigningKeysMissingError("no JWT signing key: run the rotate_signing_keys function once")
        return self.keys[0]

    def find(self, kid: str) -> SigningKey | None:
        return next((key for key in self.keys if key.kid == kid), None)

    def jwks(self) -> dict[str, list[dict[str, str]]]:
        return {"keys": [key.jwk() for key in self.keys]}


UNKNOWN_KID_REFRESH_S = 30
_key_set: TtlCache[str, KeySet] = TtlCache("jwt-signing-keys", CACHE_S, max_entries=1)
# Present while an unknown kid's re-read is recent: a stream of forged kids re-reads at most every 30 s.
_refreshed: TtlCache[str, bool] = TtlCache("jwt-unknown-kid-refresh", UNKNOWN_KID_REFRESH_S, max_entries=1)


def load(refresh: bool = False) -> KeySet:
    cached = None if refresh else _key_set.get(SECRET)
    return cached if cached is not None else _key_set.put(SECRET, _read())


def find(kid: str) -> SigningKey | None:
    """The key with this kid; an unknown kid re-reads the secret (a rotation elsewhere), at most every 30 s."""
    key = load().find(kid)
    if key is None and SECRET not in _refreshed:
        _refreshed.put(SECRET, True)
        key = load(refresh=True).find(kid)
    return key


def forget() -> None:
    _key_set.clear()
    _refreshed.clear()


def rotate(now: int | None = None) -> KeySet:
    """Add a key when the current one is older than the rotation period; drop keys past their grace."""
    now = epoch() if now is None else now
    keys = list(_read().keys)
    period = load_settings().signing_key_rotation_days * 86_400
    added = not keys or now - keys[0].created_at >= period
    if added:
        keys.insert(0, SigningKey(kid=_new_kid(now), private_bytes=secrets.token_bytes(32), created_at=now))
        logger.info("jwt signing key added", extra={"kid": keys[0].kid})
    # keys[i] stopped signing when keys[i-1] was created.
    kept = keys[:1] + [key for newer, key in itertools.pairwise(keys) if now - newer.created_at < MAX_TOKEN_LIFETIME_S]
    for dropped in keys[len(kept) :]:
        logger.info("jwt signing key retired", extra={"kid": dropped.kid})
    key_set = KeySet(tuple(kept))
    if added or len(kept) < len(keys):
        _write(key_set)
    forget()
    return key_set


def _read() -> KeySet:
    sm = aws.client("secretsmanager")
    try:
        raw = sm.get_secret_value(SecretId=aws.secret_id(SECRET))["SecretString"]
    except sm.exceptions.ResourceNotFoundException:
        return KeySet(())
    try:
        content = json.loads(raw)
    except ValueError:
        content = None
    if not isinstance(content, dict) or "keys" not in content:
        # A freshly created secret holds an initial value that is no key set ("{}" locally, a random
        # string from CDK); rotate() initialises it. A key set that exists but does not parse raises
        # instead of being overwritten, which would invalidate every token.
        return KeySet(())
    keys = [SigningKey(e["kid"], _unb64(e["privateKey"]), int(e["createdAt"])) for e in content["keys"]]
    return KeySet(tuple(sorted(keys, key=lambda k: k.created_at, reverse=True)))


def _write(key_set: KeySet) -> None:
    body = {
        "keys": [{"kid": k.kid, "privateKey": _b64(k.private_bytes), "createdAt": k.created_at} for k in key_set.keys]
    }
    aws.client("secretsmanager").put_secret_value(SecretId=aws.secret_id(SECRET), SecretString=json.dumps(body))


def _new_kid(now: int) -> str:
    return f"{time.strftime('%Y%m%d', time.gmtime(now))}-{secrets.token_hex(4)}"


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
