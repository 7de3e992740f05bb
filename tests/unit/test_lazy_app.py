"""app.py declares its routes and functions with placeholders (platform/lazy_app.py): its import, every Lambda's cold
start, loads no route or worker module, and the first event wires the hooks and loads what it needs."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from chalice import Chalice
from chalice.test import Client

from chalicelib.platform import resources
from chalicelib.platform.lazy_app import DeclaredRoute, LazyChalice, LoadError
from chalicelib.route_table import ROUTES
from devtools import route_table
from devtools.workers import WorkerRunner, scheduled_event
from tests.support import lazy_counts

ROOT = Path(__file__).resolve().parents[2]
MODULE = "tests.support.lazy_module"
THING = DeclaredRoute("POST", "/things/{thing}", ("application/json",), MODULE, "make_thing")


def test_the_route_table_is_what_the_modules_declare() -> None:
    # In its own process: building the table registers each blueprint on an app of its own.
    done = subprocess.run(
        [sys.executable, "-m", "devtools.route_table", "--check"], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert {r.module for r in ROUTES} == set(route_table.MODULES)


def test_every_function_but_the_api_names_the_module_that_runs_it() -> None:
    for function in resources.FUNCTIONS:
        if function.name == "api_handler":
            assert not function.entry
            continue
        handler = getattr(importlib.import_module(function.entry), function.name, None)
        assert callable(handler), function.name
        assert not (function.schedule and function.consumes), function.name


def test_importing_app_loads_no_route_worker_or_wiring_module() -> None:
    served = sorted({r.module for r in ROUTES} | {f.entry for f in resources.FUNCTIONS if f.entry})
    probe = (
        "import json, sys, app\n"
        f"served = {served!r}\n"
        "loaded = [m for m in served + ['chalicelib.wiring'] if m in sys.modules]\n"
        "print(json.dumps({'loaded': loaded, 'handlers': sorted(n for n in app.app.handler_map)}))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOMPET_")} | {"DOMPET_STAGE": "dev"}
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    answer = json.loads(done.stdout)
    assert answer["loaded"] == []
    workers = {f.name for f in resources.FUNCTIONS if f.entry}
    assert workers <= set(answer["handlers"])


def test_each_function_is_app_attribute_that_lambda_calls(aws_env: None) -> None:
    import app as entry

    for function in resources.FUNCTIONS:
        if function.entry:
            assert getattr(entry, function.name) is entry.app.handler_map[function.name]
    strings = {c.name: c.handler_string for c in [*entry.app.event_sources, *entry.app.pure_lambda_functions]}
    assert strings == {f.name: f"app.{f.name}" for f in resources.FUNCTIONS if f.entry}


def _lazy_app() -> LazyChalice:
    lazy_counts.imports = lazy_counts.prepared = 0
    sys.modules.pop(MODULE, None)

    def prepare() -> None:
        lazy_counts.prepared += 1

    app = LazyChalice("lazy-test", prepare=prepare)
    app.declare_routes([THING])
    return app


def test_a_route_loads_its_module_on_its_first_request_once() -> None:
    app = _lazy_app()
    assert MODULE not in sys.modules
    with Client(app) as client:
        refused = client.http.post("/things/a", headers={"Content-Type": "text/plain"}, body="x")
        assert refused.status_code == 415  # checked on the declaration, before anything loads
        assert MODULE not in sys.modules and lazy_counts.prepared == 0

        for name in ("a", "b"):
            answer = client.http.post(
                f"/things/{name}", headers={"Content-Type": "application/json"}, body=json.dumps({"n": name})
            )
            assert answer.status_code == 200 and json.loads(answer.body) == {"thing": name, "body": {"n": name}}
    assert lazy_counts.imports == 1 and lazy_counts.prepared == 1
    assert not getattr(app.routes["/things/{thing}"]["POST"].view_function, "_dompet_placeholder", False)


def test_concurrent_requests_each_read_their_own_request_while_the_module_loads() -> None:
    """The local server serves requests on threads of one app: each view reads the request it serves, also while
    the first request imports the module (Chalice keeps the request on the app; here it is per thread)."""
    app = _lazy_app()
    answers: dict[str, Any] = {}

    with Client(app) as client:

        def call(name: str) -> None:
            body = json.dumps({"n": name})
            answers[name] = client.http.post(f"/things/{name}", headers={"Content-Type": "application/json"}, body=body)

        threads = [threading.Thread(target=call, args=(str(i),)) for i in range(16)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert {name: json.loads(a.body) for name, a in answers.items()} == {
        str(i): {"thing": str(i), "body": {"n": str(i)}} for i in range(16)
    }
    assert lazy_counts.imports == 1 and lazy_counts.prepared == 1


def test_the_request_being_served_is_per_thread() -> None:
    app = _lazy_app()
    app.current_request = "mine"  # type: ignore[assignment]
    seen: list[object] = []
    other = threading.Thread(target=lambda: seen.append(app.current_request))
    other.start()
    other.join()
    assert seen == [None] and app.current_request == "mine"


def test_concurrent_first_uses_load_and_wire_once() -> None:
    app = _lazy_app()
    threads = [threading.Thread(target=app.load, args=(MODULE,)) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert lazy_counts.imports == 1 and lazy_counts.prepared == 1
    assert not getattr(app.routes["/things/{thing}"]["POST"].view_function, "_dompet_placeholder", False)


def test_a_stale_table_fails_the_request_not_the_import() -> None:
    app = _lazy_app()
    app.declare_routes([DeclaredRoute("GET", "/gone", ("*/*",), MODULE, "gone")])
    with Client(app) as client:
        assert client.http.get("/gone").status_code == 500
    with pytest.raises(LoadError):
        app.routes["/gone"]["GET"].view_function()


def test_a_route_declared_twice_is_still_refused() -> None:
    app = _lazy_app()
    app.load(MODULE)
    with pytest.raises(ValueError, match="declared by"):
        app.route("/things/{thing}", methods=["POST"])(lambda thing: {})


def test_a_function_runs_its_entry_after_the_wiring() -> None:
    app = _lazy_app()
    tick = resources.Function(name="tick", purpose="test", entry=MODULE, schedule="rate(1 minute)")
    handlers = app.declare_functions([tick], "test")
    assert MODULE not in sys.modules
    runner = WorkerRunner(app, region="us-east-1")
    (source,) = runner.schedules
    assert source.handler_string == "app.tick" and handlers["tick"] is app.handler_map["tick"]
    assert runner.invoke(source, scheduled_event("us-east-1")) == "ticked CloudWatchEvent"
    assert lazy_counts.prepared == 1 and lazy_counts.imports == 1


def test_an_app_that_registers_blueprints_itself_is_left_alone() -> None:
    app = Chalice("eager")
    from chalicelib.platform import lazy_app

    lazy_app.load_all(app)  # nothing to load, no error
    assert app.routes == {}
