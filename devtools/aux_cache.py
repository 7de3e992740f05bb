"""Aux-info sets for tests and the local stack, made fast with the crate's INSECURE fixture primes.

Generating a set for real costs minutes (safe primes); with the public fixture primes
in crates/dompet-mpc/testdata the protocol itself still runs for real (≈ 17 s). The
plaintext sets are cached under `.cache/insecure-aux/<build>/` (keyed by the compiled
module, so a rebuilt core never reuses stale blobs) and sealed into the pool through
the production code path (`aux_pool.store_set`). Every set made from the fixture
primes shares the same Paillier keys: never use them outside tests and `make dev`.

`LocalAuxFiller` keeps the local stack's pool above a low-water mark from that cache
(`make dev` only; deployments keep the scheduled `refill_aux_pool`).

    python -m devtools.aux_cache generate [--folder DIR]       # one more set into the cache (≈ 17 s)
    python -m devtools.aux_cache wallets --count N [--stack F] # create N wallets over HTTP, one after another
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import secrets
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from chalicelib.platform import priority

ROOT = Path(__file__).resolve().parents[1]
TEST_PRIMES = ROOT / "crates" / "dompet-mpc" / "testdata" / "insecure_test_primes.hex"
CACHE = ROOT / ".cache" / "insecure-aux"


def insecure_test_primes() -> list[bytes]:
    lines = [line.strip() for line in TEST_PRIMES.read_text().splitlines() if line.strip()]
    return [bytes.fromhex(line) for line in lines]


def _build_id() -> str:
    import dompet_mpc

    package = Path(dompet_mpc.__file__).parent
    digest = hashlib.sha256()
    for path in sorted(package.glob("*.so")):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _encode(parts: list[bytes]) -> bytes:
    return b"".join(struct.pack(">I", len(p)) + p for p in parts)


def _decode(blob: bytes) -> list[bytes]:
    parts, offset = [], 0
    while offset < len(blob):
        (size,) = struct.unpack_from(">I", blob, offset)
        parts.append(blob[offset + 4 : offset + 4 + size])
        offset += 4 + size
    return parts


def cache_folder() -> Path:
    """This build's cache of plaintext sets (`set-000.bin`, `set-001.bin`, …; each one distinct run)."""
    folder = CACHE / _build_id()
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def cached_paths(folder: Path) -> list[Path]:
    """The cached sets in `folder`, oldest first."""
    return sorted(folder.glob("set-*.bin"), key=lambda p: (len(p.name), p.name))


def generate_into(folder: Path) -> Path:
    """Run the aux-info protocol once (fixture primes, ≈ 17 s) and add the set to `folder` under the next free name.

    Write-then-link: a reader never sees half a file, and two processes filling the same cache (a test run next to
    `make dev`) never take the same name."""
    from chalicelib.mpc.aux_pool import generate_set

    blob = _encode(generate_set(insecure_test_primes()))
    tmp = folder / f".set-{os.getpid()}-{secrets.token_hex(4)}.tmp"
    tmp.write_bytes(blob)
    try:
        index = len(cached_paths(folder))
        while True:
            path = folder / f"set-{index:03d}.bin"
            try:
                os.link(tmp, path)
                return path
            except FileExistsError:
                index += 1
    finally:
        tmp.unlink(missing_ok=True)


def insecure_sets(count: int) -> list[list[bytes]]:
    """`count` distinct aux-info sets (distinct runs; same fixture primes), generated once and cached."""
    folder = cache_folder()
    while len(files := cached_paths(folder)) < count:
        generate_into(folder)
    return [_decode(f.read_bytes()) for f in files[:count]]


def fill_pool(count: int) -> list[str]:
    """Seal `count` cached sets into the (current stage's) pool; returns their aux ids."""
    from chalicelib.mpc.aux_pool import store_set

    return [store_set(parts) for parts in insecure_sets(count)]


class _StoppedError(Exception):
    """The filler was told to stop while it waited for a set."""


class LocalAuxFiller:
    """Keeps the local stack's aux pool at `low_water` or above: below it, tops the pool up to `target`.

    A background thread checks `aux_pool.ready_count()` every `period_s` and seals cached sets into the pool
    through `aux_pool.store_set`, the production path. `make dev` only: deployments keep the scheduled
    `refill_aux_pool` (real safe primes).

    Each cached set goes into this stack's pool at most once. The pool's rule (docs/mpc.md, fact 1;
    `aux_pool.claim`/`consume`) is that a set serves one wallet and is never handed to another; the pool enforces
    it by aux id, so sealing one plaintext twice under two ids would quietly give two wallets the same aux info
    (the same ring-Pedersen parameters and proofs' setup), which no deployment can do. The fixture primes already
    make every local set's Paillier keys equal, so this is not about secrecy: the local stack keeps the invariant
    the service is built on, as `insecure_sets` always has (distinct runs). `used` records which cached files are
    in the pool; it lives as long as the pool itself (moto in memory, one per stack process), so a new stack starts
    from the whole cache again. When every cached set is used, the filler generates one more into the cache (a
    child process, ≈ 17 s of one core, stopped with the filler), which later stacks then reuse.
    """

    def __init__(
        self,
        low_water: int,
        target: int,
        *,
        folder: Path | None = None,
        period_s: float = 1.0,
        say: Callable[[str], None] = print,
        generate: Callable[[Path], None] | None = None,
    ) -> None:
        """`generate(folder)` adds one set to `folder` (default: `generate_into` in a child process)."""
        if low_water < 0 or target < low_water:
            raise ValueError(f"aux filler needs 0 <= low water ({low_water}) <= target ({target})")
        self.low_water = low_water
        self.target = target
        self.folder = folder or cache_folder()
        self.period_s = period_s
        self.used: set[str] = set()  # names of the cached sets sealed into this pool
        self.generated = 0
        self._say = say
        self._generate = generate or self._generate_in_child
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._child: subprocess.Popen[bytes] | None = None
        self._child_lock = threading.Lock()

    def seed(self, count: int) -> list[str]:
        """Seal `count` unused cached sets into the pool now (generating any missing); their aux ids."""
        return [self._add_one() for _ in range(count)]

    def top_up(self) -> int:
        """One check: below the low-water mark, add sets until `target` are ready. Returns how many it added."""
        from chalicelib.mpc import aux_pool

        ready = aux_pool.ready_count()
        if ready >= self.low_water:
            return 0
        added = 0
        while not self._stop.is_set() and (ready := aux_pool.ready_count()) < self.target:
            self._add_one()
            added += 1
        self._say(f"aux filler: added {added} set(s), {ready} ready")
        return added

    def start(self) -> None:
        """Check in the background until `stop()`; a low-water mark of 0 never tops up, so starts nothing."""
        if self.low_water == 0 or self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name="local-aux-filler", daemon=True)
        self._thread.start()

    def stop(self, timeout_s: float = 10.0) -> None:
        """Stop the thread, and the set generation under way (its child process), if any."""
        self._stop.set()
        with self._child_lock:
            child = self._child
        if child is not None:
            _kill(child)
        if self._thread is not None:
            self._thread.join(timeout_s)

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def _run(self) -> None:
        failures = 0
        while not self._stop.is_set():
            try:
                self.top_up()
                failures = 0
            except _StoppedError:
                return
            except Exception as exc:  # noqa: BLE001 - never take the stack down: log, back off, try again
                if self._stop.is_set():
                    return
                failures += 1
                delay = min(30.0, self.period_s * 2**failures)
                self._say(f"aux filler: {type(exc).__name__}: {exc}; retrying in {delay:.0f} s")
                self._stop.wait(delay)
                continue
            self._stop.wait(self.period_s)

    def _add_one(self) -> str:
        from chalicelib.mpc import aux_pool

        path = self._next_unused()
        # Recorded before sealing: a store that failed midway may still have written the item.
        self.used.add(path.name)
        return aux_pool.store_set(_decode(path.read_bytes()))

    def _next_unused(self) -> Path:
        while True:
            for path in cached_paths(self.folder):
                if path.name not in self.used:
                    return path
            if self._stop.is_set():
                raise _StoppedError
            self._say(f"aux filler: all {len(self.used)} cached sets are in the pool; generating one (≈ 17 s)")
            before = len(cached_paths(self.folder))
            self._generate(self.folder)
            if len(cached_paths(self.folder)) <= before:
                raise RuntimeError(f"generating an aux-info set added nothing to {self.folder}")
            self.generated += 1

    def _generate_in_child(self, folder: Path) -> None:
        """`generate_into` in a child process of its own: a Rust computation in a thread cannot be interrupted,
        a process can, so Ctrl-C never waits for a set."""
        with tempfile.TemporaryFile() as errors:
            with self._child_lock:
                if self._stop.is_set():
                    raise _StoppedError
                child = self._child = subprocess.Popen(
                    [sys.executable, "-m", "devtools.aux_cache", "generate", "--folder", str(folder)],
                    cwd=ROOT,
                    stdout=subprocess.DEVNULL,
                    stderr=errors,
                    process_group=0,  # killed as a group; in the stack's session, where its low priority counts
                )
            try:
                while child.poll() is None:
                    if self._stop.wait(0.2):
                        _kill(child)
                        raise _StoppedError
            finally:
                with self._child_lock:
                    self._child = None
            if child.returncode != 0:
                errors.seek(0)
                tail = errors.read().decode(errors="replace").strip().splitlines()[-1:]
                raise RuntimeError(f"aux-info generation exited with {child.returncode}: {' '.join(tail)}")


def _kill(child: subprocess.Popen[bytes]) -> None:
    if child.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(child.pid, signal.SIGTERM)
    try:
        child.wait(timeout=5)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(child.pid, signal.SIGKILL)
        child.wait()


def create_wallets(stack_file: Path, count: int, give_up_s: float = 300.0) -> int:
    """Create `count` wallets over HTTP, one after another (a new user each), waiting out `503 WALLET_POOL_EMPTY`
    (retried every second); prints each and the rate. Returns how many 503s it met."""
    stack = json.loads(stack_file.read_text())
    api, secret = stack["apiUrl"], stack["demo"]["clientSecret"]
    empty, start = 0, time.monotonic()
    for n in range(1, count + 1):
        began = time.monotonic()
        token = _post(f"{api}/api/v1/auth/login", secret, {"subId": f"aux-{uuid.uuid4()}"})[1]["data"]["accessToken"]
        waits = 0
        while True:
            status, body = _post(f"{api}/api/v1/account/create", secret, {}, token)
            if status == 200:
                break
            if status != 503 or body.get("data", {}).get("code") != "WALLET_POOL_EMPTY":
                raise RuntimeError(f"wallet {n}: {status} {body}")
            if time.monotonic() - began > give_up_s:
                raise RuntimeError(f"wallet {n}: the pool stayed empty for {give_up_s:.0f} s")
            waits += 1
            time.sleep(1)
        empty += waits
        elapsed = time.monotonic() - start
        print(
            f"wallet {n}: {time.monotonic() - began:.1f} s ({waits} x 503 WALLET_POOL_EMPTY), "
            f"{n / elapsed * 60:.1f} wallets/min so far",
            flush=True,
        )
    total = time.monotonic() - start
    print(f"{count} wallets in {total:.1f} s: {count / total * 60:.1f} wallets/min; {empty} x 503 WALLET_POOL_EMPTY")
    return empty


def _post(url: str, secret: str, body: dict[str, Any], token: str | None = None) -> tuple[int, dict[str, Any]]:
    headers = {"x-client-secret": secret, "Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers, method="POST")  # noqa: S310
    try:
        with urllib.request.urlopen(request, timeout=120) as response:  # noqa: S310 - the local stack
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m devtools.aux_cache", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    generate = commands.add_parser("generate", help="add one insecure set to the cache (≈ 17 s)")
    generate.add_argument("--folder", type=Path, default=None, help="default: this build's cache folder")
    wallets = commands.add_parser("wallets", help="create wallets over HTTP one after another; print the rate")
    wallets.add_argument("--count", type=int, required=True)
    wallets.add_argument("--stack", type=Path, default=ROOT / ".local" / "stack.json")
    args = parser.parse_args(argv)
    if args.command == "generate":
        priority.lower_current_thread(priority.IDLE_NICE)  # beside a stack: its requests and refills come first
        folder = args.folder or cache_folder()
        folder.mkdir(parents=True, exist_ok=True)
        print(generate_into(folder))
        return 0
    create_wallets(args.stack, args.count)
    return 0


if __name__ == "__main__":
    sys.exit(main())
