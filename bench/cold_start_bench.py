"""Cold start of the API function: the import of `app.py` (what Lambda loads before the first request) in fresh
interpreters, and where it goes (`-X importtime`, the largest cumulative imports).

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


if __name__ == "__main__":
    main()
