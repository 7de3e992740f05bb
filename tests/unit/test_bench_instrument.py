"""bench/instrument.py: the benchmarks' one way to count AWS and JSON-RPC calls, time parts and take percentiles."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from tests.support.scripts import load

instrument = load("instrument", "bench")


def _model(service: str, name: str) -> SimpleNamespace:
    return SimpleNamespace(name=name, service_model=SimpleNamespace(service_name=service))


def test_percentile_is_the_nearest_rank():
    values = [float(v) for v in range(1, 101)]
    assert instrument.percentile(values, 0.5) == 51.0
    assert instrument.percentile(values, 0.95) == 95.0
    assert instrument.percentile([3.0], 0.95) == 3.0
    assert instrument.percentile([5.0, 1.0, 3.0], 1.0) == 5.0


def test_labels_name_dynamodb_tables_and_other_services():
    label = instrument.aws_label
    assert label(_model("dynamodb", "GetItem"), {"TableName": "dompet-bench-custody"}) == "GetItem(custody)"
    items = {"TransactItems": [{"Put": {"TableName": "dompet-bench-custody"}}] * 2 + [{"Put": {"TableName": "w"}}]}
    assert label(_model("dynamodb", "TransactWriteItems"), items) == "TransactWriteItems(custody: 2 items, w: 1 items)"
    batch = {"RequestItems": {"dompet-bench-b": {}, "dompet-bench-a": {}}}
    assert label(_model("dynamodb", "BatchGetItem"), batch) == "BatchGetItem(a, b)"
    assert label(_model("kms", "Sign"), {"KeyId": "k"}) == "kms Sign"


def test_aws_calls_are_counted_and_timed_unless_paused():
    calls = instrument.Calls()
    handlers: dict[str, object] = {}
    calls.count_aws(SimpleNamespace(events=SimpleNamespace(register=handlers.__setitem__)))

    def one(model: SimpleNamespace, params: dict) -> None:
        context: dict = {}
        handlers["before-parameter-build"](model=model, params=params, context=context)
        handlers["before-call"](context=context)
        handlers["after-call"](context=context)

    one(_model("dynamodb", "PutItem"), {"TableName": "t"})
    one(_model("dynamodb", "Query"), {"TableName": "t"})
    one(_model("sqs", "SendMessage"), {})
    with calls.pause():
        one(_model("dynamodb", "PutItem"), {"TableName": "t"})
    assert calls.aws == {"PutItem(t)": 1, "Query(t)": 1, "sqs SendMessage": 1}
    assert (calls.writes, calls.reads, calls.other_aws, calls.service("sqs")) == (1, 1, 1, 1)
    assert set(calls.aws_s) == set(calls.aws)
    calls.reset()
    assert not calls.aws and not calls.aws_s


def test_json_rpc_calls_are_counted_per_endpoint_and_batch():
    calls = instrument.Calls()
    sent = []
    transport = SimpleNamespace(post_json=lambda url, body, *a, **k: sent.append(url) or {"result": "0x1"})
    calls.count_rpc(transport, {"http://bundler/": "bundler"})
    batch = [{"method": "eth_getCode"}, {"method": "eth_gasPrice"}]
    assert transport.post_json("http://node", batch) == {"result": "0x1"}
    transport.post_json("http://bundler", {"method": "eth_sendUserOperation"})
    with calls.pause():
        transport.post_json("http://node", {"method": "eth_chainId"})
    assert len(sent) == 3
    assert calls.round_trips == {"node": 1, "bundler": 1} and calls.all_round_trips() == 2 and calls.rpc_calls == 3
    assert calls.rpc == {"eth_getCode": 1, "eth_gasPrice": 1, "eth_sendUserOperation": 1}
    assert calls.rpc_at["bundler eth_sendUserOperation"] == 1
    assert set(calls.rpc_s) == {"node eth_getCode+eth_gasPrice", "bundler eth_sendUserOperation"}


def test_a_wrapped_function_is_timed_only_when_asked_and_its_result_passed_on():
    timers = instrument.Timers()
    seen = []
    owner = SimpleNamespace(work=lambda n: n * 2)
    timers.wrap(owner, "work", "part", when=lambda n: n > 0, after=seen.append, cpu_part="cpu")
    assert owner.work(0) == 0 and "part" not in timers.seconds
    assert owner.work(2) == 4 and seen == [4]
    assert timers.seconds["part"] > 0 and "cpu" in timers.seconds

    def boom() -> None:
        raise ValueError

    timers.clear()
    owner.boom = boom
    timers.wrap(owner, "boom", "failing")
    with pytest.raises(ValueError):
        owner.boom()
    assert "failing" in timers.seconds  # a call that raises still counts its time
