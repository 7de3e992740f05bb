"""The nonce's owner changes hands exactly once: the interleavings that handed one nonce to two sends.

Issue 9: 10 parallel send-coin calls once got nonces 1, 2, 3, 3, 4…9. A nonce went to two sends when it was
given back while still owned: by a lease recovery while its send was still running, by a send whose record
write had in fact committed (so the tracker owned the nonce too), or twice by the record's two give-back
paths; `release` moving `next` back then handed the same nonce out again. Each test below is one such
interleaving; with the old allocator (wallets/nonces.py before this change) each ends with a duplicate.
"""

from __future__ import annotations

import pytest
from eth_account import Account
from eth_keys import keys as eth_keys

from chalicelib.evm import engine, nonces, rpc, tracking
from chalicelib.evm.transactions import UnsignedTx, assemble, receipt, signing_hash
from chalicelib.platform import aws, clock
from chalicelib.platform.networks import Network
from chalicelib.platform.pagination import PageQuery

KEY = "0x" + "22" * 32
ADDRESS = Account.from_key(KEY).address
CHAIN = 31337
NETWORK = Network.model_validate(
    {"name": "local-a", "chainId": CHAIN, "rpcUrls": ["http://127.0.0.1:9"], "nativeSymbol": "ETH"}
)


@pytest.fixture(autouse=True)
def _clock():
    yield
    clock.reset()


def _signed(nonce: int, value: int = 1):
    tx = UnsignedTx(chain_id=CHAIN, nonce=nonce, to=ADDRESS, value=value, data=b"", gas=21_000, gas_price=10**9)
    signature = eth_keys.PrivateKey(bytes.fromhex(KEY[2:])).sign_msg_hash(signing_hash(tx))
    raw = signature.r.to_bytes(32, "big") + signature.s.to_bytes(32, "big") + bytes([signature.v])
    return assemble(tx, ADDRESS, raw)


def _record(allocation: nonces.Allocation) -> str:
    signed = _signed(allocation.nonce)
    tracking.record("w1", NETWORK, signed, "coin", receipt(signed), allocation)
    return signed.hash


def test_a_send_outliving_its_lease_cannot_record_so_never_broadcasts_the_nonce_handed_on(aws_env):
    slow = nonces.allocate(ADDRESS, CHAIN, chain_pending=3)
    clock.travel(nonces.LEASE_S + 1)  # the send is still signing when its lease runs out
    other = nonces.allocate(ADDRESS, CHAIN, chain_pending=3)  # recovers the lease: the nonce goes on
    assert other.nonce == slow.nonce == 3
    with pytest.raises(tracking.SendExpiredError):
        _record(slow)  # old: settle() was unconditional, the slow send broadcast nonce 3 as well
    assert tracking.read(_signed(3).hash) is None
    assert not nonces.release(slow), "not its nonce any more: nothing to give back"
    assert nonces.allocate(ADDRESS, CHAIN, chain_pending=3).nonce == 4


def test_a_send_whose_record_committed_gives_nothing_back(aws_env):
    """The record's write committed, but the send saw an error (a lost response): the record (its tracker)
    owns the nonce, so the send's give-back must do nothing."""
    first = nonces.allocate(ADDRESS, CHAIN, chain_pending=0)
    _record(first)
    assert nonces.release(first) is False  # old: gave 0 back (and moved `next` back to 0)
    assert nonces.allocate(ADDRESS, CHAIN, chain_pending=0).nonce == 1


def test_a_dropped_record_gives_its_nonce_back_exactly_once(aws_env):
    """The send gives up before its claim and drops its record; a tracker step that read the record earlier
    must not drop it (and give the nonce back) a second time."""
    first = nonces.allocate(ADDRESS, CHAIN, chain_pending=0)
    tx_hash = _record(first)
    tracker_read = tracking.read(tx_hash)
    assert tracking.abandon(tx_hash)
    again = nonces.allocate(ADDRESS, CHAIN, chain_pending=0)
    assert again.nonce == 0  # the gap is filled
    assert tracking.drop_unsent(tracker_read, 1) is False  # stale: refused, no second give-back
    assert tracking.abandon(tx_hash) is False
    assert nonces.allocate(ADDRESS, CHAIN, chain_pending=0).nonce == 1  # old: 0 again, next moved back


def test_a_claimed_record_is_never_dropped_as_unsent(aws_env):
    """The send claims its record before broadcasting; a tracker step that read it as `signing` cannot then
    drop it and give its nonce back while the transaction goes out (the old early-tracker duplicate)."""
    first = nonces.allocate(ADDRESS, CHAIN, chain_pending=0)
    tx_hash = _record(first)
    tracker_read = tracking.read(tx_hash)
    assert tracking.claim(tracker_read)
    assert tracking.drop_unsent(tracker_read, 1) is False
    assert tracking.read(tx_hash).status == "pending"
    assert nonces.allocate(ADDRESS, CHAIN, chain_pending=0).nonce == 1


def test_a_dropped_record_cannot_be_claimed(aws_env):
    first = nonces.allocate(ADDRESS, CHAIN, chain_pending=0)
    tx_hash = _record(first)
    clock.travel(tracking.ORPHAN_CHECK_S + 1)
    recorded = tracking.read(tx_hash)
    assert tracking.drop_unsent(tracking.read(tx_hash), 1)  # the tracker decided its request died
    assert tracking.claim(recorded) is None  # so the send must not broadcast it


def test_a_send_state_read_before_another_send_recorded_is_a_lost_race_not_a_duplicate(aws_env):
    """A send reads the nonce item and its list counter in one batch, then uses them for its first conditional
    writes; another send that allocated and recorded in between makes those writes fail, and they read again."""
    seen = tracking.read_send_state("w1", ADDRESS, CHAIN, with_nonce=True)
    assert seen.nonce_item == {} and seen.list_count == 0
    first = nonces.allocate(ADDRESS, CHAIN, 0, seen.nonce_item)
    _record(first)  # the other send: nonce 0, list entry 1
    late = nonces.allocate(ADDRESS, CHAIN, 0, seen.nonce_item)  # stale view: `next` absent
    assert late.nonce == 1
    signed = _signed(late.nonce)
    tracking.record("w1", NETWORK, signed, "coin", receipt(signed), late, seen.list_count)  # stale count 0
    entries, total = tracking.list_of("w1").page(PageQuery(page=1, limit=10))
    assert total == 2 and [e["hash"] for e in entries] == [signed.hash, _signed(0).hash]
    fresh = tracking.read_send_state("w1", ADDRESS, CHAIN, with_nonce=True)
    assert int(fresh.nonce_item["next"]) == 2 and fresh.list_count == 2
    assert tracking.read_send_state("w1", ADDRESS, CHAIN, with_nonce=False).nonce_item is None


def test_give_backs_are_never_undone_by_moving_next_back(aws_env):
    """Old `release` moved `next` back when the given-back nonce was the last handed out; a late second
    give-back of the same nonce then moved it back under a nonce already handed out again."""
    a = nonces.allocate(ADDRESS, CHAIN, chain_pending=5)
    assert nonces.release(a)
    b = nonces.allocate(ADDRESS, CHAIN, chain_pending=5)
    assert b.nonce == 5
    assert not nonces.release(a), "a second give-back of the same allocation does nothing"
    assert nonces.allocate(ADDRESS, CHAIN, chain_pending=5).nonce == 6
    item = aws.table("nonces").get_item(Key=nonces.key(ADDRESS, CHAIN))["Item"]
    assert int(item["next"]) == 7 and not item.get("given")


def test_one_record_step_per_message(aws_env, monkeypatch):
    """A duplicate SQS delivery of a tracker message (or a leftover one) must not fork the chain."""
    queued: list[tuple[str, int]] = []
    monkeypatch.setattr(tracking, "enqueue", lambda h, step, delay: queued.append((h, step)))
    tx_hash = _record(nonces.allocate(ADDRESS, CHAIN, chain_pending=0))
    assert queued == [(tx_hash, 0)]
    engine.on_message({"hash": tx_hash, "step": 0})  # young `signing`: counted, one successor
    engine.on_message({"hash": tx_hash, "step": 0})  # the same message delivered again: ends
    assert queued == [(tx_hash, 0), (tx_hash, 1)]
    assert int(tracking.read(tx_hash).checks) == 1


def test_an_orphaned_signing_record_is_dropped_without_asking_the_chain(aws_env, monkeypatch):
    """The send claims its record before it broadcasts, so a `signing` record was never broadcast: once it is
    ORPHAN_CHECK_S old, a tracker step drops it and gives its nonce back, whatever a node would say."""
    monkeypatch.setattr(tracking, "enqueue", lambda h, step, delay: None)
    monkeypatch.setattr(rpc, "rpc_batch", lambda *a, **k: pytest.fail("a signing record's step asks the chain"))
    tx_hash = _record(nonces.allocate(ADDRESS, CHAIN, chain_pending=0))
    clock.travel(tracking.ORPHAN_CHECK_S + 1)
    engine.on_message({"hash": tx_hash, "step": 0})
    dropped = tracking.read(tx_hash)
    assert dropped is not None and (dropped.status, dropped.checks) == ("dropped", 1)
    assert nonces.allocate(ADDRESS, CHAIN, chain_pending=0).nonce == 0  # given back


def test_a_write_refused_for_a_transaction_in_progress_is_a_lost_race(aws_env, monkeypatch):
    """The nonce item now takes part in the record's transaction; DynamoDB refuses a plain write to it
    meanwhile with TransactionConflictException (botocore does not retry it): allocation looks again."""
    real = aws.write
    refusals = iter([True, False])

    def busy_once(item, return_new=False):
        if item.table == nonces.TABLE and next(refusals, False):
            raise aws.ItemBusyError()
        return real(item, return_new)

    monkeypatch.setattr(aws, "write", busy_once)
    assert nonces.allocate(ADDRESS, CHAIN, chain_pending=0).nonce == 0
    assert nonces.allocate(ADDRESS, CHAIN, chain_pending=0).nonce == 1


def test_a_single_write_refused_for_a_transaction_in_progress_is_item_busy(aws_env, monkeypatch):
    """aws.write turns DynamoDB's TransactionConflictException into the one retryable ItemBusyError."""
    real_table = aws.table

    class BusyTable:
        def __init__(self, name):
            self._real = real_table(name)

        def __getattr__(self, attribute):
            return getattr(self._real, attribute)

        def update_item(self, **_):
            exceptions = self.meta.client.exceptions
            raise exceptions.TransactionConflictException(
                {"Error": {"Code": "TransactionConflictException", "Message": "busy"}}, "UpdateItem"
            )

    monkeypatch.setattr(aws, "table", BusyTable)
    item = aws.update("n", nonces.TABLE, nonces.key(ADDRESS, CHAIN), aws.Changes(set={"x": 1}))
    with pytest.raises(aws.ItemBusyError):
        aws.write(item)


def _reserve(pending: int, holder: str = "withdrawal:w1", also=lambda allocation: []) -> nonces.Allocation:
    return nonces.reserve(ADDRESS, CHAIN, pending, holder, also)


def _item() -> dict:
    return aws.table("nonces").get_item(Key=nonces.key(ADDRESS, CHAIN), ConsistentRead=True).get("Item") or {}


def test_a_reservation_is_never_handed_out_however_long_it_waits(aws_env):
    """A holder keeps its nonce across retries for as long as it lives: no lease runs out under it (a lease did,
    and a later allocation took the nonce of a withdrawal waiting for gas)."""
    held = _reserve(0)
    clock.travel(nonces.LEASE_S * 100)
    other = nonces.allocate(ADDRESS, CHAIN, chain_pending=0)
    assert (held.nonce, other.nonce) == (0, 1)
    assert nonces.held(_item()) == {0: held.lease}
    _record(held)  # the holder signs at it after all that time
    assert nonces.held(_item()) == {0: held.lease}, "recording uses the nonce; the reservation stays until it ends"


def test_a_reserved_nonce_a_dropped_record_gave_back_stays_its_holders(aws_env):
    held = _reserve(0)
    tx_hash = _record(held)
    assert tracking.abandon(tx_hash)  # dropped before its broadcast: the nonce is given back...
    assert 0 in {int(n) for n in _item()["given"]}
    assert nonces.allocate(ADDRESS, CHAIN, chain_pending=0).nonce == 1  # ...but no one else gets it
    assert _reserve(0, "withdrawal:w2").nonce == 2
    signed = _signed(0, value=2)  # the holder signs at it again (another signature)
    tracking.record("w1", NETWORK, signed, "coin", receipt(signed), held)
    assert not _item().get("given"), "recorded again: out of `given`"


def test_a_reservation_ends_with_its_holder_and_an_unused_nonce_goes_on(aws_env):
    """A gap: nonce 0 reserved, 1 leased and sent; the holder of 0 ends without a transaction: 0 is handed out
    next (so the transaction at 1 can be mined), once."""
    held = _reserve(0)
    sent = nonces.allocate(ADDRESS, CHAIN, chain_pending=0)
    _record(sent)
    aws.transact([nonces.end_item(held, give_back=True)])
    assert nonces.held(_item()) == {}
    assert nonces.allocate(ADDRESS, CHAIN, chain_pending=0).nonce == 0
    assert nonces.allocate(ADDRESS, CHAIN, chain_pending=0).nonce == 2
    used = _reserve(3)  # a holder whose own transaction used its nonce: nothing given back
    aws.transact([nonces.end_item(used, give_back=False)])
    assert nonces.allocate(ADDRESS, CHAIN, chain_pending=4).nonce == 4


def test_no_reservation_without_its_holders_record(aws_env):
    """The reservation and the holder's record of it are one transaction: a holder that lost its claim (or a
    crash) leaves no reservation that nobody would ever end."""
    taken = aws.put("withdrawal", "nonces", {"pk": "W", "sk": "W"}, aws.EXISTS)  # a condition that fails
    with pytest.raises(aws.TransactionCancelledError):
        _reserve(0, also=lambda allocation: [taken])
    assert nonces.held(_item()) == {}
    assert nonces.allocate(ADDRESS, CHAIN, chain_pending=0).nonce == 0


def _given(address: str = ADDRESS) -> set[int]:
    item = aws.table(nonces.TABLE).get_item(Key=nonces.key(address, CHAIN), ConsistentRead=True).get("Item") or {}
    return {int(n) for n in item.get("given", set())}


def test_a_span_of_two_takes_two_consecutive_nonces_and_every_give_back_returns_both(aws_env):
    """A transaction with its sender's own EIP-7702 authorization uses its nonce and the next: both are its own
    from the allocation (two given back in a row, or the last given back and the next fresh one, else two fresh),
    and wherever the first comes back (a release, a lease recovery, a record dropped unsent, a cancel mined
    instead) the second does too, so no later nonce waits on a hole."""
    first, second, third = (nonces.allocate(ADDRESS, CHAIN, chain_pending=0) for _ in range(3))
    _record(second)
    assert nonces.release(first) and nonces.release(third) and _given() == {0, 2}
    span = nonces.allocate(ADDRESS, CHAIN, chain_pending=0, span=2)
    assert (span.nonce, span.nonces) == (2, {2, 3})  # 0 alone is no span: 1 is taken
    below, past = (nonces.allocate(ADDRESS, CHAIN, chain_pending=0) for _ in range(2))
    assert (below.nonce, past.nonce) == (0, 4)  # the one left, then past the span
    _record(below)
    _record(past)
    assert nonces.release(span) and _given() == {2, 3}
    again = nonces.allocate(ADDRESS, CHAIN, chain_pending=0, span=2)
    assert again.nonce == 2 and _given() == set()  # both given back, both taken

    # A send that died holding its span: the next allocation recovers its lease, both nonces.
    clock.travel(nonces.LEASE_S + 1)  # every lease above is past its time; only `again` was not ended
    recovered = nonces.allocate(ADDRESS, CHAIN, chain_pending=0)
    assert recovered.nonce == 2 and _given() == {3}
    _record(recovered)

    # Recorded, then dropped before its broadcast: both back, once.
    recorded = nonces.allocate(ADDRESS, CHAIN, chain_pending=0, span=2)
    assert recorded.nonce == 5  # 3 alone is no span: 4 was handed out
    tx_hash = _record(recorded)
    assert tracking.read(tx_hash).nonceSpan == 2
    assert tracking.abandon(tx_hash)
    assert _given() == {3, 5, 6}

    # Recorded and broadcast, then its no-op replacement mined (cancelled): the chain used the first nonce only.
    sent = nonces.allocate(ADDRESS, CHAIN, chain_pending=0, span=2)
    assert sent.nonce == 5
    signed = _signed(sent.nonce, value=2)  # another transaction at the nonce the dropped one had
    tracking.record("w1", NETWORK, signed, "coin", receipt(signed), sent)
    tx = tracking.read(signed.hash)
    assert tx is not None and tracking.claim(tx) is not None
    assert tracking.move(tracking.read(tx.hash), "cancelled")
    assert _given() == {3, 6}


def test_a_cancel_mined_reverted_still_cancels_and_gives_the_rest_of_the_span_back(aws_env, monkeypatch):
    """A delegated wallet's cancel (a 0-value self-send at 21 000 gas) can run out of gas in its delegate's code: it
    is mined all the same, took the nonce, and the payment never happened. The record is `cancelled` and the
    nonce its own authorization would have raised comes back, so no later send waits on it."""
    span = nonces.allocate(ADDRESS, CHAIN, chain_pending=0, span=2)
    signed = _signed(span.nonce, value=3)
    tracking.record("w1", NETWORK, signed, "delegation", receipt(signed), span)
    tx = tracking.claim(tracking.read(signed.hash))
    assert tx is not None
    no_op = UnsignedTx(CHAIN, span.nonce, ADDRESS, 0, b"", tracking.CANCEL_GAS, gas_price=2 * 10**9)
    key = eth_keys.PrivateKey(bytes.fromhex(KEY[2:])).sign_msg_hash(signing_hash(no_op))
    cancel = assemble(no_op, ADDRESS, key.r.to_bytes(32, "big") + key.s.to_bytes(32, "big") + bytes([key.v]))
    replaced = tracking.replace(tx, cancel, "cancel", True)
    assert replaced is not None
    monkeypatch.setattr(engine, "_owner_waits", lambda _: False)
    mined = {"status": "0x0", "blockNumber": "0x5", "blockHash": "0x" + "ab" * 32, "gasUsed": "0x5208"}
    engine._settle(replaced, cancel.hash, mined, {"checks": 1})
    assert tracking.read(signed.hash).status == "cancelled"
    assert _given() == {span.nonce + 1}
