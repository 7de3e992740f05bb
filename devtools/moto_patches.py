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
def dynamodb_transactions_back_up_each_table_once() -> None:
    """moto backs a table up (a deep copy, to roll back on a failed condition) once for *every item* of a
    TransactWriteItems that names it, before applying any item, so an 8-item transaction over two tables copies
    them 8 times, and the cost grows with everything stored. All those copies are identical; one per table and
    transaction gives the same rollback. DynamoDB itself has no such cost: without this, a benchmark measures
    moto's copying, and the test suite spends its time there."""
    import copy
    import threading

    from moto.dynamodb.models import DynamoDBBackend
    from moto.dynamodb.models.table import Table

    backups = threading.local()  # the copies made by the transaction running on this thread
    transact = DynamoDBBackend.transact_write_items

    def deepcopy_table(self: Table, memo: dict[int, object]) -> Any:
        made: dict[int, Any] | None = getattr(backups, "tables", None)
        if made is not None and id(self) in made:
            return made[id(self)]
        result = Table.__new__(Table)
        memo[id(self)] = result
        for name, value in self.__dict__.items():
            setattr(result, name, copy.deepcopy(value, memo))
        if made is not None:
            made[id(self)] = result
        return result

    def transact_once(self: DynamoDBBackend, transact_items: list[dict[str, object]]) -> None:
        backups.tables = {}
        try:
            transact(self, transact_items)
        finally:
            backups.tables = None

    Table.__deepcopy__ = deepcopy_table  # type: ignore[attr-defined]
    DynamoDBBackend.transact_write_items = transact_once  # type: ignore[method-assign]
