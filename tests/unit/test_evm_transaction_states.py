"""The EVM transaction record's declared table (evm/tracking.py `EvmTransaction.machine`), against moto: every
declared move writes, every other move raises before writing, moves are versioned (the send path's own two are
conditional on the status alone), and the public moves custody uses after a reorg."""

from __future__ import annotations

from typing import Any

import pytest
from eth_account import Account
from eth_keys import keys as eth_keys

from chalicelib.evm import nonces, tracking
from chalicelib.evm.tracking import EvmTransaction
from chalicelib.evm.transactions import SignedTx, UnsignedTx, assemble, receipt, signing_hash
from chalicelib.platform import aws
from chalicelib.platform.networks import Network
from chalicelib.platform.transitions import Move, UndeclaredMoveError, refused_moves, transition
from chalicelib.platform.unit_of_work import Plan

KEY = "0x" + "33" * 32
ADDRESS = Account.from_key(KEY).address
CHAIN = 31337
NETWORK = Network.model_validate(
    {"name": "local-a", "chainId": CHAIN, "rpcUrls": ["http://127.0.0.1:9"], "nativeSymbol": "ETH"}
)


def _signed(nonce: int = 0) -> SignedTx:
    tx = UnsignedTx(chain_id=CHAIN, nonce=nonce, to=ADDRESS, value=1, data=b"", gas=21_000, gas_price=10**9)
    signature = eth_keys.PrivateKey(bytes.fromhex(KEY[2:])).sign_msg_hash(signing_hash(tx))
    raw = signature.r.to_bytes(32, "big") + signature.s.to_bytes(32, "big") + bytes([signature.v])
    return assemble(tx, ADDRESS, raw)


def _in(status: str, nonce: int = 0, **extra: Any) -> EvmTransaction:
    """A record as the tracker left it in `status` (written directly: the moves under test start from it)."""
    signed = _signed(nonce)
    item = {
        "pk": f"TX#{signed.hash.lower()}",
        "sk": "TX",
        "hash": signed.hash,
        "walletId": "w1",
        "network": NETWORK.name,
        "chainId": CHAIN,
        "kind": "coin",
        "from": ADDRESS,
        "to": ADDRESS,
        "value": "1",
        "nonce": nonce,
        "status": status,
        "receipt": "{}",
        "raw": "0x" + signed.raw.hex(),
        "chosenNonce": True,
        "createdAt": "2024-01-01T00:00:00.000Z",
        "updatedAt": "2024-01-01T00:00:00.000Z",
        "checks": 0,
        "version": 4,
        **extra,
    }
    item = {k: v for k, v in item.items() if v is not None}  # None: the attribute is absent
    aws.write(aws.put("as-left", tracking.TABLE, item, None))
    found = tracking.read(signed.hash)
    assert found is not None
    return found


@pytest.mark.parametrize("move", EvmTransaction.machine.moves, ids=lambda m: f"{m.source}->{m.target}")
def test_every_declared_move_writes_the_status_and_moves_the_version_on(aws_env: None, move: Move) -> None:
    tx = _in(move.source)
    aws.write(transition(tx, move.target, checks=1))
    after = tracking.read(tx.hash)
    assert after is not None
    assert (after.status, after.version, after.checks) == (move.target, 5, 1)
    assert after.updatedAt != tx.updatedAt and after.sender == ADDRESS


@pytest.mark.parametrize("pair", refused_moves(EvmTransaction.machine), ids=lambda p: f"{p[0]}->{p[1]}")
def test_every_undeclared_move_raises_before_writing(aws_env: None, pair: tuple[str, str]) -> None:
    source, target = pair
    tx = _in(source)
    with pytest.raises(UndeclaredMoveError):
        aws.write(transition(tx, target, checks=1))
    assert tracking.read(tx.hash) == tx


def test_a_tracker_move_from_a_stale_read_is_refused(aws_env: None) -> None:
    tx = _in("pending")
    assert tracking.move(tx, "pending", checks=1)
    assert tracking.move(tx, "mined", blockNumber=7, blockHash="0xab") is False  # read before the first move
    after = tracking.read(tx.hash)
    assert after is not None and (after.status, after.checks) == ("pending", 1)


def test_the_send_paths_moves_need_the_status_alone(aws_env: None) -> None:
    """claim and mark_refused do not read the record: a tracker step that moved its version meanwhile does not
    stop them, another status does."""
    nonces.allocate(ADDRESS, CHAIN, chain_pending=0)  # the nonce item the give-back adds to
    signed = _signed(0)
    recorded = tracking.record("w1", NETWORK, signed, "coin", receipt(signed), None)
    assert tracking.move(recorded, "signing", checks=1)  # a tracker check: version 1
    claimed = tracking.claim(recorded)
    assert claimed is not None and claimed.status == "pending"
    assert tracking.move(claimed, "pending", checks=2) is False  # the claim moved the version on
    assert tracking.mark_refused(claimed, "x" * 400, give_back=True)
    after = tracking.read(signed.hash)
    assert after is not None and after.status == "failed" and after.failedReason == "x" * 300
    assert 0 in {int(n) for n in aws.table(nonces.TABLE).get_item(Key=nonces.key(ADDRESS, CHAIN))["Item"]["given"]}
    assert tracking.mark_refused(claimed, "again", give_back=True) is False  # failed is final: no second give-back
    assert tracking.claim(recorded) is None


def test_a_reorg_hands_the_record_back_to_the_tracker(aws_env: None, monkeypatch: pytest.MonkeyPatch) -> None:
    queued: list[tuple[str, int]] = []
    monkeypatch.setattr(tracking, "enqueue", lambda h, step, delay: queued.append((h, step)))
    tx = _in("mined", blockNumber=7, blockHash="0xab", checks=3)
    assert tracking.remined(tx, 8, "0xcd")
    assert tracking.reorged_out(tx) is False  # moved since the read
    again = tracking.read(tx.hash)
    assert again is not None and (again.status, again.blockNumber, again.blockHash) == ("mined", 8, "0xcd")
    assert queued == []
    assert tracking.reorged_out(again)
    assert tracking.read(tx.hash).status == "pending"  # type: ignore[union-attr]
    assert queued == [(tx.hash, 3)]


def test_the_callers_plan_goes_with_the_record_or_not_at_all(aws_env: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """`record(also=Plan(...))`: the caller's items are written in the record's one unit of work; a failed
    condition of theirs leaves no record."""
    monkeypatch.setattr(tracking, "enqueue", lambda h, step, delay: None)
    mark = {"pk": "MARK", "sk": "MARK"}
    signed = _signed(1)
    blocked = Plan(
        items=[
            aws.update("mark", tracking.TABLE, mark, aws.Changes(set={"n": 1}), aws.Condition("attribute_exists(pk)"))
        ]
    )
    with pytest.raises(aws.TransactionCancelledError) as refused:
        tracking.record("w1", NETWORK, signed, "coin", receipt(signed), None, also=blocked)
    assert refused.value.condition_failed("mark")
    assert tracking.read(signed.hash) is None
    tracking.record(
        "w1",
        NETWORK,
        signed,
        "coin",
        receipt(signed),
        None,
        also=Plan(items=[aws.put("mark", tracking.TABLE, {**mark, "hash": signed.hash})]),
    )
    assert tracking.read(signed.hash) is not None
    assert aws.table(tracking.TABLE).get_item(Key=mark)["Item"]["hash"] == signed.hash
