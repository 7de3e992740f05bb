"""Where moto differs from AWS in a way the service depends on: patched in the tests and the local stack."""

from __future__ import annotations

import functools
import json
from typing import Any


@functools.cache  # once per process
def kms_signs_digests() -> None:
    """moto ignores Sign's MessageType=DIGEST and hashes the message again; AWS KMS signs the digest as given
    (what an Ethereum signer needs). Same answer shape as moto's own."""
    import base64

    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec, utils
    from moto.kms.responses import KmsResponse

    sign = KmsResponse.sign

    def sign_digest(self):  # type: ignore[no-untyped-def]
        if self._get_param("MessageType") != "DIGEST":
            return sign(self)
        key = self.kms_backend.describe_key(self._get_param("KeyId"))
        digest: bytes = self._get_param("Message")  # moto decodes the wire's base64
        der = key.private_key.private_key.sign(digest, ec.ECDSA(utils.Prehashed(hashes.SHA256())))
        return json.dumps(
            {"KeyId": key.arn, "Signature": base64.b64encode(der).decode(), "SigningAlgorithm": "ECDSA_SHA_256"}
        )

    KmsResponse.sign = sign_digest  # type: ignore[method-assign]


@functools.cache  # once per process
def dynamodb_requests_are_atomic() -> None:
    """DynamoDB serves every request atomically (a conditional write's check and write, a transaction's items, a
    query's read); moto's threaded server runs concurrent requests on their own threads over shared dicts, and a
    transaction checks and applies its items one by one. Interleaved, two conditional writes both passed their
    condition, and a cancelled transaction put back items it had copied before a concurrent writer changed them.
    One lock around every DynamoDB action (the handler both the server and the in-process mock dispatch to)
    makes each request one indivisible step, which is what the service's conditional writes rely on."""
    import threading

    from moto.dynamodb.responses import DynamoHandler

    lock = threading.RLock()
    call_action = DynamoHandler.call_action

    def atomic_call_action(self: DynamoHandler) -> Any:
        with lock:
            return call_action(self)

    DynamoHandler.call_action = atomic_call_action  # type: ignore[method-assign]


@functools.cache  # once per process
def dynamodb_transactions_back_up_items() -> None:
    """moto makes TransactWriteItems all-or-nothing by deep-copying every table it names, once for *every item* of
    the transaction, before applying any, and putting the copies back on failure: an 8-item transaction over two
    tables copied them 8 times, so its cost grew with everything stored (and a concurrent write elsewhere in those
    tables was undone too). DynamoDB has no such cost. Here the transaction backs up only the items it names and
    puts those back when moto cancels it: the same all-or-nothing outcome (tests/unit/test_pagination.py checks a
    cancelled transaction over two tables), at a cost that does not grow with the tables. Putting copies back is
    only right while no other request runs meanwhile: it needs dynamodb_requests_are_atomic, applied here too."""
    dynamodb_requests_are_atomic()
    import copy
    import threading

    from moto.dynamodb.models import DynamoDBBackend
    from moto.dynamodb.models.dynamo_type import DynamoType
    from moto.dynamodb.models.table import Table

    in_transaction = threading.local()
    transact = DynamoDBBackend.transact_write_items

    def deepcopy_table(self: Table, memo: dict[int, object]) -> Any:
        if getattr(in_transaction, "active", False):
            return self  # moto's whole-table backup: the named items are backed up instead, below
        result = Table.__new__(Table)
        memo[id(self)] = result
        for name, value in self.__dict__.items():
            setattr(result, name, copy.deepcopy(value, memo))
        return result

    def backed_up_items(self: DynamoDBBackend, transact_items: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
        backups = []
        for entry in transact_items:
            if not isinstance(entry, dict) or len(entry) != 1:
                continue
            (op,) = entry.values()
            table = self.tables.get(str(op.get("TableName"))) if isinstance(op, dict) else None
            if table is None:
                continue
            found = located(table, op.get("Item", op.get("Key")) or {})
            if found is not None:  # a malformed entry is refused by moto without being written
                hash_key, range_key, current = found
                backups.append((table, hash_key, range_key, copy.deepcopy(current)))
        return backups

    def located(table: Table, source: dict[str, Any]) -> tuple[Any, Any, Any] | None:
        try:
            hash_key = DynamoType(source[table.hash_key_attr])
            range_key = DynamoType(source[table.range_key_attr]) if table.range_key_attr else None
            return hash_key, range_key, table.get_item(hash_key, range_key)
        except Exception:  # noqa: BLE001 - missing or mistyped key attributes
            return None

    def transact_backing_up_items(self: DynamoDBBackend, transact_items: list[dict[str, Any]]) -> None:
        backups = backed_up_items(self, transact_items)
        in_transaction.active = True
        try:
            transact(self, transact_items)
        except Exception:
            for table, hash_key, range_key, item in reversed(backups):  # moto cancelled it: put the items back
                table.delete_item(hash_key, range_key)
                if item is not None and range_key is not None:
                    table.items[hash_key][range_key] = item
                elif item is not None:
                    table.items[hash_key] = item
            raise
        finally:
            in_transaction.active = False

    Table.__deepcopy__ = deepcopy_table  # type: ignore[attr-defined]
    DynamoDBBackend.transact_write_items = transact_backing_up_items  # type: ignore[method-assign]


@functools.cache  # once per process
def in_process_requests_are_serialised() -> None:
    """moto's in-process backends are plain dicts, not safe for concurrent requests (a Query while another thread
    writes fails with "dictionary changed size"). Real AWS serves each request atomically; one lock around moto's
    request handling gives tests and benchmarks the same (the MPC parties call it from several threads)."""
    import threading

    from moto.core.botocore_stubber import BotocoreStubber

    lock = threading.RLock()
    handle = BotocoreStubber.process_request

    def process_request(self: BotocoreStubber, request: Any) -> Any:
        with lock:
            return handle(self, request)

    BotocoreStubber.process_request = process_request  # type: ignore[method-assign]


def sqs_receives_without_rereading_the_queue() -> None:
    """moto's ReceiveMessage asks for the queue's every attribute once per message it hands over, to read the
    retention period (and every attribute walks every message): a receive costs the square of the backlog, SQS's
    does not. The queue's own retention period is the same answer."""
    from moto.core.utils import unix_time
    from moto.sqs.models import Message, SQSBackend

    def is_message_valid_based_on_retention_period(self: SQSBackend, queue_name: str, message: Message) -> bool:
        retention_s = int(self.get_queue(queue_name).message_retention_period)  # type: ignore[attr-defined]
        return bool(retention_s + message.sent_timestamp / 1000 > unix_time())  # type: ignore[operator]

    SQSBackend.is_message_valid_based_on_retention_period = is_message_valid_based_on_retention_period  # type: ignore[method-assign]


@functools.cache  # once per process
def dynamodb_refuses_oversized_keys() -> None:
    """DynamoDB refuses a key over its size (2048 bytes of partition key, 1024 of sort key) in every request that
    names one, reads included (a ValidationException); moto checks only the items it writes, so a read with an
    oversized key quietly found nothing. The same check on moto's reads by key (GetItem, and the batch, transaction
    and update paths that go through it; DeleteItem; a Query's partition key)."""
    from moto.dynamodb.exceptions import HashKeyTooLong, RangeKeyTooLong
    from moto.dynamodb.limits import HASH_KEY_MAX_LENGTH, RANGE_KEY_MAX_LENGTH
    from moto.dynamodb.models.dynamo_type import DynamoType
    from moto.dynamodb.models.table import Table

    def refuse(hash_key: DynamoType | None, range_key: DynamoType | None) -> None:
        if hash_key is not None and hash_key.size() > HASH_KEY_MAX_LENGTH:
            raise HashKeyTooLong
        if range_key is not None and range_key.size() > RANGE_KEY_MAX_LENGTH:
            raise RangeKeyTooLong

    get_item, delete_item, query = Table.get_item, Table.delete_item, Table.query

    def checked_get_item(self: Table, hash_key: DynamoType, range_key: DynamoType | None = None, *a: Any) -> Any:
        refuse(hash_key, range_key)
        return get_item(self, hash_key, range_key, *a)

    def checked_delete_item(self: Table, hash_key: DynamoType, range_key: DynamoType | None) -> Any:
        refuse(hash_key, range_key)
        return delete_item(self, hash_key, range_key)

    def checked_query(self: Table, hash_key: DynamoType | None, *a: Any, **kw: Any) -> Any:
        refuse(hash_key, None)
        return query(self, hash_key, *a, **kw)

    Table.get_item = checked_get_item  # type: ignore[method-assign,assignment]
    Table.delete_item = checked_delete_item  # type: ignore[method-assign,assignment]
    Table.query = checked_query  # type: ignore[method-assign,assignment]
