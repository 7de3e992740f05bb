"""The deposit's declared transitions (custody/deposits/records.py) and the watcher's confirmation decisions
(custody/deposits/confirm.py) against moto and a fake chain (a small object standing in for the node's reads): no anvil.

Every allowed move is written, every other move raises before anything is written, a deposit that moved
meanwhile refuses the write; the confirmation credits at its confirmations, follows a re-mined transaction,
reverts one whose block left the chain (before or after its credit, with the balances to match) and gives no
verdict while a node lags or its view moves."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pytest

from chalicelib.custody import ledger
from chalicelib.custody.deposits import lifecycle as deposits
from chalicelib.custody.deposits import watcher
from chalicelib.custody.deposits.confirm import REORG_WATCH_BLOCKS, confirm
from chalicelib.custody.deposits.records import DEPOSIT_MACHINE, Deposit, deposit_key
from chalicelib.custody.deposits.scan import StepReport
from chalicelib.custody.store import TABLE, get
from chalicelib.custody.tokens import TRANSFER_TOPIC, accepted
from chalicelib.evm.rpc import RpcError
from chalicelib.platform import aws, unit_of_work
from chalicelib.platform.pagination import PageQuery
from chalicelib.platform.transitions import UndeclaredMoveError, condition, refused_moves, transition
from chalicelib.platform.unit_of_work import Plan
from tests.support.networks import aa_network

TOKEN = "0x" + "12" * 20
ADDRESS = "0x" + "ab" * 20
SENDER = "0x" + "cd" * 20
CONFIRMATIONS = 3
BLOCK = 100
TX = "0x" + "77" * 32
VALUE = 2_500_000


@pytest.fixture
def custody(aws_env: None, use_networks: Any) -> dict[str, Any]:
    """A custody network with one ERC-20 and one account (its item in the table), as the watcher reads them."""
    use_networks(
        [
            aa_network(
                "local-a",
                31337,
                confirmations=CONFIRMATIONS,
                custodyTokens=[{"tokenCode": "usdt", "symbol": "USDT", "decimals": 6, "tokenAddress": TOKEN}],
            )
        ]
    )
    account = {
        "pk": "ACCOUNT#acct",
        "sk": "ACCOUNT",
        "id": "acct",
        "appId": "app",
        "subId": "alice",
        "wallets": [{"walletId": "w-1", "network": "local-a", "chainId": 31337, "address": ADDRESS}],
    }
    aws.table(TABLE).put_item(Item=account)
    return account


def block_hash(height: int, fork: str = "a") -> str:
    return "0x" + f"{fork}{height:x}".rjust(64, "0")


def transfer(height: int = BLOCK, fork: str = "a") -> deposits.Transfer:
    return deposits.Transfer(
        pair=accepted("local-a", "usdt"),
        tx_hash=TX,
        ordinal="0",
        log_index=4,
        sender=SENDER,
        to=ADDRESS,
        value=VALUE,
        block_number=height,
        block_hash=block_hash(height, fork),
        block_time=1_700_000_000,
    )


def receipt(height: int = BLOCK, fork: str = "a", status: str = "0x1", value: int = VALUE) -> dict[str, Any]:
    topic = "0x" + "00" * 12
    log = {
        "address": TOKEN,
        "topics": [TRANSFER_TOPIC, topic + SENDER[2:], topic + ADDRESS[2:]],
        "data": "0x" + f"{value:064x}",
        "logIndex": hex(9),
    }
    return {"status": status, "blockNumber": hex(height), "blockHash": block_hash(height, fork), "logs": [log]}


class FakeChain:
    """The node's answers the confirmation reads: canonical blocks by height, receipts by transaction hash."""

    def __init__(self, head: int, receipts: dict[str, Any] | None = None, fork: str = "a") -> None:
        self.head = head
        self.fork = fork
        self.answers = receipts if receipts is not None else {TX: receipt()}

    def blocks(self, numbers: Iterable[int], full: bool, allow_missing: bool = False) -> list[Any]:
        return [{"hash": block_hash(n, self.fork)} if n <= self.head else None for n in numbers]

    def receipts(self, hashes: list[str]) -> dict[str, Any]:
        return {h: self.answers.get(h) for h in hashes}


def step(chain: FakeChain) -> StepReport:
    report = StepReport("local-a", head=chain.head)
    confirm(accepted("local-a", "usdt").network, report, chain)
    return report


def stored() -> Deposit:
    found = deposits.find(transfer().id)
    assert found is not None
    return found


def balance() -> dict[str, int]:
    key = ledger.balance_key("acct", accepted("local-a", "usdt").key)
    item = get(key["pk"], key["sk"]) or {}
    return {f: int(item.get(f, "0")) for f in ledger.FIELDS}


def watched() -> bool:
    return get(**deposits.watch_key(31337, transfer().id)) is not None


# --- the declared table ------------------------------------------------------------------------------------


def record(status: str) -> Deposit:
    return Deposit(
        **deposit_key("dep-1"),
        id="dep-1",
        appId="app",
        accountId="acct",
        userId="alice",
        walletId="w-1",
        network="local-a",
        chainId=31337,
        tokenCode="usdt",
        tokenId="tok",
        txHash=TX,
        txRef=TX,
        ordinal="0",
        to=ADDRESS,
        value=str(VALUE),
        blockNumber=BLOCK,
        blockHash=block_hash(BLOCK),
        confirmationsRequired=CONFIRMATIONS,
        status=status,
        matchType="wallet",
        seenAt="2024-01-01T00:00:00.000Z",
        createdAt="2024-01-01T00:00:00.000Z",
        **{"from": SENDER},
    )


def put(deposit: Deposit) -> None:
    aws.table(TABLE).put_item(Item={**deposit.to_item(), **deposit.status_index().set})


@pytest.mark.parametrize("move", DEPOSIT_MACHINE.moves, ids=lambda m: f"{m.source}->{m.target}")
def test_every_declared_move_is_written_with_its_index(aws_env: None, move: Any) -> None:
    before = record(move.source)
    put(before)
    aws.write(transition(before, move.target, expect={"blockHash": before.blockHash}, updatedAt="now"))
    item = get(**deposit_key("dep-1"))
    assert item is not None and item["status"] == move.target and item["updatedAt"] == "now"
    assert (
        item["statusKey"] == f"DEPOSIT#app#{move.target}" and item["accountStatusKey"] == f"DEPOSIT#acct#{move.target}"
    )
    assert item["from"] == SENDER  # the sender, stored under the name Python keeps for itself, is kept


@pytest.mark.parametrize("pair", refused_moves(DEPOSIT_MACHINE), ids=lambda p: f"{p[0]}->{p[1]}")
def test_every_other_move_is_refused_before_anything_is_written(aws_env: None, pair: tuple[str, str]) -> None:
    source, target = pair
    put(record(source))
    with pytest.raises(UndeclaredMoveError):
        transition(record(source), target)
    with pytest.raises(UndeclaredMoveError):
        condition(record(source), target)
    item = get(**deposit_key("dep-1"))
    assert item is not None and item["status"] == source


def test_the_table_matches_the_watcher() -> None:
    assert DEPOSIT_MACHINE.initial == {"pending"} and DEPOSIT_MACHINE.final == frozenset()
    assert {(m.source, m.target) for m in DEPOSIT_MACHINE.moves} == {
        ("pending", "pending"),
        ("pending", "credited"),
        ("pending", "reverted"),
        ("credited", "credited"),
        ("credited", "reverted"),
        ("reverted", "pending"),
    }


def test_a_deposit_that_moved_or_was_re_mined_meanwhile_refuses_the_write(aws_env: None) -> None:
    read = record("pending")
    put(read)
    aws.write(transition(read, "credited", expect={"blockHash": read.blockHash}))
    with pytest.raises(aws.ConditionFailedError):  # status as read
        aws.write(transition(read, "reverted", expect={"blockHash": read.blockHash}))
    credited = stored_record()
    with pytest.raises(aws.ConditionFailedError):  # the block as read
        aws.write(transition(credited, "reverted", expect={"blockHash": block_hash(BLOCK, "b")}))
    assert stored_record().status == "credited"


def stored_record() -> Deposit:
    item = get(**deposit_key("dep-1"))
    assert item is not None
    return Deposit.from_item(item)


def test_the_replacing_put_of_a_new_revision_needs_the_record_reverted(aws_env: None) -> None:
    reverted = record("reverted")
    put(reverted)
    new = record("pending").model_copy(update={"revision": 1})
    aws.write(aws.put("deposit", TABLE, new.to_item(), condition(reverted, "pending")))
    assert stored_record().status == "pending" and stored_record().revision == 1
    with pytest.raises(aws.ConditionFailedError):  # no longer reverted: a second replacement is refused
        aws.write(aws.put("deposit", TABLE, new.to_item(), condition(reverted, "pending")))


# --- the confirmation's decisions --------------------------------------------------------------------------


def test_credited_at_its_confirmations_once(custody: dict[str, Any]) -> None:
    assert deposits.seen(transfer(), custody) == "new"
    assert balance() == {"active": 0, "pending": VALUE, "held": 0}
    assert step(FakeChain(BLOCK + CONFIRMATIONS - 2)).credited == 0  # not yet due
    assert stored().status == "pending"
    assert step(FakeChain(BLOCK + CONFIRMATIONS - 1)).credited == 1
    assert stored().status == "credited" and stored().confirmations == CONFIRMATIONS
    assert balance() == {"active": VALUE, "pending": 0, "held": 0}
    assert step(FakeChain(BLOCK + CONFIRMATIONS)).credited == 0 and watched()  # still watched for deep reorgs
    assert deposits.seen(transfer(), custody) == "known"  # a rescan records nothing


def test_watched_until_reorg_watch_blocks_after_the_credit(custody: dict[str, Any]) -> None:
    deposits.seen(transfer(), custody)
    step(FakeChain(BLOCK + CONFIRMATIONS))
    step(FakeChain(BLOCK + REORG_WATCH_BLOCKS - 1))
    assert watched()
    step(FakeChain(BLOCK + REORG_WATCH_BLOCKS))
    assert not watched() and stored().status == "credited"


def test_reverted_when_its_block_left_the_chain(custody: dict[str, Any]) -> None:
    deposits.seen(transfer(), custody)
    report = step(FakeChain(BLOCK + CONFIRMATIONS, receipts={}, fork="b"))  # another block at its height
    assert report.reverted == 1 and stored().status == "reverted" and stored().afterCredit is False
    assert balance() == {"active": 0, "pending": 0, "held": 0} and not watched()


def test_a_reorg_after_the_credit_posts_a_correcting_entry(custody: dict[str, Any]) -> None:
    deposits.seen(transfer(), custody)
    step(FakeChain(BLOCK + CONFIRMATIONS))
    report = step(FakeChain(BLOCK + CONFIRMATIONS + 1, receipts={}, fork="b"))
    assert report.reverted == 1 and stored().status == "reverted" and stored().afterCredit is True
    assert balance() == {"active": 0, "pending": 0, "held": 0}


def test_seen_again_after_a_revert_is_a_new_revision(custody: dict[str, Any]) -> None:
    deposits.seen(transfer(), custody)
    step(FakeChain(BLOCK + CONFIRMATIONS, receipts={}, fork="b"))
    assert deposits.seen(transfer(BLOCK + 2, fork="b"), custody) == "again"
    assert stored().status == "pending" and stored().revision == 1 and stored().blockNumber == BLOCK + 2
    assert balance()["pending"] == VALUE


def test_no_verdict_while_a_node_lags_or_its_view_moves(custody: dict[str, Any]) -> None:
    deposits.seen(transfer(), custody)
    head = BLOCK + CONFIRMATIONS
    lagging = step(FakeChain(head, receipts={}))  # no receipt, but its block is still canonical
    refused = step(FakeChain(head, receipts={TX: RpcError(-32000, "busy")}))
    moving = step(FakeChain(head, receipts={TX: receipt(BLOCK + 1, fork="c")}))  # receipt's block not canonical
    assert (lagging.reverted, lagging.credited, refused.credited, moving.credited) == (0, 0, 0, 0)
    assert stored().status == "pending" and balance()["pending"] == VALUE


def test_followed_to_the_block_that_mined_it_again(custody: dict[str, Any]) -> None:
    deposits.seen(transfer(), custody)
    chain = FakeChain(BLOCK + CONFIRMATIONS, receipts={TX: receipt(BLOCK + 1, fork="b")}, fork="b")
    report = step(chain)
    assert report.credited == 0 and report.reverted == 0
    assert stored().status == "pending" and stored().blockNumber == BLOCK + 1 and stored().logIndex == 9
    assert stored().blockHash == block_hash(BLOCK + 1, "b")
    assert (
        step(FakeChain(BLOCK + CONFIRMATIONS + 1, receipts={TX: receipt(BLOCK + 1, fork="b")}, fork="b")).credited == 1
    )


@pytest.mark.parametrize("answer", [receipt(status="0x0"), receipt(value=VALUE - 1)], ids=["failed", "other-value"])
def test_reverted_when_mined_but_failing_or_not_paying(custody: dict[str, Any], answer: dict[str, Any]) -> None:
    deposits.seen(transfer(), custody)
    assert step(FakeChain(BLOCK + CONFIRMATIONS, receipts={TX: answer})).reverted == 1
    assert stored().status == "reverted" and balance()["pending"] == 0


# --- an invoice's deposits, paged ----------------------------------------------------------------------------


def test_an_invoice_with_more_than_100_deposits_is_paged_whole(custody: dict[str, Any]) -> None:
    """Its list's pages, filtered or not: nothing is cut off past 100 (the list is read page by page)."""
    entries = deposits.invoice_list("app", "inv-1")
    for n in range(105):
        status = "credited" if n % 5 == 0 else "pending"
        item = record(status).model_copy(update={"id": f"dep-{n}", "sk": "DEPOSIT", "pk": f"DEPOSIT#dep-{n}"})
        aws.table(TABLE).put_item(Item=item.to_item())
        unit_of_work.commit(Plan(lists=[(entries, {"depositId": f"dep-{n}", "createdAt": f"{n:04d}"})]))
    first, total = deposits.page("app", None, "inv-1", None, PageQuery(page=1, limit=100))
    second, _ = deposits.page("app", None, "inv-1", None, PageQuery(page=2, limit=100))
    assert total == 105 and len(first) == 100 and len(second) == 5
    assert {d["id"] for d in first + second} == {f"dep-{n}" for n in range(105)}
    pending, pending_total = deposits.page("app", None, "inv-1", "pending", PageQuery(page=1, limit=100))
    rest, _ = deposits.page("app", "acct", "inv-1", "pending", PageQuery(page=2, limit=50))
    assert pending_total == 84 and len(pending) == 84 and len(rest) == 34
    assert all(d["status"] == "pending" for d in pending)
    assert deposits.page("app", "other", "inv-1", None, PageQuery(page=1, limit=10)) == ([], 0)


def test_a_network_without_an_answering_node_is_skipped_and_its_lease_freed(
    custody: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """No node answers (the registry's RPC URL refuses connections): a warning, not an error, the pass goes on,
    nothing is recorded and the next run may take the network at once."""
    logged: list[tuple[str, dict[str, Any]]] = []

    class Recorder:
        def warning(self, message: str, extra: dict[str, Any]) -> None:
            logged.append(("warning", extra))

        def error(self, message: str, extra: dict[str, Any]) -> None:
            logged.append(("error", extra))

    monkeypatch.setattr(watcher, "logger", Recorder())
    assert watcher.run(lambda: 60.0, loop_s=0, pause_s=0) == []
    assert logged == [("warning", {"network": "local-a", "code": "UPSTREAM_UNAVAILABLE"})]
    assert get("LEASE#31337", "LEASE") is None
