"""Every AWS resource Dompet uses, defined once.

The local bootstrap (`devtools/bootstrap.py`, also used by the tests) and the CDK
stack (`infra/stack.py`) both read these definitions, so a table, queue, key,
secret or bucket cannot exist in one place and be missing in the other.

Physical names are derived from the stage so that code never needs a lookup:
tables and queues are `dompet-<stage>-<name>`, KMS keys are reached through the
alias `alias/dompet-<stage>-<name>`, secrets are `dompet/<stage>/<name>`.
Buckets also take a suffix (account and region on AWS) because their names are
global.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, TypeVar

Access = Literal["read", "write", "read_write"]
KeyAccess = Literal["encrypt", "decrypt", "encrypt_decrypt"]
_Named = TypeVar("_Named", "Table", "Function")


@dataclass(frozen=True)
class Index:
    name: str
    partition_key: str
    sort_key: str | None = None


@dataclass(frozen=True)
class Table:
    name: str
    purpose: str
    partition_key: str = "pk"
    sort_key: str | None = "sk"
    indexes: tuple[Index, ...] = ()
    ttl_attribute: str | None = None


@dataclass(frozen=True)
class Queue:
    name: str
    purpose: str
    visibility_timeout_s: int = 60
    max_receive_count: int = 5  # then the message moves to `<name>-dlq`
    retention_s: int = 4 * 24 * 3600
    dlq_retention_s: int = 14 * 24 * 3600


@dataclass(frozen=True)
class Key:
    name: str
    purpose: str
    spec: str = "SYMMETRIC_DEFAULT"
    usage: str = "ENCRYPT_DECRYPT"


@dataclass(frozen=True)
class Secret:
    name: str
    purpose: str


@dataclass(frozen=True)
class Bucket:
    name: str
    purpose: str
    expire_after_days: int = 1  # lifecycle rule: objects are deleted after this


@dataclass(frozen=True)
class Grant:
    """What one function may do with one resource."""

    kind: Literal["table", "queue", "key", "secret", "bucket"]
    name: str
    access: str


@dataclass(frozen=True)
class Function:
    """A Lambda function of the Chalice app and the least privilege it needs.

    `name` is the Chalice function name (`api_handler` for the REST API,
    otherwise the decorated function's name).
    """

    name: str
    purpose: str
    grants: tuple[Grant, ...] = field(default_factory=tuple)


TABLES: tuple[Table, ...] = (
    Table(
        name="tenancy",
        purpose="Organizations, clients (hashed secrets) and apps (KMS-encrypted secrets).",
    ),
    Table(
        name="users",
        purpose="End users of a client, keyed by the client's own subject id.",
    ),
    Table(
        name="auth-state",
        purpose="Short-lived auth state: hashed refresh tokens and request-signature replay markers.",
        ttl_attribute="expiresAt",
    ),
)

QUEUES: tuple[Queue, ...] = ()

KEYS: tuple[Key, ...] = (Key(name="app-secrets", purpose="Encrypts app secrets (request signing) at rest."),)

SECRETS: tuple[Secret, ...] = (
    Secret(
        name="jwt-signing-keys",
        purpose="Ed25519 key set for the service's JWTs (current key plus keys still in their grace period).",
    ),
)

BUCKETS: tuple[Bucket, ...] = (
    Bucket(name="recovery", purpose="Temporary recovery files behind presigned links.", expire_after_days=1),
)

FUNCTIONS: tuple[Function, ...] = (
    Function(
        name="api_handler",
        purpose="The REST API.",
        grants=(
            Grant("table", "tenancy", "read"),
            Grant("table", "users", "read_write"),
            Grant("table", "auth-state", "read_write"),
            Grant("key", "app-secrets", "decrypt"),
            Grant("secret", "jwt-signing-keys", "read"),
        ),
    ),
    Function(
        name="rotate_signing_keys",
        purpose="Scheduled: rotates the JWT signing key and retires keys past their grace period.",
        grants=(Grant("secret", "jwt-signing-keys", "read_write"),),
    ),
)


def table_name(stage: str, name: str) -> str:
    return f"dompet-{stage}-{name}"


def queue_name(stage: str, name: str) -> str:
    return f"dompet-{stage}-{name}"


def dlq_name(stage: str, name: str) -> str:
    return f"dompet-{stage}-{name}-dlq"


def key_alias(stage: str, name: str) -> str:
    return f"alias/dompet-{stage}-{name}"


def secret_name(stage: str, name: str) -> str:
    return f"dompet/{stage}/{name}"


def bucket_name(stage: str, name: str, suffix: str = "") -> str:
    return f"dompet-{stage}-{name}{suffix}"


def _find(items: tuple[_Named, ...], name: str, kind: str) -> _Named:
    for item in items:
        if item.name == name:
            return item
    raise KeyError(f"no {kind} named {name!r} in chalicelib/platform/resources.py")


def table(name: str) -> Table:
    return _find(TABLES, name, "table")


def function(name: str) -> Function:
    return _find(FUNCTIONS, name, "function")
