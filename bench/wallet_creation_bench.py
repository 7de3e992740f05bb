"""Wallet creation at scale: `POST /api/v1/account/create` over HTTP from a stocked aux pool, and what the deployed
`refill_aux_pool` makes with real safe primes.

    .venv/bin/python bench/wallet_creation_bench.py [--wallets 20] [--real-sets 1]

- **From a stocked pool**: a stack of its own (bench/engine_bench.py, `started_stack`, `make dev`'s settings) seeded
  with `--wallets` aux-info sets; as many wallets are created one after another over HTTP (a new user each: login,
  then create). Each create's answer time (p50, p95) and the sustained rate per minute (first login to last answer).
- **Real safe primes**: `--real-sets` runs of `aux_pool.generate_set()` as `refill_aux_pool` runs it (three prime
  searches and the aux-info protocol, in threads), with their wall and CPU seconds. `refill_aux_pool` has 3 008 MB,
  two vCPUs, about this machine's two cores: a function makes 60 / wall wallets per minute, N concurrent functions
  N times that (each its own Lambda), at Lambda's x86 price per GB-second.

Prints Markdown for docs/performance.md.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import time
import uuid

from engine_bench import Send, call, retrying, started_stack
from instrument import percentile, progress

LAMBDA_GB_S_USD = 0.0000166667  # x86, first tier, us-east-1
REFILL_MEMORY_GB = 3008 / 1024


def from_pool(wallets: int) -> None:
    with started_stack({}, aux_sets=wallets, prefix="wallet-bench-") as (info, _state, _cpu):
        api, secret = info["apiUrl"], info["demo"]["clientSecret"]
        answers: list[float] = []
        started = time.perf_counter()
        for n in range(wallets):
            login = call("POST", f"{api}/api/v1/auth/login", secret, {"subId": f"wallet-bench-{uuid.uuid4().hex}"})
            token = login.body["data"]["accessToken"]
            created = retrying(
                lambda token=token: call("POST", f"{api}/api/v1/account/create", secret, {}, token), Send(n)
            )
            if created.status != 200:
                raise RuntimeError(f"account/create: {created.status} {created.body}")
            answers.append(created.ms)
        elapsed = time.perf_counter() - started
    print("| measure | value |\n|---|---|")
    print(f"| wallets created one after another over HTTP | {wallets} |")
    print(
        f"| `POST /api/v1/account/create` p50 / p95 ms | {statistics.median(answers):.0f} / "
        f"{percentile(answers, 0.95):.0f} |"
    )
    print(f"| sustained (login + create, one after another) | {wallets / elapsed * 60:.0f} wallets/min |")


def real_sets(count: int) -> None:
    import local_env

    local_env.use()
    from chalicelib.mpc import aux_pool

    rows = []
    for n in range(count):
        progress(f"real safe primes: set {n + 1} of {count}")
        cpu_before = resource.getrusage(resource.RUSAGE_SELF)
        started = time.perf_counter()
        aux_pool.generate_set()
        wall = time.perf_counter() - started
        cpu_after = resource.getrusage(resource.RUSAGE_SELF)
        cpu = (cpu_after.ru_utime - cpu_before.ru_utime) + (cpu_after.ru_stime - cpu_before.ru_stime)
        rows.append((wall, cpu))
    wall = statistics.median(w for w, _ in rows)
    cpu = statistics.median(c for _, c in rows)
    per_minute = 60 / wall
    cost = wall * REFILL_MEMORY_GB * LAMBDA_GB_S_USD
    print("\n| measure | value |\n|---|---|")
    print(f"| one aux-info set with real safe primes: wall / CPU s (median of {count}) | {wall:.0f} / {cpu:.0f} |")
    print(f"| wallets per minute per concurrent `refill_aux_pool` (3 008 MB, 2 vCPUs) | {per_minute:.2f} |")
    for functions in (1, 10, 100):
        print(f"| with {functions} concurrent functions | {per_minute * functions:.1f} wallets/min |")
    print(f"| Lambda cost per wallet (its set's GB-seconds at ${LAMBDA_GB_S_USD}/GB-s) | ${cost:.4f} |")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--wallets", type=int, default=20)
    parser.add_argument("--real-sets", type=int, default=1)
    args = parser.parse_args()
    if args.wallets:
        from_pool(args.wallets)
    if args.real_sets:
        real_sets(args.real_sets)
    return 0


if __name__ == "__main__":
    sys.exit(main())
