"""Counting and timing for the benchmarks: AWS calls (botocore's events on the service's session), JSON-RPC calls
(the transport's `post_json`), the time spent in named parts of the code, and percentiles.

Everything counts from many threads (the in-process cosigner calls from a thread of its own), so under one lock.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

DYNAMODB_WRITES = frozenset({"PutItem", "UpdateItem", "DeleteItem", "TransactWriteItems", "BatchWriteItem"})


def cold_import(root: Path, runs: int, module: str = "app") -> list[float]:
    """Milliseconds to import `module` in each of `runs` fresh interpreters (bytecode cached, as in a Lambda
    package): what a cold start of the API function pays before its first request."""
    code = f"import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
    # Bytecode written and then read, as a Lambda package ships it (the variable disables writing whatever its value).
    env = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    results = []
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True, check=True
        )
        results.append(float(out.stdout.strip()) * 1000)
    return results


def percentile(values: list[float], q: float) -> float:
    """Nearest rank: the value below which a share `q` of the runs fall."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def samples_ms(fn: Callable[[], object], runs: int) -> list[float]:
    """`fn` run `runs` times: each run's wall time in ms."""
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def progress(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def short_table(name: str) -> str:
    return name.removeprefix("dompet-bench-").removeprefix("bench-")


def aws_label(model: Any, params: dict[str, Any]) -> str:
    """ "GetItem(custody)", "TransactWriteItems(custody: 2 items, webhooks: 1 items)", or "kms Sign"."""
    service = model.service_model.service_name
    if service != "dynamodb":
        return f"{service} {model.name}"
    if "TableName" in params:
        tables = short_table(params["TableName"])
    elif "TransactItems" in params:
        per: Counter[str] = Counter(
            short_table(body.get("TableName", "")) for item in params["TransactItems"] for body in item.values()
        )
        tables = ", ".join(f"{t}: {n} items" for t, n in sorted(per.items()))
    else:
        tables = ", ".join(sorted(short_table(t) for t in params.get("RequestItems", {})))
    return f"{model.name}({tables})"


class Calls:
    """AWS and JSON-RPC calls made while not paused, and the time they took."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.paused = False
        self.reset()

    def reset(self) -> None:
        with self.lock:
            self.aws: Counter[str] = Counter()  # aws_label -> calls
            self.aws_s: Counter[str] = Counter()  # aws_label -> seconds from botocore's before-call to after-call
            self.round_trips: Counter[str] = Counter()  # "node" / a named RPC endpoint -> HTTP round trips
            self.rpc_calls = 0  # JSON-RPC calls (a batch counts each)
            self.rpc: Counter[str] = Counter()  # JSON-RPC method -> calls, whatever the endpoint
            self.rpc_at: Counter[str] = Counter()  # "node eth_getCode" -> calls
            self.rpc_s: Counter[str] = (
                Counter()
            )  # "node eth_getCode" -> seconds (a batch under its methods joined by +)

    @contextmanager
    def pause(self) -> Iterator[None]:
        """The benchmark's own calls are not counted."""
        self.paused = True
        try:
            yield
        finally:
            self.paused = False

    @property
    def writes(self) -> int:
        return sum(n for label, n in self.aws.items() if "(" in label and label.split("(")[0] in DYNAMODB_WRITES)

    @property
    def reads(self) -> int:
        return sum(n for label, n in self.aws.items() if "(" in label and label.split("(")[0] not in DYNAMODB_WRITES)

    @property
    def other_aws(self) -> int:
        return sum(n for label, n in self.aws.items() if "(" not in label)  # DynamoDB's labels name their tables

    def service(self, name: str) -> int:
        """Calls to one AWS service other than DynamoDB ("kms", "sqs")."""
        return sum(n for label, n in self.aws.items() if label.startswith(name + " "))

    def all_round_trips(self) -> int:
        return sum(self.round_trips.values())

    def count_aws(self, session: Any) -> None:
        """Count every call of the clients `session` (a boto3 session) makes; register before any client is made."""
        events = session.events
        events.register("before-parameter-build", self._aws_call)
        events.register("before-call", self._aws_started)
        events.register("after-call", self._aws_ended)

    def _aws_call(self, model: Any = None, params: Any = None, context: Any = None, **_: Any) -> None:
        if self.paused or model is None:
            return
        label = aws_label(model, params or {})
        with self.lock:
            self.aws[label] += 1
        if context is not None:
            context["bench_label"] = label

    def _aws_started(self, context: Any = None, **_: Any) -> None:
        if context is not None:
            context["bench_started"] = time.perf_counter()

    def _aws_ended(self, context: Any = None, **_: Any) -> None:
        label, started = (context or {}).get("bench_label"), (context or {}).get("bench_started")
        if label is not None and started is not None and not self.paused:
            with self.lock:
                self.aws_s[label] += time.perf_counter() - started

    def count_rpc(self, transport: Any, endpoints: dict[str, str] | None = None) -> None:
        """Count the JSON-RPC calls `transport.post_json` sends; `endpoints` names URLs (e.g. {alto_url:
        "bundler"}), any other is "node"."""
        original = transport.post_json
        named = {url.rstrip("/"): name for url, name in (endpoints or {}).items()}

        def counted(url: str, body: Any, *args: Any, **kwargs: Any) -> Any:
            calls = body if isinstance(body, list) else [body]
            target = named.get(url.rstrip("/"), "node")
            methods = [str(c.get("method")) for c in calls if isinstance(c, dict)]
            started = time.perf_counter()
            try:
                return original(url, body, *args, **kwargs)
            finally:
                if not self.paused:
                    with self.lock:
                        self.rpc_s[f"{target} {'+'.join(methods)}"] += time.perf_counter() - started
                        self.round_trips[target] += 1
                        self.rpc_calls += len(calls)
                        self.rpc.update(methods)
                        self.rpc_at.update(f"{target} {m}" for m in methods)

        transport.post_json = counted


class Timers:
    """Seconds spent in named parts of the code."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.seconds: Counter[str] = Counter()

    def clear(self) -> None:
        with self.lock:
            self.seconds.clear()

    def add(self, part: str, seconds: float) -> None:
        with self.lock:
            self.seconds[part] += seconds

    @contextmanager
    def timing(self, part: str) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        finally:
            self.add(part, time.perf_counter() - started)

    def wrap(
        self,
        owner: Any,
        name: str,
        part: str,
        when: Callable[..., bool] | None = None,
        after: Callable[[Any], None] | None = None,
        cpu_part: str | None = None,
    ) -> None:
        """Time every call of `owner.name` under `part` (only those `when(*args, **kwargs)` accepts); `after` gets
        each result; `cpu_part` also gets the process's CPU time (every thread's) during the call."""
        original = getattr(owner, name)

        def timed(*args: Any, **kwargs: Any) -> Any:
            if when is not None and not when(*args, **kwargs):
                return original(*args, **kwargs)
            started, cpu = time.perf_counter(), time.process_time()
            try:
                result = original(*args, **kwargs)
            finally:
                self.add(part, time.perf_counter() - started)
                if cpu_part is not None:
                    self.add(cpu_part, time.process_time() - cpu)
            if after is not None:
                after(result)
            return result

        setattr(owner, name, timed)
