"""The transaction engine under bursts: `--total` sends queued from one wallet in bursts of `--burst`, over HTTP
against the local stack (`make dev`); all must be mined in nonce order with no gap.

    .venv/bin/python bench/engine_bench.py [--total 100] [--burst 10] [--timers make-dev|tests]
    .venv/bin/python bench/engine_bench.py --api-url http://127.0.0.1:8000 [--stack .local/stack.json]

Without `--api-url` it starts its own stack as the tests' session fixture does (tests/conftest.py, `stack`):
`python -m devtools.devstack` on free ports with a state folder of its own, two aux-info sets and no aux filler,
presignature pools of two per wallet and no scheduled aux refill; the engine's timers (re-pricing, gap fills) are
`make dev`'s 30 s, or with `--timers tests` the 3 s of the tests' stack. It stops the stack at the end (Ctrl-C,
SIGTERM and errors included). With `--api-url` it uses the running `make dev` whose `stack.json` `--stack` names
(the demo client, the first network's anvil).

One new wallet, funded with `anvil_setBalance`, sends `send-coin` (0.0001 ETH) in bursts: `--burst` concurrent
requests (a thread each), the next burst once all of the previous one answered. A 503 is retried after its
Retry-After (counted); a send's answer time is its answering request's, its time with retries from its first
request. Then the chain: from the first request until `eth_getTransactionCount(latest)` passes the highest 200's
nonce; then the tracker: until no record of the wallet is `signing` or `pending`. With a stack of its own, also
the CPU its processes and the whole machine spent meanwhile (the machine is shared: what else ran shows there).

Verified (the bench exits 1 otherwise): the 200s' nonces are exactly 0..n-1 (no gap, no duplicate); the chain's
nonce is n; every 200's transaction (its hash, or the record's `minedHash` from GET
/api/v1/wallet/transactions/{hash} when a replacement was mined) has a successful receipt at its nonce; block and
index grow with the nonce; nothing of the wallet is left in the node's `txpool_content`. A failure says what took
a missing nonce (a gap fill, say). Prints Markdown for docs/performance.md.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from instrument import percentile, progress
from local_env import ROOT

sys.path.insert(0, str(ROOT))

TO = "0x000000000000000000000000000000000000dEaD"
AMOUNT = "0.0001"
# As the tests' session stack (tests/conftest.py): small pools (every presignature costs CPU the sends share), no
# scheduled aux refill (a minute of both cores per set).
STACK_ENV = {"DOMPET_PRESIGN_POOL_FLOOR": "2", "DOMPET_PRESIGN_POOL_CEILING": "2", "DOMPET_AUX_POOL_TARGET": "0"}
# The engine's timers: `make dev`'s (the service's defaults, 30 s), or the tests' stack's (3 s, for quick tests).
TIMERS = {
    "make-dev": {},
    "tests": {"DOMPET_TX_BUMP_AFTER_S": "3", "DOMPET_NONCE_GAP_FILL_S": "3"},
}
STACK_UP_S = 300  # a fresh clone also compiles the contracts and makes its aux-info sets
STACK_DOWN_S = 60
UNSETTLED = ("signing", "pending")
MAX_RETRIES = 30  # per send: a stack that keeps refusing fails the run instead of looping
MINED_WITHIN_S = 300
SETTLED_WITHIN_S = 180


@dataclass(frozen=True)
class Answer:
    status: int
    body: dict[str, Any]
    retry_after: str | None
    ms: float

    @property
    def code(self) -> str:
        return str(self.body.get("data", {}).get("code", "")) if self.status != 200 else ""


@dataclass
class Send:
    index: int
    answer: Answer | None = None
    total_ms: float = 0.0
    answered_at: float = 0.0  # wall clock, to compare with the block's timestamp
    retries: int = 0
    refusals: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.answer is not None and self.answer.status == 200

    @property
    def receipt(self) -> dict[str, Any]:
        assert self.answer is not None
        receipt: dict[str, Any] = self.answer.body["data"]["txReceipt"]
        return receipt


def call(method: str, url: str, secret: str, body: dict[str, Any] | None = None, token: str | None = None) -> Answer:
    headers = {"x-client-secret": secret, "Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = json.dumps(body or {}).encode() if method == "POST" else None
    request = urllib.request.Request(url, data=data, headers=headers, method=method)
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            status, raw, retry_after = response.status, response.read(), response.headers.get("Retry-After")
    except urllib.error.HTTPError as error:
        status, raw, retry_after = error.code, error.read(), error.headers.get("Retry-After")
    except OSError as error:  # the connection failed or was reset: no answer (status 0), counted as such
        status, raw, retry_after = 0, json.dumps({"data": {"code": type(error).__name__}}).encode(), None
    ms = (time.perf_counter() - started) * 1000
    return Answer(status, json.loads(raw or b"{}"), retry_after, ms)


def rpc(url: str, method: str, params: list[Any]) -> Any:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
    request = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        answer = json.loads(response.read())
    if "error" in answer:
        raise RuntimeError(f"{method}: {answer['error']}")
    return answer["result"]


def retrying(request: Any, send: Send) -> Answer:
    """`request()` until it answers anything but a 503 with a Retry-After (slept), at most MAX_RETRIES times."""
    while True:
        answer: Answer = request()
        if answer.status != 503 or answer.retry_after is None or send.retries >= MAX_RETRIES:
            return answer
        send.retries += 1
        send.refusals.append(answer.code)
        time.sleep(float(answer.retry_after))


def new_wallet(info: dict[str, Any], label: str) -> tuple[str, str]:
    """A new user's wallet (login, then create, retried while busy), funded on the stack's first network: its
    address and wallet token."""
    api, secret = info["apiUrl"], info["demo"]["clientSecret"]
    login = call("POST", f"{api}/api/v1/auth/login", secret, {"subId": f"{label}-{uuid.uuid4().hex[:8]}"})
    access = login.body["data"]["accessToken"]
    created = retrying(lambda: call("POST", f"{api}/api/v1/account/create", secret, {}, access), Send(-1))
    if created.status != 200:
        raise RuntimeError(f"account/create: {created.status} {created.body}")
    wallet, token = str(created.body["data"]["address"]), str(created.body["data"]["walletToken"])
    rpc(info["networks"][0]["rpcUrl"], "anvil_setBalance", [wallet, hex(10**21)])
    return wallet, token


# The stack this bench starts, stopped whatever happens.


def _process_tree() -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            children.setdefault(ppid, []).append(int(stat.parent.name))
    return children


def _cmdline(pid: int) -> bytes | None:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return None


def _tree_cpu_s(pid: int) -> float:
    """CPU seconds (user and system) of `pid` and the processes under it, the children they reaped included."""
    total = 0
    for each in [pid, *_descendants(pid)]:
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = Path(f"/proc/{each}/stat").read_text().rsplit(")", 1)[1].split()
            total += sum(int(f) for f in fields[11:15])  # utime, stime, cutime, cstime
    return total / os.sysconf("SC_CLK_TCK")


def _machine_busy_s() -> float:
    """CPU seconds the whole machine has spent busy (all cores, /proc/stat)."""
    user, nice, system, _idle, _iowait, irq, softirq, steal = map(int, Path("/proc/stat").read_text().split()[1:9])
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def _descendants(pid: int) -> dict[int, bytes]:
    """The processes under `pid` now (anvil, alto and `chalice local` run in sessions of their own), with their
    command lines, so that a leftover is recognised by its id and command line, not by a name."""
    tree, found, todo = _process_tree(), {}, [pid]
    while todo:
        for child in tree.get(todo.pop(), []):
            line = _cmdline(child)
            if line is not None:
                found[child] = line
            todo.append(child)
    return found


@contextlib.contextmanager
def started_stack(
    settings: dict[str, str], aux_sets: int = 2, prefix: str = "engine-bench-", aux_low_water: int = 0
) -> Iterator[tuple[dict[str, Any], Path, Callable[[], float]]]:
    """A stack of the bench's own with `settings` (DOMPET_* variables; the rest are `make dev`'s), `aux_sets`
    wallets creatable and its aux filler's low-water mark (0: no filler), stopped on the way out whatever happens;
    its state folder (logs) stays."""
    state = Path(tempfile.mkdtemp(prefix=prefix))
    from devtools.chain import free_port

    ports = [free_port() for _ in range(4)]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "DOMPET_"))}
    env.update(settings)
    command = [sys.executable, "-m", "devtools.devstack", "--api-port", str(ports[0]), "--moto-port", str(ports[1])]
    command += ["--chain-ports", f"{ports[2]},{ports[3]}", "--state-dir", str(state)]
    command += ["--aux-sets", str(aux_sets), "--aux-low-water", str(aux_low_water)]
    log = (state / "devstack.out").open("wb")
    # A session of its own: a terminal's Ctrl-C reaches only this bench, which then stops the stack in order.
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    started: dict[int, bytes] = {}
    try:
        stack_file, deadline = state / "stack.json", time.monotonic() + STACK_UP_S
        progress(f"starting the local stack (state in {state})")
        while not stack_file.exists():
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the local stack did not come up:\n" + (state / "devstack.out").read_text()[-4000:])
            time.sleep(0.5)
        started = _descendants(process.pid)
        progress(f"stack ready ({len(started)} processes under devstack)")
        yield json.loads(stack_file.read_text()), state, lambda: _tree_cpu_s(process.pid)
    finally:
        started.update(_descendants(process.pid))
        _stop(process, started)
        log.close()


def _stop(process: subprocess.Popen[bytes], started: dict[int, bytes]) -> None:
    if process.poll() is None:  # as a developer stops it: Ctrl-C, and devstack stops everything it started
        process.send_signal(signal.SIGINT)
        try:
            process.wait(STACK_DOWN_S)
        except subprocess.TimeoutExpired:
            started.update(_descendants(process.pid))
            process.kill()
            process.wait()
    left = [pid for pid, line in started.items() if _cmdline(pid) == line]
    for pid in left:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    progress(f"stack stopped (exit {process.returncode}; {len(left)} leftover processes killed)")


# The run.


def _interrupted(*_: object) -> None:
    """A `kill` stops the stack as Ctrl-C does."""
    raise KeyboardInterrupt


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--total", type=int, default=100)
    parser.add_argument("--burst", type=int, default=10)
    parser.add_argument("--api-url", help="a running `make dev` (default: start a stack of its own)")
    parser.add_argument("--stack", type=Path, default=ROOT / ".local" / "stack.json", help="its stack.json")
    parser.add_argument(
        "--timers", choices=TIMERS, default="make-dev", help="re-pricing and gap fills after 30 s, or 3 s as in tests"
    )
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, _interrupted)

    if args.api_url:
        info = json.loads(args.stack.read_text())
        return run({**info, "apiUrl": args.api_url.rstrip("/")}, args.total, args.burst, "of that stack", None)
    state: Path | None = None
    code = 1
    try:
        with started_stack(STACK_ENV | TIMERS[args.timers]) as (info, state, stack_cpu):
            code = run(info, args.total, args.burst, args.timers, stack_cpu)
    finally:
        if state is not None and code == 0:
            shutil.rmtree(state, ignore_errors=True)
        elif state is not None:
            progress(f"the stack's logs stay in {state}")
    return code


def run(info: dict[str, Any], total: int, burst: int, timers: str, stack_cpu: Callable[[], float] | None) -> int:
    """The sends, the waits and the checks; prints the results. `stack_cpu`: the CPU seconds of the stack's
    processes so far (a stack of the bench's own), to tell its share of the machine from everything else's."""
    api, secret = info["apiUrl"], info["demo"]["clientSecret"]
    network = info["networks"][0]
    chain = network["rpcUrl"]

    wallet, token = new_wallet(info, "engine-bench")
    progress(f"wallet {wallet} funded on {network['name']}; {total} sends in bursts of {burst}")

    def send(index: int) -> Send:
        outcome = Send(index)
        body = {"network": network["name"], "to": TO, "amount": AMOUNT}
        started = time.perf_counter()
        outcome.answer = retrying(lambda: call("POST", f"{api}/api/v1/wallet/send-coin", secret, body, token), outcome)
        outcome.total_ms = (time.perf_counter() - started) * 1000
        outcome.answered_at = time.time()
        return outcome

    sends: list[Send] = []
    first_request = time.perf_counter()
    cpu_before = (stack_cpu() if stack_cpu else 0.0, _machine_busy_s())
    for start in range(0, total, burst):
        with ThreadPoolExecutor(burst) as pool:
            sends += pool.map(send, range(start, min(start + burst, total)))
        progress(f"{len(sends)} answered, {sum(s.ok for s in sends)} 200s, {sum(s.retries for s in sends)} 503s")
    last_answer_s = time.perf_counter() - first_request

    ok = [s for s in sends if s.ok]
    if not ok:
        print(f"No send answered 200: {[(s.answer.status, s.answer.body) for s in sends if s.answer][:5]}")
        return 1
    problems = [f"send {s.index}: {s.answer.status} {s.answer.body}" for s in sends if s.answer and not s.ok]

    # The chain: every 200 mined (the highest 200's nonce, which is n - 1 when nothing else took one).
    target = max(len(ok), 1 + max(int(s.receipt["nonce"]) for s in ok))
    deadline, mined_nonce = time.monotonic() + MINED_WITHIN_S, 0
    while time.monotonic() < deadline:
        mined_nonce = int(rpc(chain, "eth_getTransactionCount", [wallet, "latest"]), 16)
        if mined_nonce >= target:
            break
        time.sleep(0.05)
    last_mined_s = time.perf_counter() - first_request
    stack_cores = (stack_cpu() - cpu_before[0]) / last_mined_s if stack_cpu else None
    machine_cores = (_machine_busy_s() - cpu_before[1]) / last_mined_s
    progress(f"chain nonce {mined_nonce} after {last_mined_s:.1f} s")

    # The tracker: every record settled (off the sends' path; timed, not verified).
    settled_s: float | None = None
    deadline = time.monotonic() + SETTLED_WITHIN_S
    records: list[dict[str, Any]] = []
    while time.monotonic() < deadline:
        records = transactions(api, secret, token)
        if len(records) >= len(ok) and not any(r["status"] in UNSETTLED for r in records):
            settled_s = time.perf_counter() - first_request
            break
        time.sleep(1)
    statuses = dict(Counter(str(r["status"]) for r in records))
    replaced = sum(1 for r in records if r.get("replacements"))
    gap_fills = sum(1 for r in records if r.get("kind") == "gap_fill")

    facts = verify(api, secret, token, chain, wallet, ok, mined_nonce, records, problems)

    answers = [s.answer.ms for s in ok if s.answer]
    with_retries = [s.total_ms for s in ok]
    refusals = Counter(code for s in sends for code in s.refusals)
    codes = ", ".join(f"{n} `{code}`" for code, n in refusals.most_common())
    highest = max(int(s.receipt["nonce"]) for s in ok)
    print(
        f"\n{total} `send-coin` from one wallet in bursts of {burst} concurrent requests over HTTP, timers "
        f"{timers}. CPU from the first request to the last mined, in cores of the machine's {os.cpu_count()}: the "
        "stack's processes, and the whole machine's (the stack, the bench and whatever else runs).\n"
    )
    stack_share = f"{stack_cores:.2f}" if stack_cores is not None else "?"
    print(
        "| timers | CPU: stack / machine | 200 | 503 retried | answer p50 / p95 s | with retries p50 / p95 s "
        "| first request → last 200 s | → last mined s | gap fills among the nonces | verified |\n"
        "|---|---|---|---|---|---|---|---|---|---|"
    )
    print(
        f"| {timers} | {stack_share} / {machine_cores:.2f} | {len(ok)} | {sum(s.retries for s in sends)}"
        f"{f' ({codes})' if codes else ''} | {statistics.median(answers) / 1000:.1f} / "
        f"{percentile(answers, 0.95) / 1000:.1f} | {statistics.median(with_retries) / 1000:.1f} / "
        f"{percentile(with_retries, 0.95) / 1000:.1f} | {last_answer_s:.1f} | {last_mined_s:.1f} "
        f"| {gap_fills} (nonces 0..{highest}) | {'yes' if not problems else 'no'} |"
    )
    print()
    print(
        f"- {len(ok) / last_mined_s:.2f} payments mined per second; most retries of one send: "
        f"{max(s.retries for s in sends)}."
    )
    for fact in facts:
        print(f"- {fact}")
    settled = f"all settled {settled_s:.1f} s after the first request" if settled_s else "not all settled"
    print(f"- the tracker's records: {len(records)}, {statuses}, {settled}; {replaced} re-priced.")
    if problems:
        print("\nVerification FAILED:")
        for problem in problems:
            print(f"- {problem}")
        return 1
    print("\nVerified: nonces 0..n-1 with no gap or duplicate, all mined in nonce order, nothing left in the pool.")
    return 0


def verify(
    api: str,
    secret: str,
    token: str,
    chain: str,
    wallet: str,
    ok: list[Send],
    mined_nonce: int,
    records: list[dict[str, Any]],
    problems: list[str],
) -> list[str]:
    """Appends to `problems` what breaks the rules; returns the facts seen on the way."""
    nonces = sorted(int(s.receipt["nonce"]) for s in ok)
    # What else of the wallet's took a nonce, to say what stands where a 200 is missing.
    others = {int(r["nonce"]): str(r.get("kind")) for r in records if r["status"] == "mined"}
    others = {n: kind for n, kind in others.items() if n not in set(nonces)}
    if nonces != list(range(len(ok))):
        duplicates = [n for n, c in Counter(nonces).items() if c > 1]
        missing = {n: others.get(n, "nothing") for n in sorted(set(range(len(ok))) - set(nonces))}
        beyond = [n for n in nonces if n >= len(ok)]
        problems.append(
            f"the 200s' nonces are not 0..{len(ok) - 1}: duplicates {duplicates}, missing {missing} "
            f"(nonce: what the wallet's records have mined there), beyond {beyond}"
        )
    if mined_nonce != len(ok):
        problems.append(f"the chain's nonce is {mined_nonce}, with {len(ok)} 200s; also mined: {others}")

    placed: list[tuple[int, int, int]] = []  # (nonce, block, index)
    at_replacement = 0
    stamps: dict[int, int] = {}  # block -> timestamp (anvil: wall-clock seconds)
    waits: list[tuple[float, int]] = []  # (seconds from the 200's answer to its block, nonce)
    for send in sorted(ok, key=lambda s: int(s.receipt["nonce"])):
        nonce, tx_hash = int(send.receipt["nonce"]), str(send.receipt["hash"])
        mined = rpc(chain, "eth_getTransactionReceipt", [tx_hash])
        if mined is None:  # a replacement was mined: the record names it
            record = call("GET", f"{api}/api/v1/wallet/transactions/{tx_hash}", secret, token=token)
            mined_hash = record.body.get("data", {}).get("minedHash")
            mined = rpc(chain, "eth_getTransactionReceipt", [mined_hash]) if mined_hash else None
            at_replacement += 1
        if mined is None:
            problems.append(f"nonce {nonce} ({tx_hash}): no receipt")
            continue
        if int(mined["status"], 16) != 1:
            problems.append(f"nonce {nonce} ({mined['transactionHash']}): receipt status {mined['status']}")
        on_chain = rpc(chain, "eth_getTransactionByHash", [mined["transactionHash"]])
        if int(on_chain["nonce"], 16) != nonce or on_chain["from"].lower() != wallet.lower():
            problems.append(f"nonce {nonce}: mined {on_chain['from']} nonce {int(on_chain['nonce'], 16)}")
        block = int(mined["blockNumber"], 16)
        placed.append((nonce, block, int(mined["transactionIndex"], 16)))
        if block not in stamps:
            stamps[block] = int(rpc(chain, "eth_getBlockByNumber", [hex(block), False])["timestamp"], 16)
        waits.append((max(0.0, stamps[block] - send.answered_at), nonce))  # whole seconds
    order = [(block, index) for _, block, index in placed]
    if order != sorted(order) or len(set(order)) != len(order):
        problems.append("not mined in nonce order: " + ", ".join(f"{n}@{b}.{i}" for n, b, i in placed))

    pool = rpc(chain, "txpool_content", [])
    waiting = [
        f"{kind} {nonce}"
        for kind in ("pending", "queued")
        for sender, txs in pool.get(kind, {}).items()
        if sender.lower() == wallet.lower()
        for nonce in txs
    ]
    if waiting:
        problems.append(f"the wallet's transactions still in the node's pool: {waiting}")

    per_block = Counter(block for _, block, _ in placed)
    slowest = max(waits, default=(0.0, -1))
    median_wait = statistics.median([w for w, _ in waits] or [0.0])
    blocks = f"{min(per_block)}..{max(per_block)}" if per_block else "-"
    span = f"{nonces[0]}..{nonces[-1]}" if nonces else "-"
    return [
        f"nonces of the 200s: {span} ({len(set(nonces))} distinct); the chain's nonce: {mined_nonce}.",
        f"receipts: {len(placed)} found, {len(placed) - at_replacement} at the 200's own hash, {at_replacement} at "
        f"a replacement's; in {len(per_block)} blocks ({blocks}, at most {max(per_block.values(), default=0)} a "
        "block).",
        f"from a 200's answer to its block (anvil mines on arrival; a wait is a nonce below it not yet on chain): "
        f"p50 {median_wait:.0f} s, longest {slowest[0]:.0f} s (nonce {slowest[1]}); "
        f"{sum(1 for w, _ in waits if w >= 2)} of {len(waits)} waited 2 s or more.",
        f"the node's pool after: {len(waiting)} of the wallet's transactions.",
    ]


def transactions(api: str, secret: str, token: str) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = []
    for page in range(1, 100):
        answer = call("GET", f"{api}/api/v1/wallet/transactions?page={page}&limit=100", secret, token=token)
        listed = answer.body.get("data", {})  # the envelope's data: {data, pagination}
        records += listed.get("data", [])
        if not listed.get("pagination", {}).get("hasNext"):
            break
    return records


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
