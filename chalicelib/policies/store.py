"""The cosigner's records of signing policies, in its own table `cosigner-policy` (only the cosigner function and
the operator's admin command write it; the API function cannot):

* `POLICYKEY#<appId>` / `KEY`: the app's policy key `{appId, clientId, publicKey (base64), keyId, sequence,
  registeredAt}`: registered by the operator (`register_policy_key`), replaced by a rotation the current key signs;
  its `clientId` is the app's client as the operator named it with the first key (and `tenancy` agreed), kept by
  every replacement and rotation: from then on it, not `tenancy` (which the API function writes), binds the app;
* `POLICIES#<clientId>` / `APPS`: the signed documents of every app of the client, ONE item (so that a signature's
  check reads them in the same batch as its other reads): `apps` maps each app id to `{appId, version, document (its
  canonical JSON text, exactly what was signed), signature, keyId, setAt}`, and `rev` counts the item's writes
  (each write is conditional on the revision it read);
* `WALLETCLIENT#<walletId>` / `CLIENT`: `{clientId}`, the client of a wallet the `wallets` signing policy governs,
  written with its share B (policies/cosigner_check.py).

A wallet's client and an app's client never change, so this process keeps them once read; policies and usage are
read afresh for every signature.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from chalicelib.mpc.cosigner_checks import COSIGNER_POLICY_TABLE
from chalicelib.platform import aws
from chalicelib.platform.cache import TtlCache
from chalicelib.platform.clock import iso_now
from chalicelib.policies import signed
from chalicelib.policies.document import PolicyDocument
from chalicelib.tenancy import store as tenancy

__all__ = [
    "TABLE",
    "AppClientError",
    "ClientPoliciesFullError",
    "PoliciesBusyError",
    "PolicyKey",
    "StaleVersionError",
    "StoredPolicy",
    "UnknownAppError",
    "app_client",
    "client_policies",
    "client_policies_key",
    "get_key",
    "get_policy",
    "key_key",
    "put_policy",
    "register_policy_key",
    "wallet_client",
    "wallet_client_item",
    "wallet_client_key",
]

TABLE = COSIGNER_POLICY_TABLE
MAX_CLIENT_POLICIES_BYTES = 300_000  # a DynamoDB item holds 400 KB: room for several 64 KiB documents

# Immutable facts: an app's client (apps never move) and a wallet's client (its mark is written once).
_APP_CLIENTS: TtlCache[str, str] = TtlCache("policy-app-clients", None, max_entries=4096)
_WALLET_CLIENTS: TtlCache[str, str] = TtlCache("policy-wallet-clients", None, max_entries=16384)
# A stored document's text -> the document it states (the text is what was signed; its meaning never changes).
_DOCUMENTS: TtlCache[str, PolicyDocument] = TtlCache("policy-documents", None, max_entries=1024)


class UnknownAppError(LookupError):
    """No app with this id in tenancy."""


class AppClientError(LookupError):
    """The client the operator names for an app is missing (a first key), is not the one recorded with the app's
    key (a replacement), or is not the app's client in tenancy."""


@dataclass(frozen=True)
class PolicyKey:
    app_id: str
    client_id: str
    public_key: str  # base64 of the 32-byte Ed25519 key
    key_id: str
    sequence: int
    registered_at: str

    @property
    def raw(self) -> bytes:
        return signed.parse_public_key(self.public_key)

    @classmethod
    def of(cls, item: Mapping[str, Any]) -> PolicyKey:
        return cls(
            app_id=str(item["appId"]),
            client_id=str(item["clientId"]),
            public_key=str(item["publicKey"]),
            key_id=str(item["keyId"]),
            sequence=int(item["sequence"]),
            registered_at=str(item["registeredAt"]),
        )


@dataclass(frozen=True)
class StoredPolicy:
    app_id: str
    version: int
    text: str  # the canonical JSON that was signed
    signature: str
    key_id: str
    set_at: str

    @property
    def document(self) -> PolicyDocument:
        """The document, as it was validated when stored. Its network names are not checked against today's
        registry: a name the registry no longer has matches no chain (the engine refuses those chains)."""
        found = _DOCUMENTS.get(self.text)
        if found is None:
            found = _DOCUMENTS.put(self.text, PolicyDocument.model_validate(json.loads(self.text)))
        return found

    @property
    def body(self) -> Any:
        """The document as the integrator sent and signed it."""
        return json.loads(self.text)

    def to_item(self) -> dict[str, Any]:
        return {
            "appId": self.app_id,
            "version": self.version,
            "document": self.text,
            "signature": self.signature,
            "keyId": self.key_id,
            "setAt": self.set_at,
        }

    @classmethod
    def of(cls, item: Mapping[str, Any]) -> StoredPolicy:
        return cls(
            app_id=str(item["appId"]),
            version=int(item["version"]),
            text=str(item["document"]),
            signature=str(item["signature"]),
            key_id=str(item["keyId"]),
            set_at=str(item["setAt"]),
        )


def key_key(app_id: str) -> dict[str, str]:
    return {"pk": f"POLICYKEY#{app_id}", "sk": "KEY"}


def client_policies_key(client_id: str) -> dict[str, str]:
    return {"pk": f"POLICIES#{client_id}", "sk": "APPS"}


def wallet_client_key(wallet_id: str) -> dict[str, str]:
    return {"pk": f"WALLETCLIENT#{wallet_id}", "sk": "CLIENT"}


def app_client(app_id: str) -> str | None:
    """The client of app `app_id`: as the operator recorded it with the app's policy key in this table, else (no
    key yet, so nothing can be set) as tenancy says, which the API function writes too (the console creates
    apps); None for no such app."""

    def read() -> str | None:
        key = get_key(app_id)
        if key is not None:
            return key.client_id
        found = tenancy.get_app(app_id)
        return found[0].clientId if found else None

    return _APP_CLIENTS.get_or_put(app_id, read)


def get_key(app_id: str) -> PolicyKey | None:
    item = aws.table(TABLE).get_item(Key=key_key(app_id), ConsistentRead=True).get("Item")
    return PolicyKey.of(item) if item else None


def get_policy(client_id: str, app_id: str) -> StoredPolicy | None:
    return next((p for p in client_policies(client_id) if p.app_id == app_id), None)


def client_policies(
    client_id: str, read: Mapping[tuple[str, str], Mapping[str, Any] | None] | None = None
) -> list[StoredPolicy]:
    """Every app policy of the client, by app id: its one item, from `read` (items the caller read already, by
    (pk, sk)) when it holds the item's key, else one consistent read."""
    return sorted(_policies_of(_client_policies_item(client_id, read)).values(), key=lambda p: p.app_id)


class StaleVersionError(Exception):
    def __init__(self, current: int) -> None:
        super().__init__(f"the stored version is {current}")
        self.current = current


class ClientPoliciesFullError(Exception):
    """The client's documents together would not fit in their one item."""


class PoliciesBusyError(Exception):
    """Other apps of the client kept writing their documents: ask again."""


def put_policy(client_id: str, policy: StoredPolicy, attempts: int = 6) -> None:
    """Store `policy` as its app's document if its version is above the stored one (StaleVersionError otherwise):
    a conditional write of the client's item on the revision read, read again when another app's write won."""
    for _ in range(attempts):
        item = _client_policies_item(client_id, None)
        current = _policies_of(item).get(policy.app_id)
        if current is not None and current.version >= policy.version:
            raise StaleVersionError(current.version)
        apps = dict(item["apps"]) if item else {}
        apps[policy.app_id] = policy.to_item()
        if sum(len(str(a["document"])) + len(str(a["signature"])) for a in apps.values()) > MAX_CLIENT_POLICIES_BYTES:
            raise ClientPoliciesFullError()
        revision = int(item["rev"]) if item else 0
        seen = aws.Condition("rev = :r", values={":r": revision}) if item else aws.NEW_ITEM
        try:
            aws.write(
                aws.put("policies", TABLE, {**client_policies_key(client_id), "apps": apps, "rev": revision + 1}, seen)
            )
            return
        except aws.ConditionFailedError:
            continue  # another app of the client wrote meanwhile: read again
    raise PoliciesBusyError()


def _client_policies_item(
    client_id: str, read: Mapping[tuple[str, str], Mapping[str, Any] | None] | None
) -> Mapping[str, Any] | None:
    key = client_policies_key(client_id)
    if read is not None and (key["pk"], key["sk"]) in read:
        return read[(key["pk"], key["sk"])]
    found: Mapping[str, Any] | None = aws.table(TABLE).get_item(Key=key, ConsistentRead=True).get("Item")
    return found


def _policies_of(item: Mapping[str, Any] | None) -> dict[str, StoredPolicy]:
    return {str(app_id): StoredPolicy.of(stored) for app_id, stored in (item or {}).get("apps", {}).items()}


def wallet_client(wallet_id: str, read: Mapping[tuple[str, str], Mapping[str, Any] | None] | None = None) -> str | None:
    """The client the cosigner recorded for a wallet at its key generation (None: not recorded). `read`: items
    the caller read already (by (pk, sk)), which are used when they hold the mark's key."""
    known = _WALLET_CLIENTS.get(wallet_id)
    if known is not None:
        return known
    key = wallet_client_key(wallet_id)
    if read is not None and (key["pk"], key["sk"]) in read:
        item = read[(key["pk"], key["sk"])]
    else:
        item = aws.table(TABLE).get_item(Key=key, ConsistentRead=True).get("Item")
    return _WALLET_CLIENTS.put(wallet_id, str(item["clientId"])) if item else None


def known_wallet_client(wallet_id: str) -> str | None:
    """`wallet_client` as this process knows it already (no read)."""
    return _WALLET_CLIENTS.get(wallet_id)


def wallet_client_item(wallet_id: str, client_id: str) -> aws.TxItem:
    """The wallet's client mark, written once with share B."""
    return aws.put("wallet-client", TABLE, {**wallet_client_key(wallet_id), "clientId": client_id})


def register_policy_key(app_id: str, public_key_b64: str, client_id: str | None = None) -> dict[str, Any]:
    """The operator's registration of app `app_id`'s policy key (signed.PolicyKeyError for a key that is not one,
    UnknownAppError for an app tenancy does not have). A first key gets sequence 1 and binds the app to the client
    the operator names (`client_id`, as the integrator gives it), which `tenancy` must agree with: the API function
    writes `tenancy` and could have moved the app to a client whose wallets its documents would then govern
    (AppClientError when it is not named, or not tenancy's). A key the operator replaces keeps the client recorded
    with it (a `client_id` named must be that one; `tenancy` is not read) and continues its sequence, so no
    rotation signed for an earlier key can ever be replayed. Returns the record."""
    raw = signed.parse_public_key(public_key_b64)
    current = get_key(app_id)
    if current is not None:
        if client_id is not None and client_id != current.client_id:
            raise AppClientError(f"app {app_id}'s policy key is registered for client {current.client_id}")
        client_id = current.client_id
    else:
        found = tenancy.get_app(app_id)
        if found is None:
            raise UnknownAppError(f"no app {app_id!r}")
        if client_id is None:
            raise AppClientError(f"name app {app_id}'s client: its first policy key binds the app to it")
        if found[0].clientId != client_id:
            raise AppClientError(f"tenancy does not put app {app_id} in client {client_id}")
    record = {
        "appId": app_id,
        "clientId": client_id,
        "publicKey": public_key_b64,
        "keyId": signed.key_id(raw),
        "sequence": (current.sequence + 1) if current else 1,
        "registeredAt": iso_now(),
    }
    seen = (
        aws.NEW_ITEM
        if current is None
        else aws.Condition("#s = :s", names={"#s": "sequence"}, values={":s": current.sequence})
    )
    aws.write(aws.put("policy-key", TABLE, {**key_key(app_id), **record}, seen))
    return {**record, "replaced": current is not None}
