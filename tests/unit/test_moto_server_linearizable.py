"""The local stack's moto server serves each DynamoDB request atomically, as DynamoDB does.

A real moto server (ThreadedMotoServer, the one `make dev` runs, patched by devtools/moto_patches.py as there and
in tests/conftest.py) on a free port, called over HTTP from many threads at once: every conditional write,
transaction and read must behave as if the requests ran one after the other. Without the lock around moto's
DynamoDB actions, concurrent requests interleave inside moto (condition checked, another request writes, the first
writes too) and a cancelled transaction puts back items a concurrent writer had changed meanwhile.
"""

from __future__ import annotations

import sys
import uuid
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError
from moto.server import ThreadedMotoServer

from devtools import moto_patches
from devtools.chain import free_port
from tests.support.concurrency import THREADS, race

ROUNDS = 30
T = TypeVar("T")


@pytest.fixture(scope="module")
def ddb() -> Iterator[Any]:
    moto_patches.dynamodb_requests_are_atomic()  # as devtools/devstack.py's _MotoServer and tests/conftest.py do
    moto_patches.dynamodb_transactions_back_up_items()
    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    client = boto3.client(
        "dynamodb",
        endpoint_url=f"http://127.0.0.1:{port}",
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
        config=Config(max_pool_connections=THREADS + 5, retries={"mode": "standard", "total_max_attempts": 1}),
    )
    client.create_table(
        TableName="race",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "S"},
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    try:
        yield client
    finally:
        server.stop()


@pytest.fixture(autouse=True)
def _fine_thread_switching() -> Iterator[None]:
    """Threads switch far more often than the default 5 ms, so that requests in flight overlap inside moto in
    every round rather than by luck."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(before)


def cancelled(ddb: Any, call: Callable[[], object]) -> str | None:
    """None when `call` succeeded, else the error code of the failed condition or cancelled transaction. Told
    apart by code, not by class: with threads switching every microsecond, botocore may build a client's
    exception classes twice, and the one raised is then not `ddb.exceptions`'s."""
    try:
        call()
    except ClientError as exc:
        code = str(exc.response["Error"]["Code"])
        if code not in ("ConditionalCheckFailedException", "TransactionCanceledException"):
            raise
        return code
    return None


def get(ddb: Any, pk: str, sk: str = "X") -> dict[str, Any] | None:
    item: dict[str, Any] | None = ddb.get_item(
        TableName="race", Key={"pk": {"S": pk}, "sk": {"S": sk}}, ConsistentRead=True
    ).get("Item")
    return item


def test_one_conditional_write_has_exactly_one_winner(ddb):
    for _ in range(ROUNDS):
        pk = f"ONE#{uuid.uuid4()}"

        def claim(i: int, pk: str = pk) -> str | None:
            return cancelled(
                ddb,
                lambda: ddb.put_item(
                    TableName="race",
                    Item={"pk": {"S": pk}, "sk": {"S": "X"}, "owner": {"N": str(i)}},
                    ConditionExpression="attribute_not_exists(pk)",
                ),
            )

        outcomes = race(claim)
        winners = [i for i, failure in enumerate(outcomes) if failure is None]
        assert len(winners) == 1, outcomes
        assert set(outcomes) - {None} == {"ConditionalCheckFailedException"}
        stored = get(ddb, pk)
        assert stored is not None and stored["owner"]["N"] == str(winners[0])  # the winner's write, not overwritten


def test_a_transaction_cancelled_by_its_last_item_undoes_nobody_else(ddb):
    """Every transaction adds 1 to a shared counter and puts its own marker; the odd ones then fail a last
    condition. The counter ends at exactly the number of transactions that succeeded, and every marker is there
    exactly for them: no cancelled one's put-back of its copies erases a concurrent winner's write."""
    for _ in range(ROUNDS):
        pk = f"TX#{uuid.uuid4()}"
        ddb.put_item(TableName="race", Item={"pk": {"S": pk}, "sk": {"S": "COUNT"}, "n": {"N": "0"}})
        ddb.put_item(TableName="race", Item={"pk": {"S": pk}, "sk": {"S": "GATE"}, "shut": {"BOOL": True}})

        def transact(i: int, pk: str = pk) -> str | None:
            return cancelled(
                ddb,
                lambda: ddb.transact_write_items(
                    TransactItems=[
                        {
                            "Update": {
                                "TableName": "race",
                                "Key": {"pk": {"S": pk}, "sk": {"S": "COUNT"}},
                                "UpdateExpression": "ADD n :one",
                                "ExpressionAttributeValues": {":one": {"N": "1"}},
                            }
                        },
                        {"Put": {"TableName": "race", "Item": {"pk": {"S": pk}, "sk": {"S": f"MARK#{i:02d}"}}}},
                        {
                            "ConditionCheck": {
                                "TableName": "race",
                                "Key": {"pk": {"S": pk}, "sk": {"S": "GATE"}},
                                "ConditionExpression": "attribute_not_exists(shut)" if i % 2 else "shut = :t",
                                **({} if i % 2 else {"ExpressionAttributeValues": {":t": {"BOOL": True}}}),
                            }
                        },
                    ]
                ),
            )

        outcomes = race(transact)
        succeeded = {i for i, failure in enumerate(outcomes) if failure is None}
        assert succeeded == set(range(0, THREADS, 2)), outcomes
        counter = get(ddb, pk, "COUNT")
        assert counter is not None and counter["n"]["N"] == str(len(succeeded))
        marks = ddb.query(
            TableName="race",
            KeyConditionExpression="pk = :pk AND begins_with(sk, :mark)",
            ExpressionAttributeValues={":pk": {"S": pk}, ":mark": {"S": "MARK#"}},
            ConsistentRead=True,
        )["Items"]
        assert sorted(int(m["sk"]["S"][5:]) for m in marks) == sorted(succeeded)


def test_read_modify_write_counters_lose_no_update(ddb):
    """Each thread reads a counter and writes value + 1 conditional on the value it read (a single UpdateItem
    for one counter, a transaction that also appends the entry for the new value, as pagination.py does, for the
    other), retrying until it wins, several times. Every value is won by exactly one writer and nothing is
    lost: the counters end at the number of increments, each entry written once, by its winner."""
    increments = 2
    pk = f"RMW#{uuid.uuid4()}"
    for sk in ("SINGLE", "LIST"):
        ddb.put_item(TableName="race", Item={"pk": {"S": pk}, "sk": {"S": sk}, "n": {"N": "0"}})

    def bump(i: int, sk: str) -> list[int]:
        key = {"pk": {"S": pk}, "sk": {"S": sk}}
        won = []
        while len(won) < increments:
            seen = int(get(ddb, pk, sk)["n"]["N"])  # type: ignore[index]
            update = {
                "TableName": "race",
                "Key": key,
                "ConditionExpression": "n = :seen",
                "UpdateExpression": "SET n = :next",
                "ExpressionAttributeValues": {":seen": {"N": str(seen)}, ":next": {"N": str(seen + 1)}},
            }
            entry = {
                "TableName": "race",
                "Item": {"pk": {"S": pk}, "sk": {"S": f"SEQ#{seen + 1:06d}"}, "by": {"N": str(i)}},
                "ConditionExpression": "attribute_not_exists(pk)",
            }
            if sk == "SINGLE":
                failure = cancelled(ddb, lambda: ddb.update_item(**update))
            else:
                failure = cancelled(
                    ddb, lambda: ddb.transact_write_items(TransactItems=[{"Update": update}, {"Put": entry}])
                )
            if failure is None:
                won.append(seen + 1)
        return won

    winners: dict[str, list[list[int]]] = {}
    for sk in ("SINGLE", "LIST"):
        winners[sk] = race(lambda i, sk=sk: bump(i, sk))
        values = sorted(v for mine in winners[sk] for v in mine)
        assert values == list(range(1, THREADS * increments + 1))  # each value exactly one winner
        assert get(ddb, pk, sk)["n"]["N"] == str(THREADS * increments)  # type: ignore[index]
    entries = ddb.query(
        TableName="race",
        KeyConditionExpression="pk = :pk AND begins_with(sk, :seq)",
        ExpressionAttributeValues={":pk": {"S": pk}, ":seq": {"S": "SEQ#"}},
        ConsistentRead=True,
    )["Items"]
    winner_of = {v: i for i, mine in enumerate(winners["LIST"]) for v in mine}
    assert {int(e["sk"]["S"][4:]): int(e["by"]["N"]) for e in entries} == winner_of  # each entry by its winner


def test_batch_reads_and_queries_see_whole_transactions(ddb):
    """While transactions move one unit between two items at a time, every BatchGetItem and Query sees the sum
    unchanged: a read never lands between a transaction's items."""
    pk = f"SUM#{uuid.uuid4()}"
    for sk in ("A", "B"):
        ddb.put_item(TableName="race", Item={"pk": {"S": pk}, "sk": {"S": sk}, "n": {"N": "1000"}})
    keys = [{"pk": {"S": pk}, "sk": {"S": sk}} for sk in ("A", "B")]

    def move(i: int) -> list[int]:
        if i % 2:  # readers
            sums = []
            for _ in range(ROUNDS):
                batch = ddb.batch_get_item(RequestItems={"race": {"Keys": keys, "ConsistentRead": True}})
                sums.append(sum(int(item["n"]["N"]) for item in batch["Responses"]["race"]))
                query = ddb.query(
                    TableName="race",
                    KeyConditionExpression="pk = :pk",
                    ExpressionAttributeValues={":pk": {"S": pk}},
                    ConsistentRead=True,
                )
                sums.append(sum(int(item["n"]["N"]) for item in query["Items"]))
            return sums
        source, target = ("A", "B") if i % 4 else ("B", "A")
        for _ in range(ROUNDS):
            ddb.transact_write_items(
                TransactItems=[
                    {
                        "Update": {
                            "TableName": "race",
                            "Key": {"pk": {"S": pk}, "sk": {"S": sk}},
                            "UpdateExpression": "ADD n :d",
                            "ExpressionAttributeValues": {":d": {"N": str(delta)}},
                        }
                    }
                    for sk, delta in ((source, -1), (target, 1))
                ]
            )
        return []

    sums = [s for reader in race(move) for s in reader]
    assert sums and set(sums) == {2000}
