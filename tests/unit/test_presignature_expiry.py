"""A presignature share past its `expiresAt` (with the real MPC core, moto and the in-process cosigner).

DynamoDB's TTL deletes an expired item late (up to days). The cosigner reads the time itself (the one clock): asked
for a partial signature from its share past `expiresAt`, it signs nothing, burns the share (taken out of its store,
its used record marked `expired`, no digest) and answers as for a missing one; party A then signs in full. Party A
itself offers none past it, even from the candidates it kept in memory.
"""

from __future__ import annotations

from typing import Any

from chalicelib.evm.digests import digest_of, personal_message
from chalicelib.mpc import parties, presignatures, shares
from chalicelib.platform import aws, clock, resources
from chalicelib.platform.settings import load_settings
from chalicelib.wallets import provisioning
from tests.support.mpc import audit_records, partial_request, recovered_address
from tests.unit import test_presignatures

stocked = test_presignatures.stocked  # the fixture: a wallet whose pool holds two presignatures
UNAVAILABLE = {"ok": False, "code": "PRESIGNATURE_UNAVAILABLE"}


def _item(party: int, key: dict[str, str]) -> dict[str, Any] | None:
    found: dict[str, Any] | None = (
        aws.table(presignatures.TABLE[party]).get_item(Key=key, ConsistentRead=True).get("Item")
    )
    return found


def _past_ttl() -> None:
    clock.travel(load_settings().presign_ttl_s + 1)


def test_the_cosigner_refuses_and_burns_a_share_past_its_expiry(stocked):
    _principal, _created, wallet_id = stocked
    presignature_id, kept = presignatures.ready_ids(shares.COSIGNER, wallet_id)
    ready_key = presignatures.ready_key(wallet_id, presignature_id)
    assert _item(shares.COSIGNER, ready_key) is not None  # TTL has not deleted it: still in the table
    _past_ttl()
    assert parties.cosigner(partial_request(wallet_id, presignature_id, b"late")) == UNAVAILABLE
    # Burned: gone from the store, recorded as expired and never as a signature of any digest.
    assert _item(shares.COSIGNER, ready_key) is None
    used = _item(shares.COSIGNER, presignatures.used_key(wallet_id, presignature_id))
    assert used is not None and used["expired"] is True and "digest" not in used and "ct" not in used
    # Burned for good: with the clock back (a share that would not have expired yet), it still signs nothing.
    clock.reset()
    assert parties.cosigner(partial_request(wallet_id, presignature_id, b"late")) == UNAVAILABLE
    assert parties.cosigner(partial_request(wallet_id, presignature_id, b"other")) == UNAVAILABLE
    # The other presignature, not expired, still signs.
    answer = parties.cosigner(partial_request(wallet_id, kept, b"in time"))
    assert answer["ok"] and answer["partial"]


def test_an_api_function_that_keeps_its_share_alive_gets_a_full_signature_not_the_expired_presignature(stocked):
    """A compromised API function can rewrite party A's table (its grant): it keeps its share A of a presignature
    ready past the TTL and offers it. The cosigner burns its own share B, party A falls back to a full signature
    (as for a missing share), and the request still signs, checked by the cosigner on the full path."""
    principal, created, wallet_id = stocked
    api_grants = {(g.kind, g.name, g.access) for g in resources.function("api_handler").grants}
    assert ("table", presignatures.TABLE[shares.SIGNER], "read_write") in api_grants
    forever = clock.epoch() + 10 * load_settings().presign_ttl_s
    table = aws.table(presignatures.TABLE[shares.SIGNER])
    for presignature_id in presignatures.ready_ids(shares.SIGNER, wallet_id):
        table.update_item(
            Key=presignatures.ready_key(wallet_id, presignature_id),
            UpdateExpression="SET expiresAt = :t",
            ExpressionAttributeValues={":t": forever},
        )
    _past_ttl()
    payload = personal_message(b"after the ttl")
    digest = digest_of(payload)
    assert recovered_address(provisioning.sign(principal, payload), digest) == created.address
    records = sorted(audit_records(wallet_id), key=lambda r: r["method"])
    assert [(r["method"], r["outcome"]) for r in records] == [("full", "signed"), ("presignature", "failed")]
    offered = str(records[1]["presignatureId"])
    assert _item(shares.COSIGNER, presignatures.ready_key(wallet_id, offered)) is None
    used = _item(shares.COSIGNER, presignatures.used_key(wallet_id, offered))
    assert used is not None and used["expired"] is True and "digest" not in used


def test_party_a_offers_no_share_past_its_expiry_even_one_it_kept_in_memory(stocked, monkeypatch):
    principal, created, wallet_id = stocked
    ttl = load_settings().presign_ttl_s
    clock.travel(ttl - 10)
    ids = sorted(presignatures.ready_ids(shares.SIGNER, wallet_id))
    items = [_item(shares.SIGNER, presignatures.ready_key(wallet_id, i)) for i in ids]
    presignatures._candidates.put(wallet_id, ([i for i in items if i is not None], True))  # read in time
    clock.travel(20)  # past the TTL, not past the time party A keeps its candidates
    assert presignatures._candidates.get(wallet_id) is not None
    consumed: list[str] = []
    real = presignatures._consume
    monkeypatch.setattr(
        presignatures, "_consume", lambda party, w, item, d: consumed.append(item["sk"]) or real(party, w, item, d)
    )
    payload = personal_message(b"kept in memory")
    assert recovered_address(provisioning.sign(principal, payload), digest_of(payload)) == created.address
    assert consumed == []  # neither expired candidate was taken: a full signature, no wasted online step
    (record,) = audit_records(wallet_id)
    assert (record["method"], record["outcome"]) == ("full", "signed")
