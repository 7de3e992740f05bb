"""The invoice's declared transitions (custody/deposits/invoices.py `Invoice.machine`), against moto: every allowed move
writes the status, its index keys, the open marker and the expiry sweep's place; every other move raises before
anything is written; an invoice that moved (or found its payment) meanwhile refuses the write."""

from __future__ import annotations

from typing import Any

import pytest
from boto3.dynamodb.conditions import Key

from chalicelib.custody.deposits import invoices
from chalicelib.custody.deposits.invoices import EXPIRING, Invoice, close_items, open_key
from chalicelib.custody.store import TABLE, indexed_page
from chalicelib.custody.tokens import TokenOnNetwork
from chalicelib.platform import aws, transitions
from chalicelib.platform.networks import CustodyToken, Network
from chalicelib.platform.transitions import ABSENT, Move, UndeclaredMoveError, refused_moves

PAIR = TokenOnNetwork(
    Network(name="local", chainId=31337, rpcUrls=("http://127.0.0.1:8545",), nativeSymbol="ETH"),
    CustodyToken(tokenCode="usdt", symbol="USDT", decimals=6, tokenAddress=""),
)
CHANGES: dict[str, dict[str, Any]] = {
    "paid": {"paidAt": "2024-01-02T00:00:00.000Z", "transactionHash": "0xabc"},
    "failed": {
        "failedAt": "2024-01-02T00:00:00.000Z",
        "failedReason": "amount_mismatch",
        "transactionHash": "0xabc",
        "receivedAmountInDecimals": "7",
    },
    "expired": {"expiredAt": "2024-01-02T00:00:00.000Z"},
    "pending": {},
}


def invoice(status: str = "pending", n: int = 0, **extra: Any) -> Invoice:
    return Invoice(
        **invoices.key(f"inv-{n}"),
        id=f"inv-{n}",
        appId="app",
        accountId="acct",
        userId="alice",
        network=PAIR.network.name,
        chainId=PAIR.network.chainId,
        tokenCode=PAIR.token.tokenCode,
        amountInDecimals="10",
        reference=f"ref-{n}",
        walletId="w",
        depositAddress="0x" + "11" * 20,
        expiresAt="2024-01-01T00:00:00.000Z",
        bufferInSeconds=60,
        deadline="2024-01-01T00:01:00.000Z",
        startBlock=5,
        status=status,
        createdAt=f"2024-01-01T00:00:0{n}.000Z",
        **extra,
    )


def put(record: Invoice) -> None:
    """An invoice as the domain left it in its state, with its open marker and its place in the sweep."""
    aws.transact(
        [
            aws.put("as-left", TABLE, {**record.to_item(), **record.status_index().set}, None),
            aws.put("open", TABLE, {**open_key(record.accountId, PAIR), "invoiceId": record.id, "open": True}, None),
            aws.put("expiring", TABLE, {"pk": EXPIRING, "sk": f"{record.deadline}#{record.id}"}, None),
        ]
    )


def stored(pk: str, sk: str) -> dict[str, Any] | None:
    item: dict[str, Any] | None = aws.table(TABLE).get_item(Key={"pk": pk, "sk": sk}, ConsistentRead=True).get("Item")
    return item


def test_a_new_invoice_is_created_pending_and_indexed(aws_env: None) -> None:
    aws.write(transitions.create(invoice()))
    found, total = indexed_page("status", "statusKey", "INVOICE#app#pending", 1, 10)
    assert total == 1 and [i["id"] for i in found] == ["inv-0"]
    with pytest.raises(aws.ConditionFailedError):  # an id is never written twice
        aws.write(transitions.create(invoice()))
    with pytest.raises(UndeclaredMoveError):
        transitions.create(invoice("paid"))


@pytest.mark.parametrize("move", Invoice.machine.moves, ids=lambda m: f"{m.source}->{m.target}")
def test_every_declared_move_closes_the_invoice(aws_env: None, move: Move) -> None:
    record = invoice(move.source)
    put(record)
    aws.transact(close_items(invoices.find(record.id) or record, PAIR, move.target, **CHANGES[move.target]))

    item = stored(record.pk, record.sk)
    assert item is not None and item["status"] == move.target
    assert {k: item[k] for k in CHANGES[move.target]} == CHANGES[move.target]
    assert item["statusKey"] == f"INVOICE#app#{move.target}"
    assert item["accountStatusKey"] == f"INVOICE#acct#{move.target}"
    assert item["listKey"] == f"{record.createdAt}#{record.id}"
    assert "updatedAt" not in item  # invoices carry their own times
    assert (stored(**open_key("acct", PAIR)) or {})["open"] is False
    assert stored(EXPIRING, f"{record.deadline}#{record.id}") is None
    index = aws.table(TABLE).query(
        IndexName="status", KeyConditionExpression=Key("statusKey").eq(f"INVOICE#app#{move.target}")
    )
    assert [i["id"] for i in index["Items"]] == [record.id]


@pytest.mark.parametrize("pair", refused_moves(Invoice.machine), ids=lambda p: f"{p[0]}->{p[1]}")
def test_every_undeclared_move_raises_before_writing(aws_env: None, pair: tuple[str, str]) -> None:
    source, target = pair
    record = invoice(source)
    put(record)
    before = stored(record.pk, record.sk)
    with pytest.raises(UndeclaredMoveError):
        close_items(record, PAIR, target, **CHANGES[target])
    assert stored(record.pk, record.sk) == before
    assert (stored(**open_key("acct", PAIR)) or {})["open"] is True


def test_an_invoice_closed_meanwhile_refuses_a_second_close(aws_env: None) -> None:
    record = invoice()
    put(record)
    by_sweep, by_credit = invoices.find(record.id), invoices.find(record.id)
    assert by_sweep is not None and by_credit is not None
    aws.transact(close_items(by_sweep, PAIR, "expired", **CHANGES["expired"]))
    with pytest.raises(aws.TransactionCancelledError) as lost:
        aws.transact(close_items(by_credit, PAIR, "paid", **CHANGES["paid"]))
    assert lost.value.condition_failed("invoice")
    assert (stored(record.pk, record.sk) or {})["status"] == "expired"


def test_the_sweep_does_not_expire_an_invoice_whose_payment_was_seen_meanwhile(aws_env: None) -> None:
    record = invoice()
    put(record)
    read = invoices.find(record.id)
    assert read is not None and read.matchedDeposit is None
    aws.write(invoices.match_item(read, "dep-1"))  # the watcher saw the payment after the sweep's read
    with pytest.raises(aws.TransactionCancelledError) as lost:
        aws.transact(close_items(read, PAIR, "expired", expect={"matchedDeposit": ABSENT}, **CHANGES["expired"]))
    assert lost.value.condition_failed("invoice")
    after = invoices.find(record.id)
    assert after is not None and after.status == "pending" and after.matchedDeposit == "dep-1"
    with pytest.raises(aws.ConditionFailedError):  # one payment per invoice
        aws.write(invoices.match_item(read, "dep-2"))
    aws.write(invoices.unmatch_item(record.id, "dep-1"))  # the payment left the chain: free again
    freed = invoices.find(record.id)
    assert freed is not None and freed.matchedDeposit is None
    aws.transact(close_items(freed, PAIR, "expired", expect={"matchedDeposit": ABSENT}, **CHANGES["expired"]))
    assert (stored(record.pk, record.sk) or {})["status"] == "expired"


def test_a_record_read_back_is_the_record_written(aws_env: None) -> None:
    record = invoice(matchedDeposit="dep-1")
    put(record)
    assert invoices.find(record.id) == Invoice.from_item({**record.to_item(), **record.status_index().set})
    assert invoices.find("missing") is None
