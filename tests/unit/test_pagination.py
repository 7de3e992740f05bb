"""Lists: append-only lists (exact totals, direct page access, newest first, 400 outside the range) and the
custody status index's pages."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from chalice import Blueprint, Chalice
from chalice.test import Client

from chalicelib.custody.store import indexed_page
from chalicelib.platform import aws, unit_of_work
from chalicelib.platform.pagination import AppendOnlyList, Page, PageQuery, page_query, pagination, records_page
from chalicelib.platform.router import Call, Reply, platform_bp, route
from chalicelib.platform.unit_of_work import Plan

Query10 = page_query(default_limit=10)


def append(entries: AppendOnlyList, record: dict, also: list[aws.TxItem] | None = None) -> int:
    """One entry with its companion items: a plan of the unit of work, as every domain writes one."""
    committed = unit_of_work.commit(Plan(items=list(also or []), lists=[(entries, record)]))
    assert committed is not None
    return committed.seqs[0]


def append_together(entries: list[tuple[AppendOnlyList, dict]]) -> list[int]:
    committed = unit_of_work.commit(Plan(lists=entries))
    assert committed is not None
    return list(committed.seqs)


def test_pages_are_exact_and_newest_first(aws_env):
    items = AppendOnlyList("tenancy", "TEST#list")
    for n in range(1, 24):
        assert append(items, {"n": n}) == n
    records, total = items.page(Query10(page=1, limit=10))
    assert total == 23 and [r["n"] for r in records] == list(range(23, 13, -1))
    records, _ = items.page(Query10(page=3, limit=10))
    assert [r["n"] for r in records] == [3, 2, 1]
    assert items.page(Query10(page=4, limit=10)) == ([], 23)
    meta = pagination(23, Query10(page=3, limit=10))
    assert meta.model_dump() == {
        "total": 23,
        "page": 3,
        "limit": 10,
        "totalPages": 3,
        "hasNext": False,
        "hasPrev": True,
    }


def test_reading_page_n_does_not_read_earlier_pages(aws_env):
    items = AppendOnlyList("tenancy", "TEST#direct")
    for n in range(1, 51):
        append(items, {"n": n})
    seen = []

    def count_items(parsed, **kwargs):
        seen.append((kwargs["model"].name, parsed.get("Count")))

    events = aws.table("tenancy").meta.client.meta.events
    events.register("after-call.dynamodb.Query", count_items)
    events.register("after-call.dynamodb.Scan", count_items)
    records, total = items.page(Query10(page=5, limit=10))
    assert [r["n"] for r in records] == list(range(10, 0, -1)) and total == 50
    assert seen == [("Query", 10)]  # one query, reading only the page's own records


def test_concurrent_appends_get_dense_distinct_numbers(aws_env):
    # Each moto request is atomic (tests/conftest.py, devtools/moto_patches.py), as on DynamoDB; threads still
    # interleave between requests, which is the race the counter condition has to win.
    items = AppendOnlyList("tenancy", "TEST#busy")
    with ThreadPoolExecutor(max_workers=4) as pool:
        numbers = list(pool.map(lambda n: append(items, {"n": n}), range(20)))
    assert sorted(numbers) == list(range(1, 21))
    assert items.count() == 20


def test_concurrent_appends_contesting_one_companion_item_get_its_answer_never_a_busy_list(aws_env):
    """Twenty appends in parallel, each with the same conditional companion (a claim only one can make): one is
    written, every other is told its claim failed (the caller's answer, e.g. a 409), none is a LIST_BUSY or any
    other error, and the list holds exactly the winner's entry."""
    items = AppendOnlyList("tenancy", "TEST#contested")
    claim = aws.put("claim", "tenancy", {"pk": "TEST#claim", "sk": "x"})

    def contend(n: int) -> str:
        try:
            append(items, {"n": n}, also=[claim])
        except aws.TransactionCancelledError as exc:
            assert exc.condition_failed("claim")
            return "taken"
        return "won"

    with ThreadPoolExecutor(max_workers=10) as pool:
        outcomes = list(pool.map(contend, range(20)))
    assert sorted(outcomes) == ["taken"] * 19 + ["won"]
    records, total = items.page(Query10(page=1, limit=10))
    assert total == 1 and [r["seq"] for r in records] == [1]


def test_a_failing_companion_is_answered_at_once_even_while_the_counter_keeps_moving(aws_env, monkeypatch):
    """A concurrent append lands between every read of the counter and the write, and the caller's own item fails
    its condition too. Retrying cannot help the caller's item (its condition was planned from its own reads): the
    caller hears of it at the first attempt, not a 503 LIST_BUSY after eight."""
    from chalicelib.platform.errors import ApiError

    items = AppendOnlyList("tenancy", "TEST#raced")
    taken = aws.put("by-id", "tenancy", {"pk": "TEST#taken", "sk": "x"})
    aws.transact([taken])
    transact = aws.transact
    attempts = []

    def rival_appends_first(tx_items):
        attempts.append(1)
        transact([aws.update("rival", "tenancy", items.counter_key, aws.Changes(add={"n": 1}), None)])
        transact(tx_items)

    monkeypatch.setattr(aws, "transact", rival_appends_first)
    with pytest.raises(aws.TransactionCancelledError) as error:
        append(items, {"n": 1}, also=[taken])
    assert not isinstance(error.value, ApiError)
    assert error.value.condition_failed("by-id") and error.value.condition_failed("list-counter-0")
    assert len(attempts) == 1


def test_a_race_lost_on_the_list_alone_is_retried_until_won(aws_env, monkeypatch):
    """The counter moves under the first two attempts: the append is retried from a fresh count and lands after
    the rival's entries, with its companion written once."""
    items = AppendOnlyList("tenancy", "TEST#retried")
    transact = aws.transact
    attempts = []

    def rival_appends_twice(tx_items):
        attempts.append(1)
        if len(attempts) <= 2:
            append(items, {"rival": len(attempts)})
        transact(tx_items)

    monkeypatch.setattr(aws, "transact", rival_appends_twice)
    assert append(items, {"mine": 1}, also=[aws.put("by-id", "tenancy", {"pk": "TEST#mine", "sk": "x"})]) == 3
    assert len(attempts) == 5  # mine, rival, mine, rival, mine
    records, total = items.page(Query10(page=1, limit=10))
    assert total == 3 and [r.get("mine") for r in records] == [1, None, None]


def test_empty_list(aws_env):
    items = AppendOnlyList("tenancy", "TEST#empty")
    assert items.page(Query10(page=1, limit=10)) == ([], 0)
    assert pagination(0, Query10(page=1, limit=10)).model_dump() == {
        "total": 0,
        "page": 1,
        "limit": 10,
        "totalPages": 0,
        "hasNext": False,
        "hasPrev": False,
    }


@pytest.fixture
def list_api(aws_env):
    """A list route built with the shared helpers, as the domain packages build theirs."""
    bp = Blueprint("list_test")
    records = AppendOnlyList("tenancy", "TEST#route")
    for n in range(1, 26):
        append(records, {"n": n})

    @route(bp, "/things", "GET", summary="things", tag="Test", query=page_query(default_limit=20))
    def things(call: Call) -> Reply:
        found, total = records.page(call.query)
        # Raw DynamoDB items (numbers are Decimal): the envelope must serialise them.
        return Reply(
            Page[dict[str, int]](data=[{"n": r["n"]} for r in found], pagination=pagination(total, call.query))
        )

    app = Chalice("list-test")
    app.register_blueprint(platform_bp)
    app.register_blueprint(bp)
    with Client(app) as client:
        yield client.http


def test_list_route_defaults_and_limits(list_api):
    body = list_api.get("/things").json_body
    assert body["status"] == 200
    assert body["data"]["pagination"] == {
        "total": 25,
        "page": 1,
        "limit": 20,
        "totalPages": 2,
        "hasNext": True,
        "hasPrev": False,
    }
    assert len(body["data"]["data"]) == 20
    second = list_api.get("/things?page=2").json_body["data"]
    assert [r["n"] for r in second["data"]] == [5, 4, 3, 2, 1]
    assert list_api.get("/things?limit=100").status_code == 200
    for bad in ("limit=101", "limit=0", "page=0", "page=abc"):
        response = list_api.get(f"/things?{bad}")
        assert response.status_code == 400, bad
        assert response.json_body["data"]["code"] == "VALIDATION_ERROR"
        assert response.json_body["data"]["errors"][0]["field"] in ("limit", "page")


def test_page_query_model_is_a_page_query():
    assert issubclass(Query10, PageQuery)
    assert Query10().limit == 10 and Query10().page == 1


@pytest.mark.parametrize("reason", ["TransactionConflict", "ThrottlingError", "ProvisionedThroughputExceeded"])
def test_a_transaction_conflict_is_retried(aws_env, monkeypatch, reason):
    """DynamoDB reports concurrent transactions on one item as TransactionConflict (and a throughput shortfall as
    throttling): a lost race, retried."""
    items = AppendOnlyList("tenancy", "TEST#conflict")
    ddb = aws.dynamodb_client()
    real = ddb.transact_write_items
    calls = []

    def conflicting_once(**kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise ddb.exceptions.TransactionCanceledException(
                {
                    "Error": {"Code": "TransactionCanceledException", "Message": "conflict"},
                    "CancellationReasons": [{"Code": reason}, {"Code": "None"}],
                },
                "TransactWriteItems",
            )
        return real(**kwargs)

    monkeypatch.setattr(ddb, "transact_write_items", conflicting_once)
    assert append(items, {"n": 1}) == 1 and len(calls) == 2


def test_a_failing_companion_item_is_not_retried(aws_env):
    from chalicelib.platform.errors import ApiError

    items = AppendOnlyList("tenancy", "TEST#companion")
    taken = aws.put("by-id", "tenancy", {"pk": "TEST#by-id", "sk": "x"})
    append(items, {"n": 1}, also=[taken])
    with pytest.raises(aws.TransactionCancelledError) as error:
        append(items, {"n": 2}, also=[taken])
    assert not isinstance(error.value, ApiError)
    assert error.value.condition_failed("by-id")  # reported by name, not by position
    assert items.count() == 1  # nothing half-written


def test_lists_in_two_tables_read_their_counters_in_one_request(aws_env, monkeypatch):
    here, there = AppendOnlyList("tenancy", "TEST#here"), AppendOnlyList("user-ops", "TEST#there")
    assert append_together([(here, {"n": 1}), (there, {"n": 1})]) == [1, 1]
    requests = []
    batch_get_item = aws.dynamodb_client().batch_get_item
    monkeypatch.setattr(
        aws.dynamodb_client(), "batch_get_item", lambda **kw: requests.append(kw) or batch_get_item(**kw)
    )
    assert append_together([(here, {"n": 2}), (there, {"n": 2})]) == [2, 2]
    assert len(requests) == 1 and len(requests[0]["RequestItems"]) == 2  # both tables, one round trip
    assert here.count() == 2 and there.count() == 2


def test_batch_reads_of_more_than_100_keys_are_split(aws_env, monkeypatch):
    """DynamoDB refuses a BatchGetItem of more than 100 keys (the custody watcher once asked for all its due
    deposits in one): reads are split, across tables too."""
    with aws.table("tenancy").batch_writer() as batch:
        for i in range(150):
            batch.put_item(Item={"pk": f"B#{i}", "sk": "X", "i": i})
    requests = []
    batch_get_item = aws.dynamodb_client().batch_get_item
    monkeypatch.setattr(
        aws.dynamodb_client(), "batch_get_item", lambda **kw: requests.append(kw) or batch_get_item(**kw)
    )
    keys = [{"pk": f"B#{i}", "sk": "X"} for i in range(160)]  # 10 of them absent
    assert sorted(int(item["i"]) for item in aws.batch_get("tenancy", keys)) == list(range(150))
    assert [sum(len(t["Keys"]) for t in r["RequestItems"].values()) for r in requests] == [100, 60]
    found = aws.batch_get_tables({"tenancy": keys[:90], "user-ops": [{"pk": f"N#{i}", "sk": "X"} for i in range(30)]})
    assert len(found["tenancy"]) == 90 and found["user-ops"] == []


def test_a_cancelled_transaction_over_two_tables_changes_neither(aws_env):
    """moto is patched to back up only the items a transaction names (devtools/moto_patches.py): a failed
    condition still rolls every table back, including writes the transaction had applied before the failing item,
    with every attribute type as it was."""
    rich = {"v": 1, "b": b"\x00\xffraw", "ss": {"a", "b"}, "m": {"n": 2, "l": [1, "x"]}, "s": "text"}
    aws.transact([aws.put(n, "tenancy", {"pk": n, "sk": "X", **rich}) for n in ("T#0", "T#1", "T#4")])
    before = aws.table("tenancy").scan(ConsistentRead=True)["Items"]
    items = [
        aws.put("first", "user-ops", {"pk": "T#2", "sk": "X", "v": 1}),
        aws.update("second", "tenancy", {"pk": "T#1", "sk": "X"}, aws.Changes(set={"v": 2}, remove=["b"])),
        aws.delete("third", "tenancy", {"pk": "T#4", "sk": "X"}),
        aws.put("fourth", "user-ops", {"pk": "T#3", "sk": "X"}),
        aws.put("fails", "tenancy", {"pk": "T#0", "sk": "X"}),  # exists: its condition fails
    ]
    with pytest.raises(aws.TransactionCancelledError) as cancelled:
        aws.transact(items)
    assert cancelled.value.condition_failed("fails")
    assert aws.table("tenancy").scan(ConsistentRead=True)["Items"] == before
    assert aws.table("user-ops").scan(ConsistentRead=True)["Items"] == []
    aws.transact(items[:4])  # without the failing item all four are written
    assert aws.table("tenancy").get_item(Key={"pk": "T#1", "sk": "X"})["Item"]["v"] == 2
    assert "Item" not in aws.table("tenancy").get_item(Key={"pk": "T#4", "sk": "X"})
    assert len(aws.table("user-ops").scan()["Items"]) == 2


def test_repeated_keys_are_read_once(aws_env, monkeypatch):
    """DynamoDB refuses a BatchGetItem that names a key twice; a list whose index repeats a record (a retried
    append, an entry written twice) must still answer."""
    with aws.table("tenancy").batch_writer() as batch:
        for i in range(120):
            batch.put_item(Item={"pk": f"R#{i}", "sk": "X", "i": i})
    requests = []
    batch_get_item = aws.dynamodb_client().batch_get_item
    monkeypatch.setattr(
        aws.dynamodb_client(), "batch_get_item", lambda **kw: requests.append(kw) or batch_get_item(**kw)
    )
    keys = [{"pk": "R#1", "sk": "X"}, {"pk": "R#2", "sk": "X"}, {"pk": "R#1", "sk": "X"}, {"pk": "R#none", "sk": "X"}]
    assert sorted(int(item["i"]) for item in aws.batch_get("tenancy", keys)) == [1, 2]
    assert requests[-1]["RequestItems"][aws.table("tenancy").name]["Keys"] == keys[:2] + keys[3:]
    requests.clear()
    twice = [{"pk": f"R#{i}", "sk": "X"} for i in range(120)] * 2  # 240 keys, 120 distinct: two requests, not three
    assert sorted(int(item["i"]) for item in aws.batch_get("tenancy", twice)) == list(range(120))
    assert len(requests) == 2


def test_a_listing_whose_list_repeats_a_record_answers(aws_env):
    entries = AppendOnlyList("custody", "TEST#withdrawals")
    aws.table("custody").put_item(Item={"pk": "W#1", "sk": "W", "id": "1"})
    for _ in range(2):
        append(entries, {"recordId": "1"})
    found, total = records_page(entries, Query10(page=1, limit=10), "recordId", lambda i: {"pk": f"W#{i}", "sk": "W"})
    assert total == 2 and [r["id"] for r in found] == ["1", "1"]


def test_a_status_filtered_page_is_exact_and_reads_out_only_the_keys_up_to_its_end(aws_env, monkeypatch):
    """custody's status index (docs/pagination.md, "Lists filtered by status"): newest first, the exact total,
    any page; the entries after the page are counted by DynamoDB, never returned."""
    with aws.table("custody").batch_writer() as batch:
        for i in range(25):
            batch.put_item(
                Item={"pk": f"R#{i}", "sk": "R", "id": str(i), "statusKey": "KIND#app#open", "listKey": f"{i:03d}#x"}
            )
        batch.put_item(Item={"pk": "R#other", "sk": "R", "id": "other", "statusKey": "KIND#app#closed", "listKey": "0"})
    queries: list[dict] = []
    table = aws.table("custody")
    query = table.query

    def counted(**kw):
        answer = query(**kw)
        queries.append({**kw, "returned": len(answer["Items"]) if "Items" in answer else 0})
        return answer

    monkeypatch.setattr(type(table), "query", lambda self, **kw: counted(**kw))
    found, total = indexed_page("status", "statusKey", "KIND#app#open", 2, 10)
    assert total == 25 and [r["id"] for r in found] == [str(i) for i in range(14, 4, -1)]
    assert sum(q["returned"] for q in queries) == 20  # the keys up to the page's end; the last 5 only counted
    assert all(q.get("Select") == "COUNT" for q in queries if q["returned"] == 0)
    found, total = indexed_page("status", "statusKey", "KIND#app#open", 3, 10)
    assert total == 25 and [r["id"] for r in found] == [str(i) for i in range(4, -1, -1)]
    assert indexed_page("status", "statusKey", "KIND#app#open", 4, 10) == ([], 25)
    assert indexed_page("status", "statusKey", "KIND#app#none", 1, 10) == ([], 0)
