"""The pieces of the MPC service on their own: the aux pool, the mailbox, the party handlers, secret0."""

from __future__ import annotations

import time

import dompet_mpc as mpc
import pytest

from chalicelib.evm import digests
from chalicelib.mpc import aux_pool, parties, shares
from chalicelib.mpc.mailbox import Mailbox, RunFailedError, drive
from chalicelib.platform import aws
from devtools.workers import LocalContext, scheduled_event

# --- aux pool -------------------------------------------------------------------------------


def test_claim_consume(aux_sets):
    first, second = aux_sets(2)
    claimed = {aux_pool.claim("w1"), aux_pool.claim("w2")}
    assert claimed == {first, second}
    with pytest.raises(aux_pool.PoolEmptyError):
        aux_pool.claim("w3")
    aux_pool.consume(first)
    assert aux_pool.ready_count() == 0


def test_a_stale_claim_retires_the_set_instead_of_handing_it_to_another_wallet(aux_sets):
    """The old pool gave a set claimed by a creation that died to the next wallet; its parties may have seen it."""
    from chalicelib.platform import clock

    (abandoned,) = aux_sets(1)
    assert aux_pool.claim("w-died") == abandoned
    clock.travel(aux_pool.CLAIM_TTL_S + 1)
    try:
        with pytest.raises(aux_pool.PoolEmptyError):
            aux_pool.claim("w-next")  # never the abandoned set
        assert aux_pool.retire_stale_claims() == 1
    finally:
        clock.reset()
    assert "Item" not in aws.table("aux-pool").get_item(Key={"pk": aux_pool.PK, "sk": f"AUX#{abandoned}"})


def test_each_party_opens_only_its_own_aux_part(aux_sets):
    (aux_id,) = aux_sets(1)
    parts = [aux_pool.open_part(aux_id, party) for party in aux_pool.PARTIES]
    assert len(set(parts)) == 3
    item = aws.table("aux-pool").get_item(Key={"pk": aux_pool.PK, "sk": f"AUX#{aux_id}"})["Item"]
    from chalicelib.platform.kms_envelope import Sealed, open_sealed

    with pytest.raises(Exception, match="InvalidCiphertext"):  # party 1's part under party 0's key and context
        open_sealed("share-a", Sealed.from_item(item["part1"]), aux_pool.aux_context(aux_id, 0))


def test_scheduled_refill_tops_up_to_the_target_within_its_time(aux_sets, monkeypatch):
    from app import app
    from devtools import aux_cache

    cached = iter(aux_cache.insecure_sets(3))
    # Real generation takes minutes (safe primes); the refill logic is what is under test here.
    monkeypatch.setattr(aux_pool, "generate_set", lambda primes=None: next(cached))
    monkeypatch.setenv("DOMPET_AUX_POOL_TARGET", "2")
    from chalicelib.platform import settings

    settings.load_settings.cache_clear()
    try:
        handler = app.handler_map["refill_aux_pool"]
        handler(scheduled_event("us-east-1"), LocalContext("refill_aux_pool"))
        assert aux_pool.ready_count() == 2
        handler(scheduled_event("us-east-1"), LocalContext("refill_aux_pool"))
        assert aux_pool.ready_count() == 2, "a full pool is left alone"
        nearly_out = LocalContext("refill_aux_pool", deadline=time.monotonic() + 60)
        aux_pool.claim("w")
        handler(scheduled_event("us-east-1"), nearly_out)
        assert aux_pool.ready_count() == 1, "no set is started without time to finish it"
    finally:
        settings.load_settings.cache_clear()


# --- mailbox ---------------------------------------------------------------------------------


def test_keygen_over_the_mailbox_and_what_the_table_holds(aws_env):
    import threading

    run_id = "ab" * 16
    eid = b"dompet:test:" + run_id.encode()
    results: dict[int, bytes] = {}

    def party(i: int) -> None:
        box = Mailbox(run_id, i, tuple(p for p in range(3) if p != i))
        box.open()
        results[i] = drive(mpc.keygen_session(eid, i), box, time.monotonic() + 20)

    threads = [threading.Thread(target=party, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 3 and len({mpc.eth_address(r) for r in results.values()}) == 1

    items = aws.table("mpc-mailbox").scan()["Items"]
    assert {i["sk"] for i in items if i["sk"].startswith("KEY#")} == {"KEY#0", "KEY#1", "KEY#2"}
    messages = [i for i in items if i["sk"].startswith("MSG#")]
    assert messages and all(i["expiresAt"] > time.time() for i in items)
    # Sealed: what is stored does not parse as a protocol message.
    for item in messages:
        with pytest.raises(mpc.MpcError):
            mpc.sender(bytes(item["box"]))


def test_forged_misattributed_and_out_of_order_messages(aws_env):
    from nacl.public import Box, PrivateKey

    run_id = "cd" * 16
    me = Mailbox(run_id, 0, (1,))
    me.open()
    peer = Mailbox(run_id, 1, (0,))  # party 1 publishes its key honestly
    peer.open()
    table = aws.table("mpc-mailbox")

    # A genuine message from party 1 whose envelope names party 2 as sender: dropped.
    (misattributed, *_) = mpc.keygen_session(b"eid", 2).start()
    peer.post(misattributed, [0], time.monotonic() + 5, lambda: None)
    # A message written by someone without party 1's private key, in party 1's next slot: dropped.
    forged = Box(PrivateKey.generate(), me._private.public_key).encrypt(b"not from party 1")  # type: ignore[union-attr]
    table.put_item(Item={"pk": f"RUN#{run_id}", "sk": "MSG#0#1#000002", "box": bytes(forged), "expiresAt": 2**31})
    assert me.fetch() == []

    # Message 4 visible before message 3: nothing is taken until 3 arrives, then both, in order.
    (first, *_) = mpc.keygen_session(b"eid", 1).start()
    third = Box(peer._private, me._private.public_key).encrypt(first)  # type: ignore[arg-type, union-attr]
    table.put_item(Item={"pk": f"RUN#{run_id}", "sk": "MSG#0#1#000004", "box": bytes(third), "expiresAt": 2**31})
    assert me.fetch() == []
    peer._sent[0] = 2
    peer.post(first, [0], time.monotonic() + 5, lambda: None)  # seq 3
    assert me.fetch() == [first, first]
    assert me.fetch() == []


def test_a_run_without_peers_stops_at_its_deadline(aws_env):
    box = Mailbox("ef" * 16, 0, (1,))
    box.open()
    with pytest.raises(RunFailedError):
        drive(mpc.keygen_session(b"eid", 0), box, time.monotonic() + 0.3)


def test_a_failed_peer_stops_the_run_at_once(aws_env):
    box = Mailbox("01" * 16, 0, (1, 2))
    box.open()

    def peer_failed() -> None:
        raise RunFailedError("cosigner stopped")

    started = time.monotonic()
    with pytest.raises(RunFailedError, match="cosigner stopped"):
        drive(mpc.keygen_session(b"eid", 0), box, started + 60, alive=peer_failed)


# --- party handlers and secret0 ----------------------------------------------------------------


@pytest.mark.parametrize(
    "event",
    [
        {},
        {"action": "sign", "runId": "x", "walletId": "y", "peers": [0]},
        {"action": "sign", "runId": "ab" * 16, "walletId": "cd" * 16, "peers": [0]},  # no digest
        {"action": "keygen", "runId": "ab" * 16, "walletId": "cd" * 16, "peers": [0, 2]},  # no aux set
        {"action": "drop-table", "runId": "ab" * 16, "walletId": "cd" * 16, "peers": [0]},
    ],
)
def test_party_handlers_refuse_bad_requests(aws_env, event):
    for handler in (parties.cosigner, parties.user_party):
        assert handler(event) == {"ok": False, "code": "BAD_PARTY_REQUEST"}


def test_user_party_refuses_a_secret0_for_another_wallet(wallet_secret0):
    secret0, wallet_id = wallet_secret0
    event = {
        "action": "sign",
        "runId": "ab" * 16,
        "walletId": "0" * 32,
        "peers": [0],
        "digest": digests.digest_of(digests.personal_message(b"x")).hex(),
        "payload": digests.personal_message(b"x").model_dump(),
        "signers": [0, 2],
        "secret0": secret0,
    }
    assert parties.user_party(event) == {"ok": False, "code": "SECRET0_REJECTED"}
    # A secret0 whose wallet id was edited does not open (the id is in the KMS encryption context).
    edited = secret0.replace(wallet_id, "0" * 32)
    assert parties.user_party({**event, "secret0": edited}) == {"ok": False, "code": "SECRET0_REJECTED"}


@pytest.fixture
def wallet_secret0(tenant, aux_sets):
    from chalicelib.auth import users
    from chalicelib.auth.models import WalletPrincipal
    from chalicelib.auth.tokens import Claims, TokenKind
    from chalicelib.tenancy import service as tenancy
    from chalicelib.wallets import provisioning

    aux_sets(1)
    user = users.get_or_create(tenant.clientId, "alice")
    principal = WalletPrincipal(
        tenancy.client_for_secret(tenant.clientSecret),
        Claims(user.userId, tenant.clientId, "alice", TokenKind.ACCESS, 0, 2**31, "t"),
        user,
    )
    created = provisioning.create(principal, None)
    return created.secret0, shares.wallet_id_of(created.secret0)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "dompet-s0.2.x.y.z.w",
        "dompet-s0.1." + "g" * 32 + ".AA.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA",
        "dompet-s0.1." + "a" * 32 + ".AA.AAAA.AAAAAAAAAAAAAAAAAAAAAA",  # nonce too short
        "dompet-s0.1." + "a" * 32 + ".A+A.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA",
        "x" * 70_000,
    ],
)
def test_malformed_secret0_shapes(text):
    with pytest.raises(shares.Secret0Error):
        shares.wallet_id_of(text)
