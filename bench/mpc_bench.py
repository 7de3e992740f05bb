"""MPC core latency: 2-of-3 key generation, two-party signing, and presignature generation with its online step,
beside a single-key signature.

    .venv/bin/python bench/mpc_bench.py [--runs 50] [--prime-runs 1]

Parties run in one process with an in-memory router and one thread per party (handle() releases
the GIL), so the numbers are the protocols' compute plus Python glue, without network hops.
Aux info uses the crate's public *insecure* fixture primes so that runs are repeatable; real prime
generation (done ahead of time, off the request path) is timed separately. Prints a Markdown table
for docs/performance.md.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import time
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import dompet_mpc as mpc
from instrument import percentile, samples_ms

PRIMES = Path(__file__).resolve().parents[1] / "crates" / "dompet-mpc" / "testdata" / "insecure_test_primes.hex"


def run(sessions: list[mpc.Session]) -> list[bytes]:
    with ThreadPoolExecutor(max_workers=len(sessions)) as pool:
        pending = [m for batch in pool.map(lambda s: s.start(), sessions) for m in batch]
        while pending:
            inbox: dict[int, list[bytes]] = defaultdict(list)
            for msg in pending:
                to, frm = mpc.recipient(msg), mpc.sender(msg)
                for s in sessions:
                    if (s.party_index == to) if to is not None else (s.party_index != frm):
                        inbox[s.party_index].append(msg)
            pending = [out for batch in pool.map(lambda s, box=inbox: deliver(s, box), sessions) for out in batch]
    return [s.result() for s in sessions]


def deliver(session: mpc.Session, inbox: dict[int, list[bytes]]) -> list[bytes]:
    return [out for msg in inbox.get(session.party_index, []) for out in session.handle(msg)]


def row(name: str, samples: list[float]) -> str:
    return f"| {name} | {len(samples)} | {statistics.median(samples):.3f} | {percentile(samples, 0.95):.3f} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--prime-runs", type=int, default=1)
    args = parser.parse_args()

    primes = [bytes.fromhex(line) for line in PRIMES.read_text().split() if line]
    aux = run([mpc.aux_info_session(b"bench-aux", i, primes[i]) for i in range(3)])

    def keygen() -> list[bytes]:
        execution = os.urandom(16)  # one id per run, the same for every party
        cores = run([mpc.keygen_session(execution, i) for i in range(3)])
        return [mpc.complete_key_share(core, aux[i]) for i, core in enumerate(cores)]

    shares = keygen()
    digest = hashlib.sha256(b"bench").digest()

    def sign() -> bytes:
        execution = os.urandom(16)
        return run([mpc.signing_session(execution, shares[i], [0, 1], digest) for i in (0, 1)])[0]

    def presign() -> list[bytes]:
        execution = os.urandom(16)
        return run([mpc.presign_session(execution, shares[i], [0, 1]) for i in (0, 1)])

    public_key = mpc.public_key(shares[0])
    stock: list[list[bytes]] = []

    def online() -> bytes:
        """What a send does with a stocked pool: each party issues its partial, one combines and verifies."""
        presignature = stock.pop()
        partials = [mpc.issue_partial_signature(presignature[i], digest) for i in (0, 1)]
        return mpc.combine_signatures(partials, public_key, digest)

    from coincurve import PrivateKey

    single = PrivateKey()

    def single_sign() -> bytes:
        return bytes(single.sign_recoverable(digest, hasher=None))

    def aux_protocol() -> list[bytes]:
        execution = os.urandom(16)
        return run([mpc.aux_info_session(execution, i, primes[i]) for i in range(3)])

    print(f"machine: {os.cpu_count()} cores; {time.strftime('%Y-%m-%d')}")
    print("| operation | runs | p50 ms | p95 ms |\n|---|---|---|---|", flush=True)
    measurements: list[tuple[str, Callable[[], object], int]] = [
        ("2-of-3 key generation (DKG + complete shares, 3 parties)", keygen, args.runs),
        ("two-party signing (parties 0 and 1)", sign, args.runs),
        ("single-key secp256k1 signature (coincurve, baseline)", single_sign, args.runs * 20),
        ("aux info protocol (3 parties, fixture primes; off the request path)", aux_protocol, max(3, args.runs // 10)),
        ("safe-prime pregeneration (one party; off the request path)", mpc.pregenerate_primes, args.prime_runs),
    ]
    for name, fn, runs in measurements[:2]:
        print(row(name, samples_ms(fn, runs)), flush=True)
    cpu_started = time.process_time()
    presign_samples = []
    for _ in range(args.runs):
        started = time.perf_counter()
        stock.append(presign())
        presign_samples.append((time.perf_counter() - started) * 1000)
    cpu_ms = (time.process_time() - cpu_started) * 1000 / args.runs
    share_size = len(stock[0][0])
    print(row("presignature generation (parties 0 and 1; off the request path)", presign_samples), flush=True)
    print(row("online step: two partial signatures, combine, verify", samples_ms(online, args.runs)), flush=True)
    for name, fn, runs in measurements[2:]:
        print(row(name, samples_ms(fn, runs)), flush=True)
    print(
        f"\nCPU per presignature (both parties, process time): {cpu_ms:.0f} ms; "
        f"a presignature share is {share_size} bytes"
    )


if __name__ == "__main__":
    main()
