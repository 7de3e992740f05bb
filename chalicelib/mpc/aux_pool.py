"""A stock of cggmp21 auxiliary info, one set per future wallet.

Aux info (each party's Paillier key and everyone's public parameters) is per
signer group, and here a group is one wallet's three parties (docs/mpc.md, fact 1).
Making a set costs two safe primes per party (≈ 20 s each) plus the protocol
(≈ 15 s), far too slow for a request, so the scheduled `refill_aux_pool` job keeps
`aux_pool_target` sets ready and wallet creation takes one.

Each party's part is sealed for the function that will hold it (KMS key and
encryption context per party); the job itself may only encrypt. Items: pk `POOL`,
sk `AUX#<auxId>`, `state` ready|claimed, `part0..2` sealed.

`python -m chalicelib.mpc.aux_pool fill --count N` fills the pool by hand (e.g. after
the first deployment).
"""

from __future__ import annotations

import argparse
import contextlib
import secrets
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from chalicelib.mpc.shares import PARTY_KEY
from chalicelib.platform import aws, clock
from chalicelib.platform.clock import iso_now
from chalicelib.platform.kms_envelope import Sealed, open_sealed, seal
from chalicelib.platform.logging import logger

PARTIES = (0, 1, 2)
PK = "POOL"
CLAIM_TTL_S = 300  # a claim not consumed by then belongs to a creation that died: the set is retired


WALLET_POOL_EMPTY = "WALLET_POOL_EMPTY"  # the code of PoolEmptyError in an answer (503, retry later)


class PoolEmptyError(Exception):
    """No aux-info set is ready; wallet creation must wait for the refill job."""


def aux_context(aux_id: str, party: int) -> dict[str, str]:
    return {"purpose": "aux-info", "auxId": aux_id, "party": str(party)}


def generate_set(primes: list[bytes] | None = None) -> list[bytes]:
    """Run the aux-info protocol for three parties (threads: the Rust code releases the GIL).

    `primes` (one blob per party) skips the prime search; only tests and the local
    stack pass them, with the crate's public insecure fixture primes.
    """
    import dompet_mpc as mpc

    with ThreadPoolExecutor(max_workers=3) as pool:
        party_primes = primes or list(pool.map(lambda _: mpc.pregenerate_primes(), PARTIES))
        execution_id = b"dompet:aux:" + secrets.token_bytes(16)
        sessions = [mpc.aux_info_session(execution_id, i, party_primes[i]) for i in PARTIES]
        pending = [m for batch in pool.map(lambda s: s.start(), sessions) for m in batch]
        while pending:
            inbox: dict[int, list[bytes]] = {i: [] for i in PARTIES}
            for message in pending:
                to = mpc.recipient(message)
                for party in [to] if to is not None else [p for p in PARTIES if p != mpc.sender(message)]:
                    inbox[party].append(message)

            def deliver(session: Any, inbox: dict[int, list[bytes]] = inbox) -> list[bytes]:
                return [out for msg in inbox[session.party_index] for out in session.handle(msg)]

            pending = [m for batch in pool.map(deliver, sessions) for m in batch]
    if not all(s.done() for s in sessions):
        raise RuntimeError("aux-info generation did not complete")
    return [s.result() for s in sessions]


def store_set(parts: list[bytes]) -> str:
    aux_id = secrets.token_hex(16)
    sealed = {f"part{i}": seal(PARTY_KEY[i], parts[i], aux_context(aux_id, i)).to_item() for i in PARTIES}
    item = {"pk": PK, "sk": f"AUX#{aux_id}", "state": "ready", "createdAt": iso_now(), **sealed}
    aws.write(aws.put("aux-set", "aux-pool", item, aws.Condition("attribute_not_exists(sk)")))
    return aux_id


def ready_count() -> int:
    return len(_ids_in_state("ready"))


def claim(wallet_id: str) -> str:
    """Take one ready set for `wallet_id`. A claimed set is never claimed again, whatever happens to the
    creation that claimed it: the parties may already have seen it (docs/mpc.md)."""
    now = clock.epoch()
    for aux_id in _ids_in_state("ready"):
        take = aws.update(
            "aux-set",
            "aux-pool",
            {"pk": PK, "sk": f"AUX#{aux_id}"},
            aws.Changes(set={"state": "claimed", "claimedBy": wallet_id, "claimedAt": now}),
            aws.Condition("#s = :ready", {"#s": "state"}, {":ready": "ready"}),
        )
        try:
            aws.write(take)
            return aux_id
        except aws.ConditionFailedError:
            continue  # another creation took it first
    raise PoolEmptyError


def retire_stale_claims() -> int:
    """Delete sets claimed more than CLAIM_TTL_S ago and never consumed (their creation died): retired, never
    handed to another wallet. Returns how many."""
    stale_before = clock.epoch() - CLAIM_TTL_S
    retired = 0
    for aux_id in _ids_in_state("claimed", claimed_before=stale_before):
        condition = aws.Condition(
            "#s = :claimed AND claimedAt < :stale", {"#s": "state"}, {":claimed": "claimed", ":stale": stale_before}
        )
        with contextlib.suppress(aws.ConditionFailedError):
            aws.write(aws.delete("aux-set", "aux-pool", {"pk": PK, "sk": f"AUX#{aux_id}"}, condition))
            retired += 1
    return retired


def consume(aux_id: str) -> None:
    """Delete a set once a wallet's shares embed it: it must never serve another wallet."""
    aws.write(aws.delete("aux-set", "aux-pool", {"pk": PK, "sk": f"AUX#{aux_id}"}))


def open_part(aux_id: str, party: int) -> bytes:
    item = aws.table("aux-pool").get_item(
        Key={"pk": PK, "sk": f"AUX#{aux_id}"}, ProjectionExpression=f"part{party}", ConsistentRead=True
    )["Item"]
    return open_sealed(PARTY_KEY[party], Sealed.from_item(item[f"part{party}"]), aux_context(aux_id, party))


def refill(target: int, time_left_s: Any, per_set_s: float = 180.0) -> int:
    """Add sets until `target` are ready or the next one might not finish in time; returns how many."""
    retire_stale_claims()
    made = 0
    while ready_count() < target and time_left_s() > per_set_s:
        store_set(generate_set())
        made += 1
        logger.info("aux-info set added", extra={"ready": ready_count()})
    return made


def _ids_in_state(state: str, claimed_before: int | None = None) -> list[str]:
    from boto3.dynamodb.conditions import Attr, Key

    condition = Attr("state").eq(state)
    if claimed_before is not None:
        condition = condition & Attr("claimedAt").lt(claimed_before)
    table, ids, start = aws.table("aux-pool"), [], None
    while True:
        page = table.query(
            KeyConditionExpression=Key("pk").eq(PK),
            FilterExpression=condition,
            ProjectionExpression="sk",
            ConsistentRead=True,
            **({"ExclusiveStartKey": start} if start else {}),
        )
        ids += [item["sk"].removeprefix("AUX#") for item in page.get("Items", [])]
        start = page.get("LastEvaluatedKey")
        if not start:
            return ids


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m chalicelib.mpc.aux_pool", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    fill = commands.add_parser("fill", help="generate aux-info sets (real safe primes; minutes per set)")
    fill.add_argument("--count", type=int, required=True)
    commands.add_parser("count", help="how many sets are ready")
    args = parser.parse_args(argv)
    if args.command == "fill":
        for n in range(args.count):
            store_set(generate_set())
            print(f"added set {n + 1}/{args.count}")
    print(f"ready: {ready_count()}")


if __name__ == "__main__":
    main()
