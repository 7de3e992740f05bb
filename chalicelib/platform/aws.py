"""AWS clients and resource handles, created once per process, and the one DynamoDB write helper.

boto3 honours AWS_ENDPOINT_URL, which the local stack points at its moto
server; tests use moto in process. Names come from resources.py and the stage.

Every client uses botocore's standard retry mode (throttling and transient errors
retried with backoff) and refuses to start a call the request budget cannot fit
(platform/deadline.py). DynamoDB writes that must happen together go through
`transact([...])`, whose items carry names: a failed condition is reported by the
name of the item, never by its position.
"""

from __future__ import annotations

import functools
import json
import os
import threading
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from chalicelib.platform import deadline, resources, retry
from chalicelib.platform.settings import load_settings

CONNECT_TIMEOUT_S = 2
READ_TIMEOUT_S = 10
MAX_ATTEMPTS = 3  # standard mode: the first try and two retries


def _config(service: str) -> Any:
    from botocore.config import Config

    options: dict[str, Any] = {
        "connect_timeout": CONNECT_TIMEOUT_S,
        "read_timeout": READ_TIMEOUT_S,
        "retries": {"mode": "standard", "max_attempts": MAX_ATTEMPTS},
    }
    if service == "s3":
        # SigV4 presigned links; path-style so a local endpoint (moto) serves them without wildcard DNS.
        local = bool(os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL"))
        options.update(signature_version="s3v4", s3={"addressing_style": "path" if local else "virtual"})
    elif service == "lambda":
        # A party function runs a whole MPC session; one attempt, the caller decides what a failure means.
        options.update(read_timeout=60, retries={"mode": "standard", "total_max_attempts": 1})
    return Config(**options)


def _respect_deadline(model: Any = None, **_: Any) -> None:
    deadline.require(f"AWS {getattr(model, 'name', 'call')}")


@functools.cache
def _session() -> Any:
    import boto3

    session = boto3.session.Session()
    session.events.register("before-call", _respect_deadline)
    return session


@functools.cache
def client(service: str) -> Any:
    return _session().client(service, region_name=load_settings().region, config=_config(service))


@functools.cache
def _dynamodb() -> Any:
    return _session().resource("dynamodb", region_name=load_settings().region, config=_config("dynamodb"))


def dynamodb_client() -> Any:
    """The low-level client of the DynamoDB resource: takes and returns plain Python values."""
    return _dynamodb().meta.client


_tables = threading.local()


def table(name: str) -> Any:
    resources.table(name)  # fail fast on a name that is not defined
    physical = resources.table_name(load_settings().stage, name)
    # boto3 builds a resource class for every Table(...) (~2 ms): one per table is enough. Per thread, because
    # boto3 resources are not thread-safe (the clients under them are); Lambda runs one thread.
    made: dict[str, Any] = _tables.__dict__.setdefault("by_name", {})
    if physical not in made:
        made[physical] = _dynamodb().Table(physical)
    return made[physical]


def key_alias(name: str) -> str:
    return resources.key_alias(load_settings().stage, name)


def secret_id(name: str) -> str:
    return resources.secret_name(load_settings().stage, name)


def queue(name: str) -> str:
    if not any(q.name == name for q in resources.QUEUES):
        raise KeyError(f"no queue named {name!r} in chalicelib/platform/resources.py")
    return resources.queue_name(load_settings().stage, name)


@functools.cache
def _queue_url(physical_name: str) -> str:
    url: str = client("sqs").get_queue_url(QueueName=physical_name)["QueueUrl"]
    return url


def send_message(name: str, body: dict[str, Any], delay_s: int = 0, dead_letter: bool = False) -> None:
    """Put `body` (JSON) on queue `name`, or on its dead-letter queue; URLs are looked up once."""
    physical = resources.dlq_name(load_settings().stage, name) if dead_letter else queue(name)
    client("sqs").send_message(QueueUrl=_queue_url(physical), MessageBody=json.dumps(body), DelaySeconds=delay_s)


def batch_get(name: str, keys: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The items of `keys` (absent ones left out; one request per 100), asking again for any left unprocessed."""
    return batch_get_tables({name: keys})[name]


def batch_get_tables(keys: Mapping[str, list[dict[str, Any]]]) -> dict[str, list[dict[str, Any]]]:
    """`batch_get` over several tables: logical table name -> the items found (each once), consistent reads. One
    request per 100 distinct keys (DynamoDB's limit); a key asked twice is asked once, since DynamoDB refuses a
    request that repeats a key."""
    keys = {name: _distinct(table_keys) for name, table_keys in keys.items()}
    total = sum(len(k) for k in keys.values())
    if total > 100:
        merged: dict[str, list[dict[str, Any]]] = {name: [] for name in keys}
        flat = [(name, key) for name, table_keys in keys.items() for key in table_keys]
        for start in range(0, total, 100):
            chunk: dict[str, list[dict[str, Any]]] = {}
            for name, key in flat[start : start + 100]:
                chunk.setdefault(name, []).append(key)
            for name, items in batch_get_tables(chunk).items():
                merged[name] += items
        return merged
    found: dict[str, list[dict[str, Any]]] = {name: [] for name in keys}
    asked = {name: table_keys for name, table_keys in keys.items() if table_keys}
    physical = {table(name).name: name for name in asked}
    request: dict[str, Any] = {table(name).name: {"Keys": ks, "ConsistentRead": True} for name, ks in asked.items()}
    for _ in retry.attempts(5):  # unprocessed keys: asked again after a backoff, as DynamoDB advises
        if not request:
            return found
        # The resource's client (de)serialises DynamoDB types itself.
        response = dynamodb_client().batch_get_item(RequestItems=request)
        for table_name, items in response["Responses"].items():
            found[physical[table_name]] += items
        request = response.get("UnprocessedKeys") or {}
    if request:
        raise RuntimeError(f"batch read of {sorted(keys)} left keys unprocessed")
    return found


def _distinct(keys: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen: set[tuple[tuple[str, Any], ...]] = set()
    distinct = []
    for key in keys:
        identity = tuple(sorted(key.items()))
        if identity not in seen:
            seen.add(identity)
            distinct.append(key)
    return distinct


def function_name(name: str) -> str:
    resources.function(name)
    return resources.function_name(load_settings().stage, name)


def bucket(name: str) -> str:
    settings = load_settings()
    return resources.bucket_name(settings.stage, name, settings.bucket_suffix)


def forget_queue_urls() -> None:
    """Queue URLs are looked up once per process; a fresh account (tests) may answer differently."""
    _queue_url.cache_clear()


# ---------------------------------------------------------------------------------------------------------------
# DynamoDB writes: one update-expression builder, one transaction helper, one single-item conditional write.
# Values are plain Python (str, int, bool, dict, list, set, bytes, Decimal): the resource's client serialises them.


@dataclass(frozen=True)
class Changes:
    """What an update does to an item: SET, ADD (numbers and sets), REMOVE, DELETE (from sets)."""

    set: Mapping[str, Any] = field(default_factory=dict)
    add: Mapping[str, Any] = field(default_factory=dict)
    remove: Sequence[str] = ()
    delete: Mapping[str, Any] = field(default_factory=dict)
    set_if_absent: Mapping[str, Any] = field(default_factory=dict)  # SET a = if_not_exists(a, v)

    def expression(self) -> tuple[str, dict[str, str], dict[str, Any]]:
        """`UpdateExpression` and its placeholders (`#u<n>`, `:u<n>`: never clash with a condition's own)."""
        names: dict[str, str] = {}
        values: dict[str, Any] = {}

        def name(attribute: str) -> str:
            placeholder = f"#u{len(names)}"
            names[placeholder] = attribute
            return placeholder

        def value(v: Any) -> str:
            placeholder = f":u{len(values)}"
            values[placeholder] = v
            return placeholder

        sets = [f"{name(k)} = {value(v)}" for k, v in self.set.items()]
        sets += [f"{(n := name(k))} = if_not_exists({n}, {value(v)})" for k, v in self.set_if_absent.items()]
        clauses = []
        if sets:
            clauses.append("SET " + ", ".join(sets))
        if self.add:
            clauses.append("ADD " + ", ".join(f"{name(k)} {value(v)}" for k, v in self.add.items()))
        if self.remove:
            clauses.append("REMOVE " + ", ".join(name(k) for k in self.remove))
        if self.delete:
            clauses.append("DELETE " + ", ".join(f"{name(k)} {value(v)}" for k, v in self.delete.items()))
        if not clauses:
            raise ValueError("an update must change something")
        return " ".join(clauses), names, values


@dataclass(frozen=True)
class Condition:
    """A condition expression with its own placeholders (`#x`, `:x`; never `#u<n>`/`:u<n>`)."""

    expression: str
    names: Mapping[str, str] = field(default_factory=dict)
    values: Mapping[str, Any] = field(default_factory=dict)


NEW_ITEM = Condition("attribute_not_exists(pk)")
EXISTS = Condition("attribute_exists(pk)")


@dataclass(frozen=True)
class TxItem:
    """One entry of a transaction, named so that a failed condition can be reported by name."""

    name: str
    kind: Literal["Put", "Update", "Delete", "ConditionCheck"]
    table: str  # the logical table name from resources.py
    body: Mapping[str, Any]  # Item or Key (and, for updates, the Changes)
    condition: Condition | None = None
    changes: Changes | None = None

    def request(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"TableName": table(self.table).name}
        names: dict[str, str] = {}
        values: dict[str, Any] = {}
        if self.kind == "Put":
            entry["Item"] = dict(self.body)
        else:
            entry["Key"] = dict(self.body)
        if self.changes is not None:
            entry["UpdateExpression"], names, values = self.changes.expression()
        if self.condition is not None:
            entry["ConditionExpression"] = self.condition.expression
            names = {**names, **self.condition.names}
            values = {**values, **self.condition.values}
            entry["ReturnValuesOnConditionCheckFailure"] = "ALL_OLD"
        if names:
            entry["ExpressionAttributeNames"] = names
        if values:
            entry["ExpressionAttributeValues"] = values
        return {self.kind: entry}


def put(name: str, table_name: str, item: Mapping[str, Any], condition: Condition | None = NEW_ITEM) -> TxItem:
    return TxItem(name, "Put", table_name, item, condition)


def update(
    name: str, table_name: str, key: Mapping[str, Any], changes: Changes, condition: Condition | None = EXISTS
) -> TxItem:
    return TxItem(name, "Update", table_name, key, condition, changes)


def delete(name: str, table_name: str, key: Mapping[str, Any], condition: Condition | None = None) -> TxItem:
    return TxItem(name, "Delete", table_name, key, condition)


def condition_check(name: str, table_name: str, key: Mapping[str, Any], condition: Condition) -> TxItem:
    return TxItem(name, "ConditionCheck", table_name, key, condition)


# Cancellation reasons that say nothing about the items' state, only that this attempt lost to concurrent traffic
# (DynamoDB serialises transactions on an item) or to throughput limits: the same transaction may succeed later.
TRANSIENT_REASONS = frozenset({"TransactionConflict", "ThrottlingError", "ProvisionedThroughputExceeded"})


class TransactionCancelledError(Exception):
    """A transaction wrote nothing. `reasons` maps each item's name to DynamoDB's code for it ("None" when
    that item was fine); `old` holds the current item of each item whose condition failed."""

    def __init__(self, reasons: dict[str, str], old: dict[str, dict[str, Any]]) -> None:
        super().__init__(f"transaction cancelled: {self.failed_in(reasons)}")
        self.reasons = reasons
        self.old = old

    @staticmethod
    def failed_in(reasons: Mapping[str, str]) -> dict[str, str]:
        return {k: v for k, v in reasons.items() if v not in ("None", "")}

    @property
    def failed(self) -> dict[str, str]:
        """The items that cancelled it: name -> DynamoDB's code."""
        return self.failed_in(self.reasons)

    def condition_failed(self, name: str) -> bool:
        return self.reasons.get(name) == "ConditionalCheckFailed"

    @property
    def conflict(self) -> bool:
        """A concurrent transaction held one of the items, or throughput ran short: retrying may succeed."""
        return any(code in TRANSIENT_REASONS for code in self.reasons.values())

    def only_lost(self, names: Collection[str]) -> bool:
        """Nothing failed but the conditions of the items `names` (those that guard against a concurrent writer)
        and transient conflicts: a lost race, which the same writes re-planned from fresh reads may win. False
        when any other item's condition (or anything else) failed: that is for the caller to answer."""
        failed = self.failed
        return bool(failed) and all(
            code in TRANSIENT_REASONS or (code == "ConditionalCheckFailed" and name in names)
            for name, code in failed.items()
        )


def transact(items: Sequence[TxItem]) -> None:
    """Write `items` all or nothing (at most 100); raises TransactionCancelledError naming what failed."""
    names = [item.name for item in items]
    if len(set(names)) != len(names):
        raise ValueError(f"transaction item names must be unique: {names}")
    ddb = dynamodb_client()
    try:
        ddb.transact_write_items(TransactItems=[item.request() for item in items])
    except ddb.exceptions.TransactionCanceledException as exc:
        cancellation = exc.response.get("CancellationReasons") or []
        reasons = {
            n: str((cancellation[i] if i < len(cancellation) else {}).get("Code", "None")) for i, n in enumerate(names)
        }
        old = {
            n: _plain(cancellation[i]["Item"])
            for i, n in enumerate(names)
            if i < len(cancellation) and cancellation[i].get("Item")
        }
        raise TransactionCancelledError(reasons, old) from None


def _plain(wire_item: Mapping[str, Any]) -> dict[str, Any]:
    """An item from an error response, which boto3 leaves in DynamoDB's wire format."""
    from boto3.dynamodb.types import TypeDeserializer

    deserialize = TypeDeserializer().deserialize
    return {k: deserialize(v) for k, v in wire_item.items()}


class ConditionFailedError(Exception):
    """A single-item write's condition failed; `old` is the item as it is (None if absent)."""

    def __init__(self, old: dict[str, Any] | None) -> None:
        super().__init__("condition failed")
        self.old = old


class ItemBusyError(Exception):
    """A single-item write refused because a transaction holding the item was in progress (DynamoDB's
    TransactionConflictException, which botocore's retry modes do not retry): a lost race, to be retried."""


def write(item: TxItem, return_new: bool = False, return_old: bool = False) -> dict[str, Any] | None:
    """One conditional write outside a transaction (same TxItem as in `transact`). On a failed condition raises
    ConditionFailedError carrying the current item (ReturnValuesOnConditionCheckFailure, no second read), and
    ItemBusyError when a transaction holds the item (retry it with platform/retry). `return_new` (updates) and
    `return_old` return the item as the write left it or as it found it."""
    request = item.request()[item.kind]
    request.pop("TableName")
    dynamo = table(item.table)
    operation = {"Put": dynamo.put_item, "Update": dynamo.update_item, "Delete": dynamo.delete_item}[item.kind]
    if return_new and item.kind == "Update":
        request["ReturnValues"] = "ALL_NEW"
    elif return_old:
        request["ReturnValues"] = "ALL_OLD"
    try:
        response = operation(**request)
    except dynamo.meta.client.exceptions.ConditionalCheckFailedException as exc:
        old = exc.response.get("Item")
        raise ConditionFailedError(_plain(old) if old else None) from None
    except dynamo.meta.client.exceptions.TransactionConflictException:
        raise ItemBusyError() from None
    attributes = response.get("Attributes")
    return dict(attributes) if attributes else None
