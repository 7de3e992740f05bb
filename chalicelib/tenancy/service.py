"""Creating tenants, rotating their secrets, and resolving their credentials.

Client secrets are stored only as SHA-256 hashes. App secrets must be readable to
verify HMAC signatures, so they are stored encrypted under the `app-secrets` KMS
key with the app id in the encryption context (a ciphertext moved to another app's
item does not decrypt), and cached decrypted in memory for a short while.

A rotated secret keeps working for `DOMPET_SECRET_OVERLAP_S` beside the new one, so an integrator can deploy
the new secret without a moment in which neither works (docs/console.md).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from typing import Any

from chalicelib.platform import aws, clock
from chalicelib.platform.cache import TtlCache
from chalicelib.platform.clock import iso_now
from chalicelib.platform.secrets import digest, new_secret
from chalicelib.platform.settings import load_settings
from chalicelib.tenancy import store
from chalicelib.tenancy.models import App, AppSecrets, Client, ClientMatch, IssuedCredentials, Organization
from chalicelib.tenancy.store import Appended

CLIENT_SECRET_PREFIX = "dcs"
APP_SECRET_PREFIX = "das"

# app id -> the app with its decrypted secrets. A signed request then makes no tenancy read while the entry is
# fresh; a request signed with neither cached secret reads the app again (at most once per REREAD_S), so a
# rotation made by another function is seen at once.
_app_secret_cache: TtlCache[str, AppSecrets] = TtlCache("app-secrets", lambda: load_settings().app_secret_cache_s)
REREAD_S = 10.0
_reread: TtlCache[str, bool] = TtlCache("app-secret-rereads", REREAD_S)
# SHA-256 of a client secret -> the client and until when that secret is accepted.
_client_cache: TtlCache[str, ClientMatch] = TtlCache("clients", lambda: load_settings().app_secret_cache_s)


class TenancyError(ValueError):
    """A referenced organization or client does not exist, or a change lost a race."""


def create_organization(name: str) -> Organization:
    org = Organization(organizationId=str(uuid.uuid4()), name=name, createdAt=iso_now())
    store.put_organization(org)
    return org


def create_client(
    organization_id: str, name: str, also: Callable[[Client], Sequence[Appended]] | None = None
) -> tuple[Client, str]:
    """`also`: records to append in the same transaction, made from the new client."""
    if store.get_organization(organization_id) is None:
        raise TenancyError(f"organization {organization_id} does not exist")
    secret = new_secret(CLIENT_SECRET_PREFIX)
    client = Client(clientId=str(uuid.uuid4()), organizationId=organization_id, name=name, createdAt=iso_now())
    store.put_client(client, digest(secret), also(client) if also else ())
    return client, secret


def create_app(client_id: str, name: str, also: Callable[[App], Sequence[Appended]] | None = None) -> tuple[App, str]:
    """`also`: records to append in the same transaction, made from the new app."""
    client = store.get_client(client_id)
    if client is None:
        raise TenancyError(f"client {client_id} does not exist")
    secret = new_secret(APP_SECRET_PREFIX)
    app = App(
        appId=str(uuid.uuid4()),
        clientId=client.clientId,
        organizationId=client.organizationId,
        name=name,
        createdAt=iso_now(),
    )
    store.put_app(app, _encrypt(app.appId, secret), also(app) if also else ())
    return app, secret


def create_tenant(name: str) -> IssuedCredentials:
    """An organization with one client and one app, for onboarding and the local demo."""
    org = create_organization(name)
    client, client_secret = create_client(org.organizationId, f"{name} client")
    app, app_secret = create_app(client.clientId, f"{name} app")
    return IssuedCredentials(
        organizationId=org.organizationId,
        clientId=client.clientId,
        clientSecret=client_secret,
        appId=app.appId,
        appSecret=app_secret,
    )


def rotate_app_secret(app_id: str, also: Sequence[Appended] = ()) -> tuple[App, str]:
    """A new secret for the app; the current one stays accepted for the overlap window. Returns the app and the
    new secret (shown once)."""
    found = store.get_app(app_id)
    if found is None:
        raise TenancyError(f"app {app_id} does not exist")
    app, replaced = found
    secret = new_secret(APP_SECRET_PREFIX)
    at = iso_now()
    try:
        store.rotate_app_secret(app_id, replaced, _encrypt(app_id, secret), _overlap_end(), at, also)
    except aws.TransactionCancelledError:
        raise TenancyError("the app's secret changed meanwhile; rotate it again") from None
    _app_secret_cache.pop(app_id)
    return app.model_copy(update={"secretRotatedAt": at}), secret


def rotate_client_secret(client_id: str, also: Sequence[Appended] = ()) -> tuple[Client, str]:
    """A new secret for the client; the current one stays accepted for the overlap window."""
    item = store.get_client_item(client_id)
    if item is None:
        raise TenancyError(f"client {client_id} does not exist")
    secret = new_secret(CLIENT_SECRET_PREFIX)
    at = iso_now()
    try:
        store.rotate_client_secret(item, digest(secret), _overlap_end(), at, also)
    except aws.TransactionCancelledError:
        raise TenancyError("the client's secret changed meanwhile; rotate it again") from None
    _client_cache.clear()  # entries are keyed by secret hash: the replaced one's lifetime changed
    return store.client_of(item).model_copy(update={"secretRotatedAt": at}), secret


def set_app_disabled(app_id: str, disabled: bool, also: Sequence[Appended] = ()) -> App:
    """A disabled app's signed requests are refused (within DOMPET_APP_SECRET_CACHE_S on other warm functions)."""
    found = store.get_app(app_id)
    if found is None:
        raise TenancyError(f"app {app_id} does not exist")
    at = iso_now() if disabled else None
    store.set_app_disabled(app_id, at, also)
    _app_secret_cache.pop(app_id)
    return found[0].model_copy(update={"disabledAt": at})


def _overlap_end() -> int:
    return clock.epoch() + load_settings().secret_overlap_s


def client_for_secret(secret: str) -> Client | None:
    secret_hash = digest(secret)
    # Only secrets that exist are kept: nothing an unauthenticated caller sends can fill memory.
    match = _client_cache.get_or_put(secret_hash, lambda: _client_of_hash(secret_hash))
    if match is None or (match.valid_until is not None and clock.epoch() >= match.valid_until):
        return None
    return match.client


def _client_of_hash(secret_hash: str) -> ClientMatch | None:
    client_id = store.client_id_for_secret_hash(secret_hash)
    item = store.get_client_item(client_id) if client_id else None
    if item is None:
        return None
    current = item.get("secretHash")
    if current is None or current == secret_hash:  # (a client made before hashes were kept has one secret)
        return ClientMatch(store.client_of(item))
    previous = item.get("previousSecretHash")
    if previous in (secret_hash, ""):  # "": the secret replaced was made before hashes were kept
        return ClientMatch(store.client_of(item), int(item["previousUntil"]))
    return None  # a secret replaced two rotations ago


def app_with_secret(app_id: str) -> AppSecrets | None:
    # Unknown ids are not cached: nothing an unauthenticated caller sends can fill memory.
    return _app_secret_cache.get_or_put(app_id, lambda: _read_app(app_id))


def app_read_again(app_id: str) -> AppSecrets | None:
    """The app as stored now when its cached entry is older than REREAD_S (a rotation or a change made
    elsewhere); None when it was read again less than REREAD_S ago (a wrong signature costs no KMS call)."""
    if _reread.get(app_id):
        return None
    _reread.put(app_id, True)
    _app_secret_cache.pop(app_id)
    return app_with_secret(app_id)


def _read_app(app_id: str) -> AppSecrets | None:
    item = store.get_app_item(app_id)
    if item is None:
        return None
    previous = item.get("previousEncryptedSecret")
    until = int(item["previousUntil"]) if "previousUntil" in item else None
    keep_previous = previous is not None and until is not None and clock.epoch() < until
    return AppSecrets(
        app=store.app_of(item),
        secret=_decrypt(app_id, bytes(item["encryptedSecret"])),
        previous=_decrypt(app_id, bytes(previous)) if keep_previous and previous is not None else None,
        previous_until=until if keep_previous else None,
    )


def _encrypt(app_id: str, secret: str) -> bytes:
    blob: bytes = aws.client("kms").encrypt(
        KeyId=aws.key_alias("app-secrets"), Plaintext=secret.encode(), EncryptionContext=_context(app_id)
    )["CiphertextBlob"]
    return blob


def _decrypt(app_id: str, ciphertext: bytes) -> str:
    plain: Any = aws.client("kms").decrypt(
        CiphertextBlob=ciphertext, EncryptionContext=_context(app_id), KeyId=aws.key_alias("app-secrets")
    )["Plaintext"]
    return bytes(plain).decode()


def _context(app_id: str) -> dict[str, str]:
    return {"appId": app_id, "purpose": "app-request-signing"}
