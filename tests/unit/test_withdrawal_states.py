"""The withdrawal's declared transitions (custody/withdrawals/records.py) against moto, the sweep of unfinished
withdrawals, and the worker's reading of a mined withdrawal (sending.confirmation) against a fake chain reader:
no node, no anvil."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from boto3.dynamodb.conditions import Key

from chalicelib.custody.store import TABLE
from chalicelib.custody.tokens import TRANSFER_TOPIC, TokenOnNetwork
from chalicelib.custody.withdrawals import lifecycle as withdrawals
from chalicelib.custody.withdrawals import sending
from chalicelib.custody.withdrawals.records import OPEN_STATUSES, STALE_S, Withdrawal
from chalicelib.evm.rpc import RpcError
from chalicelib.evm.tracking import EvmTransaction
from chalicelib.platform import aws, clock
from chalicelib.platform.networks import CustodyToken, Network
from chalicelib.platform.transitions import Move, UndeclaredMoveError, create, refused_moves, transition

NETWORK = Network(name="local", chainId=31337, rpcUrls=("http://127.0.0.1:8545",), nativeSymbol="ETH", confirmations=3)
USDT = TokenOnNetwork(NETWORK, CustodyToken(tokenCode="usdt", symbol="USDT", decimals=6, tokenAddress="0x" + "7" * 40))
ETH = TokenOnNetwork(NETWORK, CustodyToken(tokenCode="eth", symbol="ETH", decimals=18))
DEPOSIT_ADDRESS = "0x" + "d" * 40
RECIPIENT = "0x" + "e" * 40
AMOUNT = 1_250_000
# What a move to each status writes besides the status (as the worker and the review do).
CHANGES: dict[str, dict[str, Any]] = {
    "pending": {"leaseUntil": 0},
    "sending": {"attempts": 1, "leaseUntil": 1},
    "sent": {"txHash": "0xabc", "sentAt": "2024-01-02T00:00:00.000Z"},
    "success": {"completedAt": "2024-01-02T00:00:00.000Z", "blockNumber": 7, "blockHash": "0xb7"},
    "failed": {"failedReason": "reverted", "failedAt": "2024-01-02T00:00:00.000Z", "released": True},
}


def withdrawal(status: str = "pending", n: int = 0, token: TokenOnNetwork = USDT, **extra: Any) -> Withdrawal:
    values: dict[str, Any] = {
        **withdrawals.key(f"w-{n}"),
        "id": f"w-{n}",
        "appId": "app",
        "accountId": "acct",
        "userId": "alice",
        "keyId": "key",
        "keyAddress": "0x" + "a" * 40,
        "walletId": "wallet",
        "fromAddress": DEPOSIT_ADDRESS,
        "network": NETWORK.name,
        "chainId": NETWORK.chainId,
        "tokenCode": token.token.tokenCode,
        "tokenAddress": token.token.tokenAddress,
        "to": RECIPIENT,
        "amountInDecimals": str(AMOUNT),
        "status": status,
        "createdAt": "2024-01-01T00:00:00.000Z",
        "updatedAt": "2024-01-01T00:00:00.000Z",
        **({"released": False} if status == "failed" else {}),
        **extra,
    }
    return Withdrawal(**values)


def put(record: Withdrawal) -> None:
    """A withdrawal as the worker left it in its status (index attributes included)."""
    index = record.status_index()
    item = {k: v for k, v in record.to_item().items() if k not in index.remove}
    aws.write(aws.put("as-left", TABLE, {**item, **index.set}, None))


def stored(record: Withdrawal) -> dict[str, Any]:
    item: dict[str, Any] = aws.table(TABLE).get_item(Key=record.key(), ConsistentRead=True)["Item"]
    return item


def in_due_index() -> list[str]:
    found = aws.table(TABLE).query(IndexName="due", KeyConditionExpression=Key("duePk").eq("due"))["Items"]
    return sorted(str(i["id"]) for i in found)


# --- the declared table ------------------------------------------------------------------------------------------


def test_the_table_is_the_workers() -> None:
    machine = Withdrawal.machine
    assert machine.name == "withdrawal" and machine.table == TABLE
    assert machine.initial == {"pending"} and machine.final == {"success", "failed"}
    assert {(m.source, m.target) for m in machine.moves} == {
        ("pending", "sending"),
        ("sending", "sending"),
        ("sending", "pending"),
        ("sending", "sent"),
        ("sending", "failed"),
        ("sent", "sent"),
        ("sent", "pending"),
        ("sent", "success"),
        ("sent", "failed"),
        ("failed", "success"),
        ("failed", "failed"),
    }


@pytest.mark.parametrize("move", Withdrawal.machine.moves, ids=lambda m: f"{m.source}->{m.target}")
def test_every_declared_move_writes_the_status_its_index_keys_and_its_due_time(aws_env: None, move: Move) -> None:
    record = withdrawal(move.source)
    put(record)
    aws.write(transition(Withdrawal.from_item(stored(record)), move.target, **CHANGES[move.target]))

    item = stored(record)
    assert item["status"] == move.target
    assert item["statusKey"] == f"WITHDRAWAL#app#{move.target}"
    assert item["accountStatusKey"] == f"WITHDRAWAL#acct#{move.target}"
    assert item["listKey"] == "2024-01-01T00:00:00.000Z#w-0"
    assert item["updatedAt"] > "2024-01-01T00:00:00.000Z"
    if move.target in OPEN_STATUSES:  # unfinished: due STALE_S after this move
        assert in_due_index() == ["w-0"] and item["dueAt"] > clock.iso_in(STALE_S - 60)
    else:  # ended: out of the sweep's index
        assert in_due_index() == [] and "dueAt" not in item and "duePk" not in item
    for name, value in CHANGES[move.target].items():
        assert item[name] == value


@pytest.mark.parametrize("pair", refused_moves(Withdrawal.machine), ids=lambda p: f"{p[0]}->{p[1]}")
def test_every_undeclared_move_raises_before_writing(aws_env: None, pair: tuple[str, str]) -> None:
    source, target = pair
    record = withdrawal(source)
    put(record)
    before = stored(record)
    with pytest.raises(UndeclaredMoveError):
        aws.write(transition(record, target, **CHANGES[target]))
    assert stored(record) == before


def test_a_new_withdrawal_is_created_pending_and_due(aws_env: None) -> None:
    record = withdrawal("pending")
    aws.write(create(record))
    assert stored(record)["status"] == "pending" and in_due_index() == ["w-0"]
    with pytest.raises(aws.ConditionFailedError):  # never twice
        aws.write(create(record))
    with pytest.raises(UndeclaredMoveError):  # never created in a later status
        create(withdrawal("sent", 1))


def test_a_failed_withdrawal_moves_only_while_kept_for_review(aws_env: None) -> None:
    released = withdrawal("failed", released=True)
    put(released)
    with pytest.raises(UndeclaredMoveError, match="released"):
        transition(released, "success", **CHANGES["success"])
    kept = withdrawal("failed", 1)
    put(kept)
    aws.write(transition(kept, "failed", released=True, reviewedAt="2024-01-03T00:00:00.000Z"))  # released
    with pytest.raises(aws.ConditionFailedError):  # the operator's second decision, from the same reading
        aws.write(transition(kept, "success", **CHANGES["success"]))
    assert stored(kept)["status"] == "failed" and stored(kept)["released"] is True


def test_a_worker_holds_the_withdrawal_at_the_attempt_it_claimed(aws_env: None) -> None:
    record = withdrawal("pending", attempts=0)
    put(record)
    first = sending.claim(Withdrawal.from_item(stored(record)))
    assert first is not None and first.status == "sending" and first.attempts == 1
    assert sending.claim(record) is None  # a second worker, from the same reading: lost
    second = sending.claim(first.model_copy(update={"leaseUntil": 0}))  # the first one's lease ran out
    assert second is not None and second.attempts == 2
    with pytest.raises(aws.ConditionFailedError):  # the first worker's hold is gone: its move to `sent` fails
        aws.write(sending._held(first, "sent", txHash="0xabc", sentAt="2024-01-02T00:00:00.000Z"))
    aws.write(sending._held(second, "sent", txHash="0xdef", sentAt="2024-01-02T00:00:00.000Z"))
    assert stored(record)["txHash"] == "0xdef"


def test_a_sent_withdrawal_goes_back_to_pending_only_for_the_transaction_read(aws_env: None) -> None:
    record = withdrawal("sent", txHash="0xabc", nonce=3, reservation="withdrawal:w-0")
    put(record)
    other = record.model_copy(update={"txHash": "0xother"})
    sending._back_to_pending(other)
    assert stored(record)["status"] == "sent"
    sending._back_to_pending(record)
    item = stored(record)
    assert item["status"] == "pending" and "txHash" not in item
    assert (item["nonce"], item["reservation"]) == (3, "withdrawal:w-0")  # the nonce stays the withdrawal's


# --- the sweep of unfinished withdrawals --------------------------------------------------------------------------


def test_the_sweep_queues_unfinished_withdrawals_that_stopped_moving(
    aws_env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    queued: list[str] = []
    monkeypatch.setattr(withdrawals, "enqueue", lambda withdrawal_id, delay_s=0: queued.append(withdrawal_id))
    for n, status in enumerate(["pending", "sending", "sent"]):
        aws.write(create(withdrawal("pending", n)))
        record = Withdrawal.from_item(stored(withdrawal("pending", n)))
        for step in {"pending": [], "sending": ["sending"], "sent": ["sending", "sent"]}[status]:
            aws.write(transition(record, step, **CHANGES[step]))
            record = Withdrawal.from_item(stored(record))
    ended = withdrawal("sent", 9, txHash="0xabc")
    put(ended)
    aws.write(transition(ended, "success", **CHANGES["success"]))
    assert withdrawals.requeue_stale() == 0 and queued == []  # not stale yet
    try:
        clock.travel(STALE_S + 1)
        assert withdrawals.requeue_stale() == 3 and sorted(queued) == ["w-0", "w-1", "w-2"]
        assert withdrawals.requeue_stale() == 0  # leased for STALE_S: left to the messages just sent
    finally:
        clock.reset()


# --- the worker's reading of a mined withdrawal, against a fake chain ----------------------------------------------


@dataclass
class FakeChain:
    """The reads the worker makes, answered from memory: blocks by number (their hash), receipts by hash."""

    head_block: int = 10
    blocks: dict[int, str] = field(default_factory=dict)
    receipts: dict[str, dict[str, Any]] = field(default_factory=dict)
    failing: bool = False

    def head(self) -> int:
        if self.failing:
            raise RpcError(-32000, "the node is down")
        return self.head_block

    def receipt(self, tx_hash: str) -> dict[str, Any] | None:
        return self.receipts.get(tx_hash)

    def block_hash(self, number: int) -> str | None:
        return self.blocks.get(number)

    def transaction_count(self, address: str, block: str) -> int:
        raise AssertionError("not read when confirming")

    def holding(self, pair: TokenOnNetwork, address: str) -> int:
        raise AssertionError("not read when confirming")

    def code(self, address: str) -> str:
        raise AssertionError("not read when confirming")


def word(address: str) -> str:
    return "0x" + address.lower().removeprefix("0x").rjust(64, "0")


def transfer_log(amount: int, to: str = RECIPIENT, token: str = USDT.token.tokenAddress) -> dict[str, Any]:
    return {"address": token, "topics": [TRANSFER_TOPIC, word(DEPOSIT_ADDRESS), word(to)], "data": hex(amount)}


def mined(block: int = 5, block_hash: str = "0xb5") -> EvmTransaction:
    return EvmTransaction.model_validate(
        {
            "pk": "TX#0xabc",
            "sk": "TX",
            "hash": "0xabc",
            "from": "0x" + "a" * 40,
            "walletId": "wallet",
            "network": NETWORK.name,
            "chainId": NETWORK.chainId,
            "kind": "withdrawal",
            "status": "mined",
            "value": "0",
            "nonce": 0,
            "receipt": "",
            "raw": "0x",
            "createdAt": "2024-01-01T00:00:00.000Z",
            "updatedAt": "2024-01-01T00:00:00.000Z",
            "version": 3,
            "blockNumber": block,
            "blockHash": block_hash,
        }
    )


def chain_with(*logs: dict[str, Any], status: str = "0x1", block: int = 5, block_hash: str = "0xb5") -> FakeChain:
    receipt = {"blockNumber": hex(block), "blockHash": block_hash, "status": status, "logs": list(logs)}
    return FakeChain(blocks={block: block_hash}, receipts={"0xabc": receipt})


def verdict(chain: FakeChain, pair: TokenOnNetwork = USDT, tx: EvmTransaction | None = None) -> sending.Confirmation:
    record = withdrawal("sent", token=pair, txHash="0xabc")
    return sending.confirmation(pair, record, tx or mined(), chain)


def test_a_transfer_of_the_amount_with_its_confirmations_is_confirmed() -> None:
    assert verdict(chain_with(transfer_log(AMOUNT))) == sending.Confirmation("confirmed")
    assert verdict(chain_with(), pair=ETH) == sending.Confirmation("confirmed")  # the native coin: the call paid


def test_too_few_confirmations_wait() -> None:
    chain = chain_with(transfer_log(AMOUNT))
    chain.head_block = 6  # blocks 5 and 6: 2 of 3
    assert verdict(chain).verdict == "wait"
    chain.head_block = 7
    assert verdict(chain).verdict == "confirmed"


def test_a_mined_call_that_moved_no_token_is_not_paid() -> None:
    assert verdict(chain_with()).verdict == "not_paid"
    assert verdict(chain_with(transfer_log(AMOUNT - 1))).verdict == "not_paid"
    assert verdict(chain_with(transfer_log(AMOUNT, to="0x" + "f" * 40))).verdict == "not_paid"
    assert verdict(chain_with(transfer_log(AMOUNT, token="0x" + "9" * 40))).verdict == "not_paid"


def test_a_malformed_transfer_amount_is_looked_at_again_never_not_paid() -> None:
    log = {**transfer_log(AMOUNT), "data": "0x12zz"}
    with pytest.raises(ValueError):
        verdict(chain_with(log))


def test_a_failing_receipt_is_reverted() -> None:
    assert verdict(chain_with(transfer_log(AMOUNT), status="0x0")).verdict == "reverted"


def test_a_reorg_is_handed_to_the_tracker() -> None:
    assert verdict(FakeChain(blocks={5: "0xb5"})) == sending.Confirmation("out_of_chain")
    elsewhere = chain_with(transfer_log(AMOUNT), block=6, block_hash="0xb6")
    assert verdict(elsewhere) == sending.Confirmation("remined", (6, "0xb6"))


def test_a_receipt_whose_block_is_not_canonical_or_a_node_that_fails_waits() -> None:
    stale = chain_with(transfer_log(AMOUNT))
    stale.blocks[5] = "0xother"  # the receipt names a block the chain no longer has at that height
    assert verdict(stale).verdict == "wait"
    down = chain_with(transfer_log(AMOUNT))
    down.failing = True
    assert verdict(down).verdict == "wait"
    malformed = chain_with(transfer_log(AMOUNT))
    malformed.receipts["0xabc"]["blockNumber"] = "5"  # not a quantity
    assert verdict(malformed).verdict == "wait"
