"""Each party's own store of presignature shares: single use, enforced by that party alone.

A presignature (cggmp21's offline half of signing) is made by the signer pair that sends use, party A (the API and
the refill function) and party B (the cosigner). Each party keeps only its own share, in its own table, sealed
under a per-wallet data key that only its own KMS key unwraps:

* `signer-presignatures` / KMS `share-a` for party A, `cosigner-presignatures` / KMS `share-b` for party B;
* `WALLET#<walletId>` / `DATAKEY`: the wallet's data key, encrypted by KMS with the context
  `{purpose: presignatures, walletId, party}`;
* `WALLET#<walletId>` / `REFILL` (party A only): the lease of the one refill running for the wallet;
* `WALLET#<walletId>` / `READY#<presignatureId>`: a ready share, sealed (`nonce`, `ct`; the context
  `{purpose: presignature, walletId, party, presignatureId}` bound as associated data);
* `WALLET#<walletId>` / `USED#<presignatureId>`: the record that it was used, with the `digest` it signed (no share),
  or that it was burned unused past its `expiresAt` (`expired`, no digest);
* `BUDGET#<scope>` / `HOUR#<n>` (party B only): how many presignatures the cosigner started in clock hour `n` for the
  keys of a budget scope (a wallet's client, `take_budget`).

Consuming a share is one conditional transaction: the ready item is deleted (it must exist) and the used record
written (it must not), and only then is the share that was read opened. So a share serves exactly one digest, two
concurrent consumers cannot both have it, a replayed request finds nothing to sign with, and a crash after the
write loses the presignature rather than risking its reuse. Two partial signatures from one presignature over different
digests would give the key share away (docs/mpc.md).

A ready share lives until its `expiresAt` (`DOMPET_PRESIGN_TTL_S` after it was stored). DynamoDB's TTL deletes it
late, so each party checks the time itself: party A offers none past it, and the cosigner burns one it is asked to
use past it (the same transaction, recording no digest) and signs nothing with it.

The unwrapped data key of a wallet stays in the function's memory for `DOMPET_PRESIGN_KEY_CACHE_S`, so consuming
a share on a warm function makes no KMS call (the key share itself is not needed online at all).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from chalicelib.mpc.shares import COSIGNER, PARTY_KEY, SIGNER
from chalicelib.platform import aws, clock, unit_of_work
from chalicelib.platform.cache import TtlCache
from chalicelib.platform.clock import epoch, iso_now
from chalicelib.platform.kms_envelope import (
    DataKey,
    new_data_key,
    open_data_key,
    open_with,
    seal_with,
)
from chalicelib.platform.settings import load_settings
from chalicelib.platform.unit_of_work import Plan

TABLE = {SIGNER: "signer-presignatures", COSIGNER: "cosigner-presignatures"}
REFILL_QUEUE = "presign-refill"
DATA_KEY_SK = "DATAKEY"
REFILL_LEASE_SK = "REFILL"
MAX_REFILL_S = 900  # no Lambda function runs longer
READY_PREFIX = "READY#"
USED_PREFIX = "USED#"
USED_KEPT_S = 90 * 86_400  # the record of which digest a share signed
AUDIT_TABLE = "signing-audit"  # every signature run of a wallet, by time: its demand
REFILL_ASK_EVERY_S = 5.0  # an instance asks for one wallet's refill at most this often (unless below the floor)
CANDIDATES_READ = 4  # ready items party A reads at a time for its next online steps
CANDIDATES_KEPT_S = 300

# Plaintext data keys by party and wallet, each kept presign_key_cache_s from when it was opened.
_data_keys: TtlCache[str, DataKey] = TtlCache("presignature-data-keys", lambda: load_settings().presign_key_cache_s)
# Party A's sealed ready items of each wallet as this instance last read them, and whether they were all the pool
# held: the candidates for its next online steps. Only a consuming transaction's winner opens a share, so a
# candidate that another instance took meanwhile costs a lost transaction, never a second use.
_candidates: TtlCache[str, tuple[list[dict[str, Any]], bool]] = TtlCache(
    "presignature-candidates", CANDIDATES_KEPT_S, max_entries=4096
)
# Wallets whose refill this instance asked for lately: a burst of sends asks once, not once per send.
_refill_asked: TtlCache[str, bool] = TtlCache("presignature-refills-asked", REFILL_ASK_EVERY_S, max_entries=4096)


def presignature_context(wallet_id: str, party: int, presignature_id: str) -> dict[str, str]:
    return {"purpose": "presignature", "walletId": wallet_id, "party": str(party), "presignatureId": presignature_id}


def data_key_context(wallet_id: str, party: int) -> dict[str, str]:
    return {"purpose": "presignatures", "walletId": wallet_id, "party": str(party)}


def ready_key(wallet_id: str, presignature_id: str) -> dict[str, str]:
    return {"pk": f"WALLET#{wallet_id}", "sk": f"{READY_PREFIX}{presignature_id}"}


def used_key(wallet_id: str, presignature_id: str) -> dict[str, str]:
    return {"pk": f"WALLET#{wallet_id}", "sk": f"{USED_PREFIX}{presignature_id}"}


def store(party: int, wallet_id: str, presignature_id: str, share: bytes) -> None:
    """Keep this party's share of a new presignature (ready)."""
    data_key = _data_key(party, wallet_id, create=True)
    nonce, ciphertext = seal_with(data_key, share, presignature_context(wallet_id, party, presignature_id))
    aws.write(
        aws.put(
            "presignature",
            TABLE[party],
            {
                **ready_key(wallet_id, presignature_id),
                "nonce": nonce,
                "ct": ciphertext,
                "createdAt": iso_now(),
                "expiresAt": epoch() + load_settings().presign_ttl_s,
            },
        )
    )


def consume(party: int, wallet_id: str, presignature_id: str, digest: bytes) -> bytes | None:
    """This party's share of the presignature, taken out of the store for `digest`; None if it is not ready
    here (used already, for whatever digest, or never stored)."""
    item = aws.table(TABLE[party]).get_item(Key=ready_key(wallet_id, presignature_id), ConsistentRead=True)
    return consume_read(party, wallet_id, item.get("Item"), digest)


def consume_read(party: int, wallet_id: str, ready: Mapping[str, Any] | None, digest: bytes) -> bytes | None:
    """`consume` of the ready item (`ready_key`) as the caller read it, consistently (in one batch with its other
    reads); None when it was not there. The conditional transaction decides, whatever the read saw."""
    return None if ready is None else _consume(party, wallet_id, dict(ready), digest)


def expired(ready: Mapping[str, Any]) -> bool:
    """Is this ready item past its `expiresAt` (by the one clock)? One without it counts as expired."""
    return int(ready.get("expiresAt", 0)) <= epoch()


def burn(party: int, wallet_id: str, ready: Mapping[str, Any]) -> None:
    """Retire a ready share unused (it expired): taken out of the store as a consumption takes it, its used record
    marked `expired` with no digest, the share never opened. A concurrent consumer or burner may win: either way
    it is gone."""
    _take_out(party, wallet_id, _id(dict(ready)), {"expired": True})


def take(wallet_id: str, digest: bytes) -> tuple[str, bytes, int] | None:
    """Party A: one ready presignature consumed for `digest`: (its id, share A, how many at least stay ready);
    None when the pool is empty.

    The candidates are this instance's last read of the pool when it kept one (the consuming transaction is then
    the only call), else a read of a few ready items, never the whole pool. A candidate taken elsewhere meanwhile
    only loses its transaction, and the next one is tried (the pool is read again when none is left)."""
    kept = _candidates.get(wallet_id)
    _candidates.pop(wallet_id)
    candidates, complete = (list(kept[0]), kept[1]) if kept else ([], False)
    tried: set[str] = set()
    read = kept is None
    while True:
        if not candidates:
            if read and complete:
                return None  # the pool as last read is empty, or every one was taken by concurrent signers
            candidates, complete = _ready_page(wallet_id, tried)
            read = True
            if not candidates:
                return None
        item = candidates.pop(0)
        tried.add(_id(item))
        if expired(item):  # kept from an earlier read: the cosigner would refuse its half
            continue
        share = _consume(SIGNER, wallet_id, item, digest)
        if share is None:
            continue
        ready = len(candidates) + (0 if complete else 1)
        if not below_floor(ready):  # a low pool is read afresh next time, refilled meanwhile
            _candidates.put(wallet_id, (candidates, complete))
        return _id(item), share, ready


def ready_ids(party: int, wallet_id: str) -> list[str]:
    """Ids of this party's ready presignatures of the wallet, oldest first."""
    return [_id(item) for item in _ready_items(party, wallet_id, with_shares=False)]


def ready_hint(wallet_id: str) -> int:
    """About how many presignatures of the wallet party A could use now: its kept candidates, or one short read of
    the pool's ready items that reads no shares (a hint: another instance may take them first)."""
    kept = _candidates.get(wallet_id)
    if kept is not None:
        return sum(1 for item in kept[0] if not expired(item))
    query = {**_ready_query(wallet_id), "Limit": CANDIDATES_READ, "ProjectionExpression": "sk, expiresAt"}
    return len(aws.table(TABLE[SIGNER]).query(**query)["Items"])


def _consume(party: int, wallet_id: str, item: dict[str, Any], digest: bytes) -> bytes | None:
    """The share taken out for `digest` (`_take_out`); only the winner opens the share it read, a loser gets None."""
    presignature_id = _id(item)
    if not _take_out(party, wallet_id, presignature_id, {"digest": digest.hex()}):
        return None  # taken meanwhile (a concurrent consumer, or a replay), or used before
    data_key = _data_key(party, wallet_id, create=False)
    context = presignature_context(wallet_id, party, presignature_id)
    return open_with(data_key, bytes(item["nonce"]), bytes(item["ct"]), context)


def _take_out(party: int, wallet_id: str, presignature_id: str, record: dict[str, Any]) -> bool:
    """One transaction: the ready item deleted (it must still exist) and the used record written with `record`
    (what it was used for). False when another transaction took the ready item first."""
    now = epoch()
    try:
        unit_of_work.commit(
            Plan(
                items=[
                    aws.delete("ready", TABLE[party], ready_key(wallet_id, presignature_id), aws.EXISTS),
                    aws.put(
                        "used",
                        TABLE[party],
                        {
                            **used_key(wallet_id, presignature_id),
                            **record,
                            "usedAt": iso_now(),
                            "expiresAt": now + USED_KEPT_S,
                        },
                    ),
                ]
            )
        )
    except aws.TransactionCancelledError:
        return False
    return True


def _ready_items(party: int, wallet_id: str, with_shares: bool) -> list[dict[str, Any]]:
    """Every ready item of the wallet, oldest first. Only ready items are read: used records live under another
    sort-key prefix, so a wallet's history never slows this query down."""
    items: list[dict[str, Any]] = []
    query = _ready_query(wallet_id)
    if not with_shares:
        query["ProjectionExpression"] = "sk, createdAt, expiresAt"
    while True:
        page = aws.table(TABLE[party]).query(**query)
        items += page["Items"]
        if "LastEvaluatedKey" not in page:
            break
        query["ExclusiveStartKey"] = page["LastEvaluatedKey"]
    items.sort(key=lambda i: str(i.get("createdAt", "")))
    return items


def _ready_page(wallet_id: str, skip: set[str]) -> tuple[list[dict[str, Any]], bool]:
    """Party A's next candidates: up to `CANDIDATES_READ` (at least one past the low-water mark) ready items with
    their sealed shares, none of `skip`, in key order; and whether they are all there are."""
    wanted = max(CANDIDATES_READ, load_settings().presign_pool_floor + 1)
    query = {**_ready_query(wallet_id), "Limit": wanted}
    found: list[dict[str, Any]] = []
    while True:
        page = aws.table(TABLE[SIGNER]).query(**query)
        found += [item for item in page["Items"] if _id(item) not in skip]
        if "LastEvaluatedKey" not in page:
            return found, True
        if len(found) >= wanted:
            return found, False
        query["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def _ready_query(wallet_id: str) -> dict[str, Any]:
    from boto3.dynamodb.conditions import Attr, Key

    return {
        "KeyConditionExpression": Key("pk").eq(f"WALLET#{wallet_id}") & Key("sk").begins_with(READY_PREFIX),
        "FilterExpression": Attr("expiresAt").gt(epoch()),  # TTL deletes late; an expired share is not offered
        "ConsistentRead": True,
    }


def _id(item: dict[str, Any]) -> str:
    return str(item["sk"]).removeprefix(READY_PREFIX)


def lease_refill(wallet_id: str, seconds: float) -> bool:
    """One refill per wallet at a time (sends that find the pool low each ask for one): True if this caller may
    refill for `seconds`."""
    now = epoch()
    until = now + int(min(seconds, MAX_REFILL_S)) + 1
    try:
        aws.write(
            aws.put(
                "refill-lease",
                TABLE[SIGNER],
                {"pk": f"WALLET#{wallet_id}", "sk": REFILL_LEASE_SK, "leaseUntil": until, "expiresAt": until + 3600},
                aws.Condition("attribute_not_exists(pk) OR leaseUntil < :now", values={":now": now}),
            )
        )
    except aws.ConditionFailedError:
        return False
    return True


def take_budget(scope: str) -> bool:
    """The cosigner counts one presignature of `scope` in this clock hour, if the hour has room for it
    (`DOMPET_PRESIGN_CLIENT_HOURLY`, 0: no bound): one conditional update, so concurrent refills never overspend."""
    limit = load_settings().presign_client_hourly
    if limit == 0:
        return True
    hour = epoch() // 3600
    try:
        aws.write(
            aws.update(
                "presign-budget",
                TABLE[COSIGNER],
                {"pk": f"BUDGET#{scope}", "sk": f"HOUR#{hour}"},
                aws.Changes(add={"made": 1}, set={"expiresAt": (hour + 2) * 3600}),
                aws.Condition("attribute_not_exists(made) OR made < :limit", values={":limit": limit}),
            )
        )
    except aws.ConditionFailedError:
        return False
    return True


def release_refill(wallet_id: str) -> None:
    aws.write(aws.delete("refill-lease", TABLE[SIGNER], {"pk": f"WALLET#{wallet_id}", "sk": REFILL_LEASE_SK}))


def request_refill(wallet_id: str, at_least: int = 0) -> None:
    """Ask the refill function to stock the wallet to its target, and to `at_least` (a new wallet's first stock)."""
    _refill_asked.put(wallet_id, True)
    body: dict[str, Any] = {"walletId": wallet_id}
    if at_least > 0:
        body["atLeast"] = at_least
    aws.send_message(REFILL_QUEUE, body)


def first_stock() -> int:
    """What a new wallet's pool is stocked with before it signs: at most the ceiling."""
    settings = load_settings()
    return min(settings.presign_first_stock, settings.presign_pool_ceiling)


def request_follow_up(wallet_id: str) -> None:
    """A second look at the wallet once the asks it may have held back (REFILL_ASK_EVERY_S) have happened: a burst
    that ends within that time still gets its pool refilled to the demand it showed. A follow-up asks for none."""
    aws.send_message(REFILL_QUEUE, {"walletId": wallet_id, "followUp": True}, delay_s=int(REFILL_ASK_EVERY_S) + 1)


def pools_on() -> bool:
    """Whether wallets keep presignatures at all (a ceiling of 0: every signature is a full run)."""
    return load_settings().presign_pool_ceiling > 0


def below_floor(ready: int) -> bool:
    return ready < load_settings().presign_pool_floor


def after_use(wallet_id: str, ready: int) -> None:
    """A presignature of the wallet was used and at least `ready` stay: ask for a refill unless no target could
    want more (the ceiling) or this instance asked lately (the refill that ask started looks again after
    REFILL_ASK_EVERY_S: request_follow_up); always when the pool is below the floor. The refill decides how many the
    wallet wants now (`target`)."""
    settings = load_settings()
    if ready >= settings.presign_pool_ceiling:
        return
    if not below_floor(ready) and _refill_asked.get(wallet_id):
        return
    request_refill(wallet_id)


def target(wallet_id: str) -> int:
    """The stock the wallet's pool is refilled to: `presign_demand_factor` times its signatures in the last
    `presign_demand_window_s` (every run, full or from a presignature, as the signing audit records them), between
    the floor and the ceiling. A wallet that signs in bursts keeps more than a burst's worth ready (the next burst
    may be larger, and a refill during it competes with it); an idle one falls back to the floor, and what it holds
    beyond expires (`presign_ttl_s`)."""
    from boto3.dynamodb.conditions import Key

    settings = load_settings()
    floor, ceiling = settings.presign_pool_floor, settings.presign_pool_ceiling
    if ceiling <= floor:
        return ceiling
    since = clock.iso_at(epoch() - settings.presign_demand_window_s)
    query: dict[str, Any] = {
        "KeyConditionExpression": Key("pk").eq(f"WALLET#{wallet_id}") & Key("sk").between(f"SIG#{since}", "SIG#~"),
        "Select": "COUNT",
        "Limit": ceiling,  # no target exceeds it: counting stops there
    }
    demand = int(aws.table(AUDIT_TABLE).query(**query)["Count"])
    return max(floor, min(ceiling, demand * settings.presign_demand_factor))


def _data_key(party: int, wallet_id: str, create: bool) -> DataKey:
    name = f"{party}:{wallet_id}"
    cached = _data_keys.get(name)
    if cached is not None:
        return cached
    context = data_key_context(wallet_id, party)
    key = {"pk": f"WALLET#{wallet_id}", "sk": DATA_KEY_SK}
    item = aws.table(TABLE[party]).get_item(Key=key, ConsistentRead=True).get("Item")
    if item is not None:
        data_key = open_data_key(PARTY_KEY[party], bytes(item["key"]), context)
    elif not create:
        raise LookupError("this wallet has no presignature data key")
    else:
        data_key = new_data_key(PARTY_KEY[party], context)
        try:
            aws.write(aws.put("data-key", TABLE[party], {**key, "key": data_key.encrypted, "createdAt": iso_now()}))
        except aws.ConditionFailedError as lost:  # a concurrent refill made it first: use theirs
            assert lost.old is not None
            data_key = open_data_key(PARTY_KEY[party], bytes(lost.old["key"]), context)
    _data_keys.put(name, data_key)
    return data_key
