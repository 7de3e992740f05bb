"""Cold start: the import of `app.py` (what every Lambda function loads before its first event) in fresh
interpreters and where it goes (`-X importtime`, the largest cumulative imports); then, per function, what its
first event loads on top (the wiring and the module that serves it, platform/lazy_app.py).

    .venv/bin/python bench/cold_start_bench.py [--runs 10]

Prints Markdown for docs/performance.md.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys

import local_env
from instrument import cold_import, percentile

local_env.use()
ROOT = local_env.ROOT


def largest_imports(count: int) -> list[tuple[float, str]]:
    """The `count` largest cumulative import times (ms) of one fresh `import app`, top-level modules only."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import app"],
        cwd=ROOT,
        env={name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"},
        capture_output=True,
        text=True,
        check=True,
    )
    rows: list[tuple[float, str]] = []
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _, cumulative, name = line.removeprefix("import time:").split("|")
        if not name.startswith("   ") or name.startswith("     "):  # app.py's direct imports (one level in)
            continue
        rows.append((int(cumulative) / 1000, name.strip()))
    return sorted(rows, reverse=True)[:count]


# Functions whose first event is measured: the API's (the wallet routes' module) and the workers the issue names.
FIRST_EVENTS = (
    ("api_handler (first wallet route)", "chalicelib.wallets.routes"),
    ("cosigner", "chalicelib.mpc.functions"),
    ("track_transaction", "chalicelib.evm.functions"),
    ("deliver_webhook", "chalicelib.webhooks.functions"),
)


def first_event(module: str, runs: int) -> tuple[list[float], list[float]]:
    """Per fresh interpreter: ms to import app.py, then ms for the first event's load of `module` (with wiring)."""
    code = (
        "import time; t = time.perf_counter(); import app; a = time.perf_counter(); "
        f"app.app.load({module!r}); print(a - t, time.perf_counter() - a)"
    )
    env = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    imports, loads = [], []
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True
        )
        imported, loaded = (float(x) * 1000 for x in out.stdout.split())
        imports.append(imported)
        loads.append(loaded)
    return imports, loads


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    cold_import(ROOT, 1)  # bytecode compiled once, as a Lambda package ships it
    runs = cold_import(ROOT, args.runs)
    print("| measure | value |\n|---|---|")
    print(f"| cold import of app.py, p50 ms ({args.runs} fresh interpreters) | {statistics.median(runs):.0f} |")
    print(f"| cold import of app.py, p95 ms | {percentile(runs, 0.95):.0f} |")
    print("\n| import of app.py's direct imports (one run, cumulative ms) | ms |\n|---|---|")
    for ms, name in largest_imports(12):
        print(f"| `{name}` | {ms:.0f} |")
    print("\n| function | import of app.py, p50 ms | its first event's load, p50 ms |\n|---|---|---|")
    for function, module in FIRST_EVENTS:
        imports, loads = first_event(module, max(3, args.runs // 2))
        print(f"| {function} | {statistics.median(imports):.0f} | {statistics.median(loads):.0f} |")


if __name__ == "__main__":
    main()
