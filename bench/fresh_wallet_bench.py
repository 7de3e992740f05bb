"""Fresh wallets over HTTP against the local stack: a burst after a pause, and concurrent first sends, each with the
machine quiet and while the aux filler generates a set beside the stack.

    .venv/bin/python bench/fresh_wallet_bench.py [--runs 1]
    .venv/bin/python bench/fresh_wallet_bench.py --api-url http://127.0.0.1:8000 [--stack .local/stack.json]

Without `--api-url` it starts a stack of its own with `make dev`'s settings (bench/engine_bench.py,
`started_stack`; presignature pools as `make dev` has them) and stops it at the end.

- **Burst**: a wallet created and funded (`anvil_setBalance`) sends `send-coin` 5 times 3 s apart (the first
  1 s after its creation), rests 30 s, then sends 12 back to back; its `balance-coin` is timed 10 times after.
- **Concurrency**: a wallet created and funded sends 16 `send-coin` at once 2 s after its creation. A 503 is
  counted with its code and whether it carried a `Retry-After`, and how long it took to answer.

"While the filler generates" is a second stack whose aux filler keeps a low-water mark above what this build's
cache holds (`--aux-low-water 200`): once it has put every cached set into the pool it generates sets, one after
another, for the whole scenario (its child process, at its lowest priority): the CPU load `make dev` has while
its pool of aux-info sets is refilled beyond the cache. Prints Markdown for docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import signal
import statistics
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from engine_bench import AMOUNT, TO, Answer, _interrupted, call, new_wallet, started_stack
from instrument import percentile, progress
from local_env import ROOT

API_DEADLINE_S = 28.0  # the API function's timeout (chalicelib/platform/resources.py)


def send(info: dict[str, Any], token: str) -> Answer:
    body = {"network": info["networks"][0]["name"], "to": TO, "amount": AMOUNT}
    return call("POST", f"{info['apiUrl']}/api/v1/wallet/send-coin", info["demo"]["clientSecret"], body, token)


def burst(info: dict[str, Any]) -> dict[str, Any]:
    _wallet, token = new_wallet(info, "burst-bench")
    time.sleep(1)
    answers: list[Answer] = []
    for _ in range(5):
        answers.append(send(info, token))
        time.sleep(3)
    time.sleep(27)  # 30 s after the fifth send's pause began
    answers += [send(info, token) for _ in range(12)]
    api, secret = info["apiUrl"], info["demo"]["clientSecret"]
    network = info["networks"][0]["name"]
    balances = [
        call("POST", f"{api}/api/v1/wallet/balance-coin", secret, {"network": network}, token) for _ in range(10)
    ]
    balance = [a.ms for a in balances]
    failed = [a for a in answers + balances if a.status != 200]
    if failed:
        raise RuntimeError(f"burst: {[(a.status, a.code) for a in failed]}")
    ms = [a.ms for a in answers]
    return {
        "p50": statistics.median(ms),
        "p95": percentile(ms, 0.95),
        "max": max(ms),
        "burst_p95": percentile(ms[5:], 0.95),
        "balance": statistics.median(balance),
    }


def concurrent(info: dict[str, Any], count: int = 16) -> dict[str, Any]:
    _wallet, token = new_wallet(info, "concurrency-bench")
    time.sleep(2)
    with ThreadPoolExecutor(count) as pool:
        answers = list(pool.map(lambda _: send(info, token), range(count)))
    ok = [a.ms for a in answers if a.status == 200]
    refused = [a for a in answers if a.status != 200]
    return {
        "ok": len(ok),
        "p50": statistics.median(ok) if ok else 0.0,
        "p95": percentile(ok, 0.95) if ok else 0.0,
        "max": max(a.ms for a in answers),
        "refused": Counter(f"{a.status} {a.code}{'' if a.retry_after else ' (no Retry-After)'}" for a in refused),
        "refused_max": max((a.ms for a in refused), default=0.0),
    }


def generating(stack_pid: int) -> bool:
    """Whether the stack's filler has a generation under way (its `aux_cache generate` child)."""
    from engine_bench import _descendants

    return any(b"aux_cache\x00generate" in line for line in _descendants(stack_pid).values())


def run(info: dict[str, Any], runs: int, load: str) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    rows = []
    for n in range(runs):
        progress(f"{load}: run {n + 1} of {runs}")
        rows.append((load, burst(info), concurrent(info)))
    return rows


def report(rows: list[tuple[str, dict[str, Any], dict[str, Any]]]) -> None:
    print(
        "\n| machine | burst: sends p50 / p95 / max ms | p50 ÷ balance-coin p50 | 12 back to back p95 ms "
        "| 16 at once: 200s | their p50 / p95 ms | slowest answer ms | refused (fast?) |\n"
        "|---|---|---|---|---|---|---|---|"
    )
    for load, b, c in rows:
        refused = ", ".join(f"{n} x {code}" for code, n in c["refused"].items()) or "none"
        if c["refused"]:
            refused += f" (slowest {c['refused_max']:.0f} ms)"
        print(
            f"| {load} | {b['p50']:.0f} / {b['p95']:.0f} / {b['max']:.0f} | {b['p50'] / b['balance']:.1f}x "
            f"({b['balance']:.0f} ms) | {b['burst_p95']:.0f} | {c['ok']} of 16 | {c['p50']:.0f} / {c['p95']:.0f} "
            f"| {c['max']:.0f} (deadline {API_DEADLINE_S * 1000:.0f}) | {refused} |"
        )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--api-url", help="a running `make dev` (default: stacks of its own)")
    parser.add_argument("--stack", type=Path, default=ROOT / ".local" / "stack.json", help="its stack.json")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, _interrupted)
    if args.api_url:
        info = json.loads(args.stack.read_text())
        report(run({**info, "apiUrl": args.api_url.rstrip("/")}, args.runs, "that stack"))
        return 0
    rows = []
    # Two wallets per run, and a spare; `make dev`'s pools and the service's other defaults.
    with started_stack({}, aux_sets=2 * args.runs + 1, prefix="fresh-wallet-bench-") as (info, _state, _cpu):
        rows += run(info, args.runs, "quiet")
    with started_stack({}, 2 * args.runs + 1, "fresh-wallet-bench-", aux_low_water=200) as (info, state, _cpu):
        pid = _stack_pid(state)
        deadline = time.monotonic() + 600
        while not generating(pid):
            if time.monotonic() > deadline:
                raise RuntimeError("the filler did not start generating")
            time.sleep(1)
        progress("the filler is generating")
        rows += run(info, args.runs, "filler generating")
        if not generating(pid):
            progress("the filler was not generating at the end")
    report(rows)
    return 0


def _stack_pid(state: Path) -> int:
    """The devstack process whose state folder is `state`."""
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            line = cmdline.read_bytes()
        except OSError:
            continue
        if b"devtools.devstack" in line and str(state).encode() in line:
            return int(cmdline.parent.name)
    raise RuntimeError("no devstack process for " + str(state))


if __name__ == "__main__":
    sys.exit(main())
