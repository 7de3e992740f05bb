"""`Idempotency-Key` for POST routes that move money.

The first request with a key (per client and user) reserves it; when its handler
returns (a 2xx, or an answer such as "broadcast unconfirmed" that must not be
redone) the response is stored and every later request with the same key and the
same body gets that response again, without running the handler. The same key
with a different body is refused (422 `IDEMPOTENCY_KEY_REUSED`); a key whose
first request is still running is 409 `IDEMPOTENCY_IN_PROGRESS`. A request that
fails (4xx/5xx) releases its key, so it can be retried with the same key.

Items (table `idempotency`): pk `IDEM#<scope>#<key>`, sk `KEY`; `requestHash`
(SHA-256 of method, path and body), `state` in_progress|completed, the stored
response, `expiresAt` (TTL, KEY_TTL_S).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import secrets
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from chalicelib.platform import aws
from chalicelib.platform.errors import ApiError, bad_request
from chalicelib.platform.logging import logger

HEADER = "idempotency-key"
KEY_TTL_S = 24 * 3600
IN_PROGRESS_TTL_S = 900  # longer than any request may run (Lambda's limit), so a live one is never taken over
_KEY = re.compile(r"^[A-Za-z0-9_\-:.]{1,128}$")

INVALID_IDEMPOTENCY_KEY = "INVALID_IDEMPOTENCY_KEY"
IDEMPOTENCY_KEY_REUSED = "IDEMPOTENCY_KEY_REUSED"
IDEMPOTENCY_IN_PROGRESS = "IDEMPOTENCY_IN_PROGRESS"


@dataclass(frozen=True)
class StoredResponse:
    status: int
    message: str
    data: Any


@dataclass
class Slot:
    """What the route does with a reserved key: nothing yet, or a response to replay."""

    replay: StoredResponse | None
    _pk: str | None = None
    _owner: str = ""

    def complete(self, status: int, message: str, data: Any) -> None:
        if self._pk is None:
            return
        table = aws.table("idempotency")
        try:
            table.update_item(
                Key={"pk": self._pk, "sk": "KEY"},
                UpdateExpression="SET #s = :done, responseStatus = :st, responseMessage = :m, responseData = :d, "
                "expiresAt = :exp",
                ConditionExpression="#o = :owner",
                ExpressionAttributeNames={"#s": "state", "#o": "owner"},
                ExpressionAttributeValues={
                    ":done": "completed",
                    ":st": status,
                    ":m": message,
                    ":d": json.dumps(data, separators=(",", ":"), default=str),
                    ":exp": int(time.time()) + KEY_TTL_S,
                    ":owner": self._owner,
                },
            )
        except Exception as exc:  # noqa: BLE001 - the request itself succeeded; its answer must not turn into an error
            logger.error("idempotency record not completed", extra={"errorType": type(exc).__name__})

    def release(self) -> None:
        if self._pk is None:
            return
        table = aws.table("idempotency")
        with contextlib.suppress(table.meta.client.exceptions.ConditionalCheckFailedException):
            table.delete_item(
                Key={"pk": self._pk, "sk": "KEY"},
                ConditionExpression="#s = :running AND #o = :owner",
                ExpressionAttributeNames={"#s": "state", "#o": "owner"},
                ExpressionAttributeValues={":running": "in_progress", ":owner": self._owner},
            )


def request_hash(method: str, path: str, body: bytes) -> str:
    digest = hashlib.sha256()
    for part in (method.encode(), path.encode(), _canonical_body(body)):
        digest.update(len(part).to_bytes(8, "big") + part)
    return digest.hexdigest()


@contextmanager
def guard(key: str | None, scope: str, fingerprint: str) -> Iterator[Slot]:
    """Reserve `key` for this request (no key: a no-op slot); releases it if the body raises."""
    if key is None:
        yield Slot(replay=None)
        return
    if not _KEY.match(key):
        raise bad_request(INVALID_IDEMPOTENCY_KEY, "Idempotency-Key: 1-128 characters of A-Z a-z 0-9 _ - : .")
    pk = f"IDEM#{scope}#{key}"
    owner = secrets.token_hex(8)
    table = aws.table("idempotency")
    now = int(time.time())
    try:
        table.put_item(
            Item={
                "pk": pk,
                "sk": "KEY",
                "owner": owner,
                "state": "in_progress",
                "requestHash": fingerprint,
                "expiresAt": now + IN_PROGRESS_TTL_S,
            },
            # A key is free if unused, or its record expired (TTL deletion may lag behind).
            ConditionExpression="attribute_not_exists(pk) OR expiresAt < :now",
            ExpressionAttributeValues={":now": now},
        )
    except table.meta.client.exceptions.ConditionalCheckFailedException:
        yield Slot(replay=_existing(pk, fingerprint))
        return
    slot = Slot(replay=None, _pk=pk, _owner=owner)
    try:
        yield slot
    except BaseException:
        slot.release()
        raise


def _existing(pk: str, fingerprint: str) -> StoredResponse:
    item = aws.table("idempotency").get_item(Key={"pk": pk, "sk": "KEY"}, ConsistentRead=True).get("Item")
    if item is None:  # released between our write and read: the caller may simply retry
        raise ApiError(409, IDEMPOTENCY_IN_PROGRESS, "A request with this Idempotency-Key is in progress; retry")
    if item["requestHash"] != fingerprint:
        raise ApiError(422, IDEMPOTENCY_KEY_REUSED, "This Idempotency-Key was used for a different request")
    if item["state"] != "completed":
        raise ApiError(409, IDEMPOTENCY_IN_PROGRESS, "A request with this Idempotency-Key is in progress; retry")
    return StoredResponse(int(item["responseStatus"]), str(item["responseMessage"]), json.loads(item["responseData"]))


def _canonical_body(body: bytes) -> bytes:
    """JSON bodies compare by content, not by whitespace or key order."""
    try:
        return json.dumps(json.loads(body or b"{}"), sort_keys=True, separators=(",", ":")).encode()
    except ValueError:
        return body


def scope_of(principal: Any) -> str:
    """Keys belong to one user of one client (a principal without both shares one scope)."""
    client = getattr(principal, "client", None)
    user = getattr(principal, "user", None)
    if client is not None and user is not None:
        return f"{client.clientId}#{user.userId}"
    return "anonymous"
