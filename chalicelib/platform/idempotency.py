"""`Idempotency-Key` for POST routes that move money.

The first request with a key (per tenant and principal) reserves it for as long as
the request can still run (its remaining time plus a margin, as Powertools'
idempotency utility does); when its handler returns, the response is stored and
every later request with the same key and the same body gets that response again,
without running the handler. The same key with a different body is refused (422
`IDEMPOTENCY_KEY_REUSED`); a key whose first request is still running is 409
`IDEMPOTENCY_IN_PROGRESS`.

A request that may have had effects never runs again. Domain code names the
effect in the plan that records it (`Plan(effect={...})`, platform/unit_of_work.py:
a wallet send's transaction record), whose transaction then marks the key as
having effects and removes its expiry. From then on the key is released by nothing. While the first request
still holds its lease, a repeat is 409 `IDEMPOTENCY_IN_PROGRESS` (retry: it will
replay the answer); if the response cannot be stored, the handler raised after
the effect, or the function died, later requests get 409
`IDEMPOTENCY_OUTCOME_UNKNOWN` with the effect's reference (e.g. `txHash`, to look
the transaction up) instead of running again. A request that fails before any
effect releases its key, so it can be retried with the same key; one that dies
before any effect leaves a lease that lapses.

Items (table `idempotency`): pk `IDEM#<scope>#<key>`, sk `KEY`; `requestHash`
(SHA-256 of method, path and body), `state` in_progress|completed|unknown, `owner`
(the reserving request), `leaseUntil` (epoch s: the owner's remaining time plus a
margin), `effects` (reference of what the request did), the stored response,
`expiresAt` (TTL and takeover time: the lease while in progress, 24 h once
completed; absent, so never taken over or deleted, once effects are recorded and
no response is).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Protocol, get_type_hints, runtime_checkable

from chalicelib.platform import aws, clock, deadline, jsonsafe, retry
from chalicelib.platform.envelope import dumps
from chalicelib.platform.errors import ApiError, bad_request
from chalicelib.platform.logging import log_failure, swallowed

HEADER = "idempotency-key"
TABLE = "idempotency"
KEY_TTL_S = 24 * 3600
LEASE_MARGIN_S = 30  # beyond the request's remaining time: clock skew between functions, TTL lag
DEFAULT_LEASE_S = 60  # outside a request budget (scripts, tests)
_KEY = re.compile(r"^[A-Za-z0-9_\-:.]{1,128}$")

INVALID_IDEMPOTENCY_KEY = "INVALID_IDEMPOTENCY_KEY"
IDEMPOTENCY_KEY_REUSED = "IDEMPOTENCY_KEY_REUSED"
IDEMPOTENCY_IN_PROGRESS = "IDEMPOTENCY_IN_PROGRESS"
IDEMPOTENCY_OUTCOME_UNKNOWN = "IDEMPOTENCY_OUTCOME_UNKNOWN"
UNKNOWN = "unknown"  # state of a key whose request finished (or died) after an effect without storing its answer


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

    def _key(self) -> dict[str, str]:
        return {"pk": str(self._pk), "sk": "KEY"}

    def _mine(self) -> aws.Condition:
        return aws.Condition("#o = :owner", {"#o": "owner"}, {":owner": self._owner})

    def complete(self, status: int, message: str, data: Any) -> None:
        """Store the response. If that keeps failing, the key is kept as "outcome unknown" (never re-run)."""
        if self._pk is None:
            return
        store = aws.update(
            "idempotency",
            TABLE,
            self._key(),
            aws.Changes(
                set={
                    "state": "completed",
                    "responseStatus": status,
                    "responseMessage": message,
                    "responseData": dumps(data),
                    "expiresAt": clock.epoch() + KEY_TTL_S,
                },
                remove=["leaseUntil"],
            ),
            self._mine(),
        )
        try:
            retry.call(lambda: aws.write(store), retry_on=(Exception,), count=3)
            return
        except Exception as exc:  # noqa: BLE001 - the request itself succeeded; its answer must not turn into an error
            log_failure("idempotency response not stored", exc)
        with swallowed("idempotency key not pinned"):  # an effect item, if any, already pinned the key
            self.abandon()

    def release(self) -> bool:
        """Free the key after a failure, unless an effect was recorded with it (the condition says so: an effect
        transaction that was cancelled recorded nothing, and the key is free again). False if not freed."""
        if self._pk is None:
            return True
        condition = aws.Condition(
            "#s = :running AND #o = :owner AND attribute_not_exists(effects)",
            {"#s": "state", "#o": "owner"},
            {":running": "in_progress", ":owner": self._owner},
        )
        try:
            aws.write(aws.delete("idempotency", TABLE, self._key(), condition))
        except aws.ConditionFailedError:  # effects were recorded, or another request took over a lapsed lease
            return False
        return True

    def abandon(self) -> None:
        """The owner is done without a stored answer: the key says "outcome unknown" at once (not after the
        lease) and never expires, so the request is never run again."""
        if self._pk is None:
            return
        mine = aws.Condition(
            "#s = :running AND #o = :owner",
            {"#s": "state", "#o": "owner"},
            {":running": "in_progress", ":owner": self._owner},
        )
        with contextlib.suppress(aws.ConditionFailedError):  # another request took over a lapsed lease
            aws.write(
                aws.update(
                    "idempotency",
                    TABLE,
                    self._key(),
                    aws.Changes(set={"state": UNKNOWN}, remove=["expiresAt", "leaseUntil"]),
                    mine,
                )
            )


_current: ContextVar[Slot | None] = ContextVar("dompet_idempotency_slot", default=None)


def effect_item(reference: dict[str, str]) -> aws.TxItem | None:
    """A transaction item that marks the current request's key as having had an effect (None without a key).

    Put it in the transaction that records the effect: both commit, or neither does."""
    slot = _current.get()
    if slot is None or slot._pk is None:
        return None
    return aws.update(
        "idempotency", TABLE, slot._key(), aws.Changes(set={"effects": reference}, remove=["expiresAt"]), slot._mine()
    )


def lease_lost() -> ApiError:
    """For domain code whose effect transaction was cancelled on the "idempotency" item
    (`exc.condition_failed("idempotency")`): this request no longer holds its key, nothing was recorded."""
    return ApiError(409, IDEMPOTENCY_IN_PROGRESS, "Another request now holds this Idempotency-Key; retry")


def request_hash(method: str, path: str, body: bytes) -> str:
    digest = hashlib.sha256()
    for part in (method.encode(), path.encode(), _canonical_body(body)):
        digest.update(len(part).to_bytes(8, "big") + part)
    return digest.hexdigest()


def lease_s() -> int:
    left = deadline.remaining_s()
    return int((DEFAULT_LEASE_S if left is None else left) + LEASE_MARGIN_S) + 1


@contextmanager
def guard(key: str | None, scope: str, fingerprint: str) -> Iterator[Slot]:
    """Reserve `key` for this request (no key: a no-op slot); releases it if the body raises before effects."""
    if key is None:
        yield Slot(replay=None)
        return
    if not _KEY.match(key):
        raise bad_request(INVALID_IDEMPOTENCY_KEY, "Idempotency-Key: 1-128 characters of A-Z a-z 0-9 _ - : .")
    pk = f"IDEM#{scope}#{key}"
    owner = secrets.token_hex(8)
    now = clock.epoch()
    lease = lease_s()
    reserve = aws.put(
        "idempotency",
        TABLE,
        {
            "pk": pk,
            "sk": "KEY",
            "owner": owner,
            "state": "in_progress",
            "requestHash": fingerprint,
            "leaseUntil": now + lease,
            "expiresAt": now + lease,
        },
        # Free if unused, or its lease or record expired (TTL deletion may lag behind). A key with recorded
        # effects has no expiresAt, so it is never taken over.
        aws.Condition("attribute_not_exists(pk) OR expiresAt < :now", values={":now": now}),
    )
    try:
        aws.write(reserve)
    except aws.ConditionFailedError as taken:
        yield Slot(replay=_existing(taken.old, fingerprint))
        return
    slot = Slot(replay=None, _pk=pk, _owner=owner)
    token = _current.set(slot)
    try:
        yield slot
    except BaseException:
        with swallowed("idempotency key not released"):  # never replace the request's own error
            if not slot.release():
                slot.abandon()  # its effect was recorded: no lease to wait out, the outcome is unknown now
        raise
    finally:
        _current.reset(token)


def _existing(item: dict[str, Any] | None, fingerprint: str) -> StoredResponse:
    if item is None:  # released between our write and its answer: the caller may simply retry
        raise ApiError(409, IDEMPOTENCY_IN_PROGRESS, "A request with this Idempotency-Key is in progress; retry")
    if item["requestHash"] != fingerprint:
        raise ApiError(422, IDEMPOTENCY_KEY_REUSED, "This Idempotency-Key was used for a different request")
    if item["state"] == "completed":
        return StoredResponse(
            int(item["responseStatus"]), str(item["responseMessage"]), json.loads(item["responseData"])
        )
    lapsed = int(item.get("leaseUntil", 0)) < clock.epoch()
    if item["state"] == UNKNOWN or ("expiresAt" not in item and lapsed):  # effects recorded, answer lost
        raise ApiError(
            409,
            IDEMPOTENCY_OUTCOME_UNKNOWN,
            "The first request with this Idempotency-Key may have taken effect but its answer was lost; "
            "look the effect up instead of retrying",
            effects=item.get("effects") or {},
        )
    raise ApiError(409, IDEMPOTENCY_IN_PROGRESS, "A request with this Idempotency-Key is in progress; retry")


def _canonical_body(body: bytes) -> bytes:
    """JSON bodies compare by content, not by whitespace or key order."""
    try:
        return json.dumps(jsonsafe.loads(body or b"{}"), sort_keys=True, separators=(",", ":")).encode()
    except ValueError:
        return body


@runtime_checkable
class Scoped(Protocol):
    """A principal that owns idempotency keys (auth's WalletPrincipal, tenancy's App): its scope names its tenant
    and itself, so two tenants' keys never meet."""

    def idempotency_scope(self) -> str: ...


def require_scope(route: str, guard: Any) -> None:
    """An idempotent route's guard must return a `Scoped` principal (read from its return annotation), so a route
    that could not scope its keys fails when it is declared, not at its first request."""
    try:
        returns = get_type_hints(type(guard).__call__).get("return") if guard is not None else None
    except Exception:  # noqa: BLE001 - unresolvable annotations: not provably scoped, refused below
        returns = None
    if not (isinstance(returns, type) and issubclass(returns, Scoped)):
        raise TypeError(
            f"{route}: an idempotent route needs a guard returning a principal with an idempotency scope "
            f"(a WalletPrincipal or an App: its keys are scoped by tenant and principal); {type(guard).__name__} "
            f"returns {returns!r}"
        )


def scope_of(principal: Any) -> str:
    """Keys belong to one tenant and one principal: a user of a client (Family W) or an app (Family S)."""
    if isinstance(principal, Scoped):
        return principal.idempotency_scope()
    # A route declared idempotent must name who its keys belong to; one shared scope would let tenants collide.
    raise TypeError(f"no idempotency scope for a principal of type {type(principal).__name__}")
