"""Creating tenants and resolving their credentials.

Client secrets are stored only as SHA-256 hashes. App secrets must be readable to
verify HMAC signatures, so they are stored encrypted under the `app-secrets` KMS
key with the app id in the encryption context (a ciphertext moved to another app's
item does not decrypt), and cached decrypted in memory for a short while.
"""

from __future__ import annotations

import uuid

from chalicelib.platform import aws
from chalicelib.platform.cache import TtlCache
from chalicelib.platform.clock import iso_now
from chalicelib.platform.secrets import digest, new_secret
from chalicelib.platform.settings import load_settings
from chalicelib.tenancy import store
from chalicelib.tenancy.models import App, Client, IssuedCredentials, Organization

CLIENT_SECRET_PREFIX = "dcs"
APP_SECRET_PREFIX = "das"

# app id -> (the app, its decrypted secret). Apps never change once created, so the record is cached with its
# secret: a signed request then makes no tenancy read while the entry is fresh.
_app_secret_cache: TtlCache[str, tuple[App, str]] = TtlCache("app-secrets", lambda: load_settings().app_secret_cache_s)
# SHA-256 of a client secret -> the client: a client and its secret never change either.
_client_cache: TtlCache[str, Client] = TtlCache("clients", lambda: load_settings().app_secret_cache_s)


class TenancyError(ValueError):
    """A referenced organization or client does not exist."""


def create_organization(name: str) -> Organization:
    org = Organization(organizationId=str(uuid.uuid4()), name=name, createdAt=iso_now())
    store.put_organization(org)
    return org


def create_client(organization_id: str, name: str) -> tuple[Client, str]:
    if store.get_organization(organization_id) is None:
        raise TenancyError(f"organization {organization_id} does not exist")
    secret = new_secret(CLIENT_SECRET_PREFIX)
    client = Client(clientId=str(uuid.uuid4()), organizationId=organization_id, name=name, createdAt=iso_now())
    store.put_client(client, digest(secret))
    return client, secret


def create_app(client_id: str, name: str) -> tuple[App, str]:
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
    ciphertext = aws.client("kms").encrypt(
        KeyId=aws.key_alias("app-secrets"),
        Plaintext=secret.encode(),
        EncryptionContext=_context(app.appId),
    )["CiphertextBlob"]
    store.put_app(app, ciphertext)
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


def client_for_secret(secret: str) -> Client | None:
    secret_hash = digest(secret)
    # Only secrets that exist are kept: nothing an unauthenticated caller sends can fill memory.
    return _client_cache.get_or_put(secret_hash, lambda: _client_of_hash(secret_hash))


def _client_of_hash(secret_hash: str) -> Client | None:
    client_id = store.client_id_for_secret_hash(secret_hash)
    return store.get_client(client_id) if client_id else None


def app_with_secret(app_id: str) -> tuple[App, str] | None:
    # Unknown ids are not cached: nothing an unauthenticated caller sends can fill memory.
    return _app_secret_cache.get_or_put(app_id, lambda: _read_app(app_id))


def _read_app(app_id: str) -> tuple[App, str] | None:
    found = store.get_app(app_id)
    if found is None:
        return None
    app, ciphertext = found
    secret = (
        aws.client("kms")
        .decrypt(CiphertextBlob=ciphertext, EncryptionContext=_context(app_id), KeyId=aws.key_alias("app-secrets"))[
            "Plaintext"
        ]
        .decode()
    )
    return app, secret


def _context(app_id: str) -> dict[str, str]:
    return {"appId": app_id, "purpose": "app-request-signing"}
