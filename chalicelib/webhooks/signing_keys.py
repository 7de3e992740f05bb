"""Ed25519 keys that sign webhook deliveries, one key pair per app.

Secrets Manager (`dompet/<stage>/webhook-signing-keys`) holds the key material:
`{"keys": [{"kid", "seed" (base64, 32 random bytes), "createdAt" (epoch s)}]}`, newest
first. An app's private key is derived from the newest seed with HKDF-SHA256 (info
`dompet-webhook-key:<appId>`), so every app has its own key pair without a secret
per app, and a new app needs no write. The daily `rotate_signing_keys` schedule
adds a seed every ROTATION_S and keeps the previous ones for GRACE_S, during which
their public keys stay published (`previous` in GET /api/v1/webhooks/public-key).
"""

from __future__ import annotations

import base64
import itertools
import json
import secrets
import time
import uuid
from dataclasses import dataclass

from chalicelib.platform import aws, clock
from chalicelib.platform.cache import TtlCache
from chalicelib.platform.logging import logger

SECRET = "webhook-signing-keys"
ROTATION_S = 90 * 86_400
GRACE_S = 14 * 86_400
CACHE_S = 300


@dataclass(frozen=True)
class Seed:
    kid: str
    seed: bytes
    created_at: int


# The key set, read from Secrets Manager at most every CACHE_S seconds per warm function.
_SEEDS: TtlCache[str, list[Seed]] = TtlCache("webhook-signing-keys", CACHE_S, max_entries=1)


@dataclass(frozen=True)
class AppKey:
    key_id: str  # `<kid>`: the same for every app, so receivers can tell rotations apart
    private_seed: bytes

    def sign(self, message: bytes) -> bytes:
        from nacl.signing import SigningKey

        return bytes(SigningKey(self.private_seed).sign(message).signature)

    def public_key(self) -> bytes:
        from nacl.signing import SigningKey

        return bytes(SigningKey(self.private_seed).verify_key)


def app_key(app_id: str, seed: Seed | None = None) -> AppKey:
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    seed = seed or current()
    derived = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=f"dompet-webhook-key:{app_id}".encode())
    return AppKey(seed.kid, derived.derive(seed.seed))


class KeysNotInitialisedError(RuntimeError):
    """The key set was never written: the deployment's rotate_webhook_keys run is missing."""


def current() -> Seed:
    # Readers never write the secret: only rotate_webhook_keys does (at deployment and on its schedule), so
    # concurrent cold starts cannot race to create different keys, and readers need only a read grant.
    seeds = _load()
    if not seeds:
        forget()  # look again next time: the initialising run may just be finishing
        raise KeysNotInitialisedError("webhook signing keys are not initialised; run rotate_webhook_keys")
    return seeds[0]


def previous() -> list[Seed]:
    return _load()[1:]


def rotate(now: int | None = None) -> list[Seed]:
    now = clock.epoch() if now is None else now
    seeds, read_version = _read_versioned()
    changed = False
    if not seeds or now - seeds[0].created_at >= ROTATION_S:
        seeds.insert(
            0,
            Seed(
                f"whk-{time.strftime('%Y%m%d', time.gmtime(now))}-{secrets.token_hex(3)}", secrets.token_bytes(32), now
            ),
        )
        logger.info("webhook signing key added", extra={"kid": seeds[0].kid})
        changed = True
    kept = seeds[:1] + [s for newer, s in itertools.pairwise(seeds) if now - newer.created_at < GRACE_S]
    if changed or len(kept) < len(seeds):
        body = {
            "keys": [{"kid": s.kid, "seed": base64.b64encode(s.seed).decode(), "createdAt": s.created_at} for s in kept]
        }
        _write(json.dumps(body), read_version)
    forget()
    return _read() if changed else kept  # what is stored now, ours or a concurrent rotation's


def _write(secret: str, read_version: str | None) -> None:
    """Write the new key set unless another rotation wrote one since `read_version` was read.

    The request token is derived from the version this rotation read: two rotations of the same version
    send the same token, and Secrets Manager accepts only the first (the second, with other content, is
    refused), so concurrent runs cannot overwrite each other with different keys."""
    token = str(uuid.uuid5(uuid.NAMESPACE_URL, f"dompet-webhook-keys:{read_version}"))
    client = aws.client("secretsmanager")
    try:
        client.put_secret_value(SecretId=aws.secret_id(SECRET), SecretString=secret, ClientRequestToken=token)
    except (client.exceptions.ResourceExistsException, client.exceptions.InvalidRequestException):
        logger.info("webhook key set written by a concurrent rotation; keeping it")


def forget() -> None:
    _SEEDS.clear()


def _load() -> list[Seed]:
    cached = _SEEDS.get("seeds")
    return cached if cached is not None else _SEEDS.put("seeds", _read())


def _read() -> list[Seed]:
    return _read_versioned()[0]


def _read_versioned() -> tuple[list[Seed], str | None]:
    answer = aws.client("secretsmanager").get_secret_value(SecretId=aws.secret_id(SECRET))
    return _parse(answer["SecretString"]), answer.get("VersionId")


def _parse(raw: str) -> list[Seed]:
    try:
        content = json.loads(raw)
    except ValueError:
        content = None
    if not isinstance(content, dict) or "keys" not in content:
        return []  # the secret's initial value (CDK random string, "{}" locally): not initialised yet
    seeds = [Seed(e["kid"], base64.b64decode(e["seed"]), int(e["createdAt"])) for e in content["keys"]]
    return sorted(seeds, key=lambda s: s.created_at, reverse=True)
