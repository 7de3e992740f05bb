"""Custody withdrawals on anvil: accepted -> broadcast latency, settling, and withdrawals per minute from one key.

    .venv/bin/python bench/withdrawal_bench.py [--accounts 5] [--runs 30] [--batch 50] [--pool stocked|empty]
                                               [--profile]

Issue 14, item 9. What a withdrawal costs from `POST /api/v1/custody/withdrawals` to its transaction on the node,
and how many withdrawals one custody key (one hot wallet: one nonce sequence) gets out per minute.

Setup (not timed). One anvil (31337) with the test tokens and the v0.7 SimpleAccountFactory; moto in process
with every resource bootstrapped; the MPC parties in process (`DOMPET_PARTY_TRANSPORT=in_process`: the cosigner
runs in a thread of this process and talks to party 0 over the DynamoDB mailbox, as on AWS); one tenant; the
networks registry accepts `eth` and `usdt` on `local-a` with `confirmations` 1. `--accounts` custody accounts are
made through `POST /api/v1/custody/accounts` (the first one runs the pool key's generation: all accounts of the
app share that one custody key, so every withdrawal below is sent by the same key, from the same nonce sequence).
Each deposit address gets USDT and ETH by real transfers, recorded and credited by the real watcher
(`watcher.step`, one block mined, `watcher.step`); the key's own address, which pays the gas of every withdrawal
(the spending address is the account's deposit address, a SimpleAccount the key owns: sending.py), gets ETH with
`anvil_setBalance`.

Each withdrawal is one `POST /api/v1/custody/withdrawals` through `chalice.test.Client` with signed Family S
headers (USDT and native ETH alternately, accounts in turn, a fresh recipient each), then the worker
`sending.process(withdrawalId)` called directly (the SQS delivery is not part of the figures: on AWS add the
`custody-withdrawals` event source's polling, typically well under a second), then the tracker step
`tracking.check(txHash)` (receipt -> `mined`), then `sending.process` again: the settle step (1 confirmation:
debit, `withdraw.success`).

Phases:

1. latency (`--runs` withdrawals, one at a time, anvil automining: the broadcast transaction is mined at once).
   accepted -> broadcast is from the API's answer to the return of the worker's `process`, which returns once
   `eth_sendRawTransaction` was accepted; the transaction is then checked to be on the node. The first
   withdrawal of each account also deploys its deposit address (the factory's `createAccount`, sent by the same
   key just before): two full signing runs instead of one, shown on their own row;
2. throughput (`--batch` withdrawals, all accepted first, then the worker sends them back to back with automining
   off, so every transaction is still pending in the node's pool while the next is built: the nonce pipeline
   hands out consecutive nonces from its own lease table, not from the chain). Then one block is mined (all must
   be in it and succeed) and each is settled. withdrawals/min = batch / the wall time of the back-to-back sends.

Every withdrawal is signed by the custody key. With `--pool stocked` (the default) the key's presignature pool is
filled before each phase with one presignature per signature the phase makes (not timed: on AWS the refill function
keeps it stocked, following the key's demand), so each signature is the online step: share A consumed, the cosigner's
custody check (`policy.check`: the same check as on the full path) and its partial signature, combine, verify. With
`--pool empty` every signature is the full two-party protocol (about 1 s of CPU per party; this machine runs both
parties). `chalicelib.mpc.service.sign` is timed, so each latency row is also shown without signing; the cosigner's
policy check is timed too, and so is the process's CPU time during each signing run (both parties' threads, which
compute in parallel in a full run): it hardly changes when other work shares the machine, while the wall time of a
full run is about that CPU time divided by the CPUs left free for it (the load average is printed with the results).

In this process MPC runs queue on one slot (`mpc.service._RUN_SLOTS`: cpu_count // 2), so one process signs one
withdrawal at a time: withdrawals/min is one worker's. On AWS each worker invocation (SQS batch size 1) and its
cosigner invocation are Lambdas of their own and several workers can send from one key at once: only the nonce
lease and the record touch the key's one nonce item. With W workers in parallel expect about W times the figure
here; `withdrawals/min without signing` is what one worker would reach if signing cost nothing.

How to read the tables: `p50`/`p95` are over the runs (nearest rank). The send breakdown splits the worker's
`process` by the functions it calls (each wrapped and timed): `chain reads` are the worker's own balance and code
reads of the deposit address, `nonce lease` its one nonce per withdrawal (`_allocation`: pending nonce + lease
write), `fee quote` the pipeline's one batch of node reads, `record` the one DynamoDB transaction that records the
signed transaction with the withdrawal's move to `sent`, `claim` the record's move to `pending`, `broadcast`
`eth_sendRawTransaction` and the node's gas price; `rest` is everything else (the withdrawal's claim by the worker,
reads, encoding, the re-queue). AWS calls are counted with botocore's `before-parameter-build` hook (the cosigner's
own calls included: it shares the process); moto answers in about a millisecond, so calls per withdrawal times a
real DynamoDB latency (5-10 ms, made one after another) estimates the extra time on AWS. JSON-RPC calls are counted
by wrapping `transport.post_json` (a batch of n calls is one round trip). moto keeps no messages on the queues the
bench drives itself (`custody-withdrawals`, `tx-tracker`, `webhook-deliveries`): its SendMessage walks every
message of a queue, SQS's does not; the SendMessage calls are still counted.

At the end the bench checks, and fails loudly otherwise: every withdrawal `success`; every recipient's balance on
chain equals what was withdrawn to it; each deposit address holds what was deposited minus what was withdrawn;
each account's ledger has that as `activeBalance` and nothing held; the key's nonce equals the signatures made
(one transaction per signature, none twice); one `withdraw.success` event per withdrawal.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
import urllib.request
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import local_env
from instrument import DYNAMODB_WRITES, Calls, Timers, percentile, progress

ROOT = local_env.ROOT
local_env.use(DOMPET_PARTY_TRANSPORT="in_process")

CHAIN_ID = 31337
NETWORK = "local-a"
USDT_FUNDING = 1_000 * 10**6  # per account
ETH_FUNDING = 10**18  # per account
GAS_WALLET_WEI = 1_000 * 10**18
PARTS = ("chain reads", "nonce lease", "fee quote", "MPC signing", "record", "claim", "broadcast")
SIGNING_CPU = "MPC signing CPU"
DROPPED_QUEUES = ("custody-withdrawals", "tx-tracker", "webhook-deliveries")


class BenchFailedError(RuntimeError):
    """A check of the benchmark failed: its figures mean nothing."""


def check(condition: bool, message: str) -> None:
    if not condition:
        raise BenchFailedError(message)


# --- timing and counting -----------------------------------------------------------------------------------


@dataclass
class Sample:
    seconds: float
    parts: dict[str, float]  # PARTS and "policy" -> seconds within this call
    signatures: int


@dataclass
class Group:
    """One row family: the samples of one stage (e.g. the worker's send of a first withdrawal)."""

    samples: list[Sample] = field(default_factory=list)
    aws: Counter[str] = field(default_factory=Counter)  # "GetItem(custody)" / "sqs SendMessage" -> calls
    rpc: Counter[str] = field(default_factory=Counter)  # JSON-RPC method -> calls
    round_trips: int = 0

    def values(self, fn: Callable[[Sample], float]) -> list[float]:
        return [fn(s) * 1000 for s in self.samples]


class Meter:
    """The calls and parts of the group being measured; nothing is counted outside a measure."""

    def __init__(self) -> None:
        self.calls = Calls()
        self.calls.paused = True
        self.timers = Timers()
        self.signatures = 0

    def signed(self, _result: object) -> None:
        self.signatures += 1

    @contextmanager
    def measure(self, group: Group) -> Iterator[None]:
        self.calls.reset()
        self.timers.clear()
        self.signatures, self.calls.paused = 0, False
        started = time.perf_counter()
        try:
            yield
        finally:
            seconds = time.perf_counter() - started
            self.calls.paused = True
            group.aws.update(self.calls.aws)
            group.rpc.update(self.calls.rpc)
            group.round_trips += self.calls.all_round_trips()
        group.samples.append(Sample(seconds, dict(self.timers.seconds), self.signatures))


meter = Meter()
groups: dict[str, Group] = defaultdict(Group)


# --- the chain ---------------------------------------------------------------------------------------------


class Node:
    """The benchmark's own JSON-RPC to anvil (plain urllib: not counted as the service's calls)."""

    def __init__(self, url: str) -> None:
        self.url = url

    def call(self, method: str, params: list[Any] | None = None) -> Any:
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params or []}).encode()
        request = urllib.request.Request(self.url, data=body, headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as response:
            answer = json.loads(response.read())
        if "error" in answer:
            raise BenchFailedError(f"{method}: {answer['error']}")
        return answer["result"]

    def wait(self, tx_hash: str) -> dict[str, Any]:
        for _ in range(200):
            receipt = self.call("eth_getTransactionReceipt", [tx_hash])
            if receipt is not None:
                check(receipt["status"] == "0x1", f"{tx_hash} reverted")
                return dict(receipt)
            time.sleep(0.05)
        raise BenchFailedError(f"{tx_hash} not mined")

    def send(self, sender: str, to: str, value: int = 0, data: str = "0x") -> str:
        tx = {"from": sender, "to": to, "value": hex(value), "data": data}
        return str(self.call("eth_sendTransaction", [tx]))

    def token_balance(self, token: str, address: str) -> int:
        return int(self.call("eth_call", [{"to": token, "data": "0x70a08231" + _word(address)}, "latest"]), 16)

    def eth_balance(self, address: str) -> int:
        return int(self.call("eth_getBalance", [address, "latest"]), 16)


def _word(value: str | int) -> str:
    return (value[2:].lower() if isinstance(value, str) else f"{value:x}").rjust(64, "0")


# --- the API -----------------------------------------------------------------------------------------------


class Api:
    """Family S calls through chalice.test.Client (as tests/unit/test_smart_accounts.py `call`)."""

    def __init__(self, http: Any, app_id: str, app_secret: str) -> None:
        self.http, self.app_id, self.app_secret = http, app_id, app_secret

    def __call__(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        from scripts.dompet_sign import signed_headers

        raw = json.dumps(body).encode() if body is not None else b""
        timestamp = datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")
        headers = signed_headers(self.app_id, self.app_secret, method, f"http://x{path}", raw, timestamp=timestamp)
        if body is not None:
            headers["Content-Type"] = "application/json"
        answer = getattr(self.http, method.lower())(path, headers=headers, **({"body": raw} if body else {}))
        check(answer.status_code == 200, f"{method} {path}: {answer.status_code} {answer.json_body}")
        return answer.json_body["data"]


@dataclass
class Withdrawal:
    id: str
    account: int
    token: str  # "usdt" | "eth"
    base: int
    to: str
    first: bool  # the account's first withdrawal: its deposit address is deployed by the worker
    tx_hash: str = ""
    nonce: int = -1


# --- main --------------------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--accounts", type=int, default=5, help="custody accounts (one pool key for all)")
    parser.add_argument("--runs", type=int, default=30, help="latency phase: withdrawals one at a time")
    parser.add_argument("--batch", type=int, default=50, help="throughput phase: withdrawals sent back to back")
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--profile", action="store_true", help="cProfile the throughput sends; top to stderr")
    parser.add_argument(
        "--pool", choices=("stocked", "empty"), default="stocked", help="presignatures made first, or none"
    )
    args = parser.parse_args()
    if args.pool == "empty":
        os.environ["DOMPET_PRESIGN_POOL_CEILING"] = "0"  # every signature a full run, as before presignatures
    if args.runs <= args.accounts or args.batch < 1:
        parser.error("--runs must exceed --accounts (each account's first withdrawal deploys its address)")
    import cProfile
    import pstats

    profiler = cProfile.Profile()
    started_all, cpu_all, load_before = time.perf_counter(), time.process_time(), os.getloadavg()[0]
    rng = random.Random(args.seed)

    from eth_account import Account
    from moto import mock_aws

    from devtools import aa, aux_cache, bootstrap, chain, moto_patches

    moto_patches.in_process_requests_are_serialised()
    with ExitStack() as stack:
        chain.compile_contracts()
        log = Path(tempfile.mkdtemp(prefix="withdrawal-bench-")) / "anvil.log"
        anvil = stack.enter_context(chain.start_anvil(chain.free_port(), CHAIN_ID, log))
        progress(f"anvil at {anvil.rpc_url}, log {log}")
        tokens = chain.deploy_test_contracts(anvil.rpc_url)
        core = aa.deploy_core(anvil.rpc_url)
        node = Node(anvil.rpc_url)
        stack.enter_context(mock_aws())

        from chalicelib.platform import aws, networks, settings, transport

        meter.calls.count_aws(aws._session())  # before any client is made
        meter.calls.count_rpc(transport)
        usdt = tokens["usdt"]
        entry = {
            "name": NETWORK,
            "chainId": CHAIN_ID,
            "rpcUrls": [anvil.rpc_url],
            "nativeSymbol": "ETH",
            "nativeDecimals": 18,
            "confirmations": 1,
            "tokens": tokens,
            "entryPoint": core["entryPoint"],
            "accountFactory": core["accountFactory"],
            "paymaster": aa.pool_address(anvil.rpc_url),  # never used here; the registry wants all AA fields
            "bundlerUrls": ["http://127.0.0.1:9"],
            "poolAddress": aa.pool_address(anvil.rpc_url),
            "usdtDecimals": 6,
            "nativeToGasTankRate": "2000",
            "custodyStartBlock": int(node.call("eth_blockNumber"), 16) + 1,
            "custodyTokens": [
                {"tokenCode": "eth", "symbol": "ETH", "decimals": 18, "tokenAddress": ""},
                {"tokenCode": "usdt", "symbol": "USDT", "decimals": 6, "tokenAddress": usdt},
            ],
        }
        local_env.use_networks("withdrawal", [entry])
        settings.load_settings.cache_clear()
        networks.registry.cache_clear()

        bootstrap.create_resources("bench", "us-east-1")
        bootstrap.initialise()
        aux_cache.fill_pool(1)
        local_env.moto_queues_keep_nothing({aws.queue(q) for q in DROPPED_QUEUES})

        from chalice.test import Client

        from app import app
        from chalicelib.custody import ledger
        from chalicelib.custody.deposits import watcher
        from chalicelib.custody.store import get
        from chalicelib.custody.withdrawals import lifecycle as withdrawals
        from chalicelib.custody.withdrawals import sending
        from chalicelib.evm import fees, pipeline, tracking
        from chalicelib.mpc import cosigner_checks as signing_policies
        from chalicelib.mpc import service as mpc_service
        from chalicelib.tenancy import service as tenancy

        meter.timers.wrap(mpc_service, "sign", "MPC signing", after=meter.signed, cpu_part=SIGNING_CPU)
        meter.timers.wrap(signing_policies, "authorize", "policy")  # the cosigner's check, on either path
        meter.timers.wrap(sending, "_holds", "chain reads")
        meter.timers.wrap(sending.NodeReader, "code", "chain reads")
        meter.timers.wrap(sending, "_allocation", "nonce lease")
        meter.timers.wrap(fees, "quote", "fee quote")
        meter.timers.wrap(tracking, "record", "record")
        meter.timers.wrap(tracking, "claim", "claim")
        meter.timers.wrap(pipeline, "_broadcast", "broadcast")
        network = networks.registry().by_name(NETWORK)
        assert network is not None

        credentials = tenancy.create_tenant("Withdrawal bench")
        assert credentials.appId is not None and credentials.appSecret is not None
        client = stack.enter_context(Client(app))
        api = Api(client.http, credentials.appId, credentials.appSecret)

        # Accounts (the first makes the pool key), funded by real transfers recorded by the watcher.
        keygen_started = time.perf_counter()
        accounts = [api("POST", "/api/v1/custody/accounts", {"subId": "bench-0"})]
        keygen_s = time.perf_counter() - keygen_started
        accounts += [api("POST", "/api/v1/custody/accounts", {"subId": f"bench-{i}"}) for i in range(1, args.accounts)]
        owners = {get(f"ACCOUNT#{a['id']}", "ACCOUNT")["ownerAddress"] for a in accounts}
        check(len(owners) == 1, f"the accounts have {len(owners)} custody keys, expected one pool key")
        [key_address] = owners
        [key_item] = [i for i in aws.table("custody").scan()["Items"] if str(i["pk"]).startswith("KEY#")]
        key_id = str(key_item["keyId"])

        def stock(signatures: int) -> None:
            """Presignatures for the phase's signatures, made before it (not timed): a stocked pool."""
            started = time.perf_counter()
            made = mpc_service.refill_presignatures(key_id, lambda: 1e9, 0.0, target=signatures)
            presigning.append((time.perf_counter() - started) / max(made, 1))
            progress(f"{made} presignatures made, {presigning[-1] * 1000:.0f} ms each")

        presigning: list[float] = []
        deposit = [str(a["wallets"][0]["address"]) for a in accounts]
        funding_started = time.perf_counter()
        anvil_accounts = node.call("eth_accounts")
        minter, payer = anvil_accounts[2], anvil_accounts[7]
        mint = "0x40c10f19" + _word(minter) + _word(USDT_FUNDING * len(accounts))  # mint(address,uint256)
        node.wait(node.send(minter, usdt, data=mint))
        for address in deposit:
            node.wait(node.send(minter, usdt, data="0xa9059cbb" + _word(address) + _word(USDT_FUNDING)))
            node.wait(node.send(payer, address, value=ETH_FUNDING))
        check(watcher.step(network) is not None, "watcher lease held")
        node.call("anvil_mine", ["0x1"])
        check(watcher.step(network) is not None, "watcher lease held")
        for account in accounts:
            held = {b["tokenCode"]: int(b["active"]) for b in ledger.balances(account["id"])}
            check(held == {"usdt": USDT_FUNDING, "eth": ETH_FUNDING}, f"not credited by the watcher: {held}")
        node.call("anvil_setBalance", [key_address, hex(GAS_WALLET_WEI)])
        funding_s = time.perf_counter() - funding_started
        progress(f"{len(accounts)} accounts funded and credited; key {key_address}; keygen {keygen_s:.1f} s")

        made: list[Withdrawal] = []
        deployed: set[int] = set()

        def request(i: int) -> Withdrawal:
            account = i % len(accounts)
            token = "usdt" if i % 2 == 0 else "eth"
            base = rng.randint(10_000, 5_000_000) if token == "usdt" else rng.randint(10**15, 10**16)
            amount = f"{Decimal(base).scaleb(-6 if token == 'usdt' else -18):f}"
            to = Account.create().address
            body = {"accountId": accounts[account]["id"], "network": NETWORK, "tokenCode": token, "to": to}
            with meter.measure(groups["api"]):
                answer = api("POST", "/api/v1/custody/withdrawals", {**body, "amount": amount})
            check(answer["status"] == "pending" and answer["amountInDecimals"] == str(base), f"accepted: {answer}")
            first = account not in deployed
            deployed.add(account)
            made.append(Withdrawal(answer["id"], account, token, base, to, first))
            return made[-1]

        def sent(w: Withdrawal) -> None:
            record = get(**withdrawals.key(w.id))
            check(record["status"] == "sent", f"{w.id} is {record['status']} after the send: {record}")
            w.tx_hash, w.nonce = str(record["txHash"]), int(record["nonce"])

        def settle(w: Withdrawal) -> None:
            with meter.measure(groups["tracker check"]):
                tracking.check(w.tx_hash)
            with meter.measure(groups["settle"]):
                sending.process(w.id)
            record = get(**withdrawals.key(w.id))
            check(record["status"] == "success", f"{w.id} is {record['status']} after settling: {record}")

        # Phase 1: latency, one withdrawal at a time (automining).
        accepted_to_broadcast: dict[str, list[float]] = {"first": [], "deployed": []}
        if args.pool == "stocked":
            stock(args.runs + len(accounts))  # each account's first withdrawal also signs its deployment
        for i in range(args.runs):
            w = request(i)
            answered = time.perf_counter()
            kind = "first" if w.first else "deployed"
            with meter.measure(groups[f"send {kind}"]):
                sending.process(w.id)
            accepted_to_broadcast[kind].append((time.perf_counter() - answered) * 1000)
            sent(w)
            check(node.call("eth_getTransactionByHash", [w.tx_hash]) is not None, f"{w.tx_hash} not on the node")
            node.wait(w.tx_hash)
            settle(w)
        progress(f"latency: {args.runs} withdrawals done")

        # Phase 2: throughput, back to back from one key (automining off: all pending at once).
        batch = [request(args.runs + i) for i in range(args.batch)]
        if args.pool == "stocked":
            stock(args.batch)
        node.call("evm_setAutomine", [False])
        if args.profile:
            profiler.enable()
        batch_started = time.perf_counter()
        for w in batch:
            with meter.measure(groups["send batch"]):
                sending.process(w.id)
        batch_s = time.perf_counter() - batch_started
        profiler.disable()
        for w in batch:
            sent(w)
            seen = node.call("eth_getTransactionByHash", [w.tx_hash])
            check(seen is not None and seen["blockNumber"] is None, f"{w.tx_hash} not pending on the node: {seen}")
        nonces = sorted(w.nonce for w in batch)
        check(nonces == list(range(nonces[0], nonces[0] + len(batch))), f"nonces not consecutive: {nonces}")
        node.call("evm_mine")
        node.call("evm_setAutomine", [True])
        block = node.call("eth_getBlockByNumber", ["latest", False])
        check(len(block["transactions"]) == len(batch), f"the block holds {len(block['transactions'])} transactions")
        for w in batch:
            node.wait(w.tx_hash)
            settle(w)
        progress(f"throughput: {args.batch} withdrawals in {batch_s:.1f} s")

        # Checks: on chain, in the ledger, the nonce, the events.
        signatures = sum(s.signatures for g in groups.values() for s in g.samples)
        withdrawn: dict[tuple[int, str], int] = Counter()
        for w in made:
            paid = node.token_balance(usdt, w.to) if w.token == "usdt" else node.eth_balance(w.to)
            check(paid == w.base, f"recipient {w.to} holds {paid}, withdrawn {w.base} {w.token}")
            withdrawn[(w.account, w.token)] += w.base
        for i, account in enumerate(accounts):
            left = {"usdt": USDT_FUNDING - withdrawn[(i, "usdt")], "eth": ETH_FUNDING - withdrawn[(i, "eth")]}
            on_chain = {"usdt": node.token_balance(usdt, deposit[i]), "eth": node.eth_balance(deposit[i])}
            check(on_chain == left, f"deposit address {deposit[i]} holds {on_chain}, expected {left}")
            books = {b["tokenCode"]: (int(b["active"]), int(b["held"])) for b in ledger.balances(account["id"])}
            check(books == {t: (v, 0) for t, v in left.items()}, f"ledger of {account['id']}: {books}, {left}")
        key_nonce = int(node.call("eth_getTransactionCount", [key_address, "latest"]), 16)
        check(key_nonce == signatures, f"the key sent {key_nonce} transactions for {signatures} signatures")
        events = [i for i in aws.table("webhooks").scan()["Items"] if i.get("type") == "withdraw.success"]
        check(len(events) == len(made), f"{len(events)} withdraw.success events for {len(made)} withdrawals")
        deploys = signatures - len(made)

    total_s = time.perf_counter() - started_all
    machine = (load_before, os.getloadavg()[0], (time.process_time() - cpu_all) / total_s)
    if args.profile:
        pstats.Stats(profiler, stream=sys.stderr).sort_stats("cumulative").print_stats(r"chalicelib", 40)
    report(args, made, accepted_to_broadcast, batch_s, keygen_s, funding_s, deploys, total_s, machine, presigning)


# --- output ------------------------------------------------------------------------------------------------


def row(label: str, values: list[float]) -> str:
    return (
        f"| {label} | {len(values)} | {statistics.median(values):.0f} | {percentile(values, 0.95):.0f} "
        f"| {max(values):.0f} |"
    )


def signing(s: Sample) -> float:
    return s.parts.get("MPC signing", 0.0)


def report(
    args: argparse.Namespace,
    made: list[Withdrawal],
    accepted_to_broadcast: dict[str, list[float]],
    batch_s: float,
    keygen_s: float,
    funding_s: float,
    deploys: int,
    total_s: float,
    machine: tuple[float, float, float],
    presigning: list[float],
) -> None:
    g = groups
    how = (
        "each from a stocked presignature pool (the online step; the presignatures made before each phase, not timed)"
        if args.pool == "stocked"
        else "all with the full two-party protocol (`--pool empty`)"
    )
    usdt = sum(1 for w in made if w.token == "usdt")
    print(f"\nCustody withdrawals on anvil ({NETWORK}, chain {CHAIN_ID}), moto and both MPC parties in process.\n")
    print(
        f"Setup: {args.accounts} custody accounts of one app (one pool key: pool key generation {keygen_s:.1f} s), "
        f"each funded with 1 000 USDT and 1 ETH by real transfers credited by the watcher ({funding_s:.1f} s); "
        f"confirmations 1. {len(made)} withdrawals ({usdt} USDT, {len(made) - usdt} ETH), {deploys} deposit "
        f"address deployments, signed {how}. Machine: {os.cpu_count()} CPUs, "
        f"load average {machine[0]:.1f} at the start and {machine[1]:.1f} at the end (other work on the machine "
        f"slows the signing runs down), this process used {machine[2]:.2f} CPUs on average.\n"
    )
    signatures = [signing(s) * 1000 / s.signatures for k in g for s in g[k].samples if s.signatures]
    cpu = [s.parts.get(SIGNING_CPU, 0.0) * 1000 / s.signatures for k in g for s in g[k].samples if s.signatures]
    first, rest = g["send first"], g["send deployed"]
    print("Latency, one withdrawal at a time (phase 1; anvil mines each transaction as it arrives):\n")
    print("| measured | runs | p50 ms | p95 ms | max ms |\n|---|---|---|---|---|")
    lines = [
        row(
            "`POST /api/v1/custody/withdrawals` (request -> answer: hold, record, event, queue)",
            g["api"].values(lambda s: s.seconds),
        ),
    ]
    if rest.samples:
        rest_signing = [signing(s) * 1000 for s in rest.samples]
        lines += [
            row("accepted -> broadcast (worker `process`: one signature)", accepted_to_broadcast["deployed"]),
            row(
                "accepted -> broadcast without MPC signing",
                [t - m for t, m in zip(accepted_to_broadcast["deployed"], rest_signing, strict=True)],
            ),
        ]
    if first.samples:
        first_signing = [signing(s) * 1000 for s in first.samples]
        lines += [
            row(
                "accepted -> broadcast, an account's first withdrawal (deploys its address: two signatures)",
                accepted_to_broadcast["first"],
            ),
            row(
                "the same without MPC signing",
                [t - m for t, m in zip(accepted_to_broadcast["first"], first_signing, strict=True)],
            ),
        ]
    policy = [s.parts.get("policy", 0.0) * 1000 for k in g for s in g[k].samples if s.signatures]
    lines += [
        row(f"MPC signing, per signature (custody key, {args.pool} pool; all sends of both phases)", signatures),
        row("MPC signing, CPU time of both parties per signature", cpu),
        row("of which the cosigner's policy check (per send)", policy),
        row("tracker check (`tracking.check`: receipt -> mined)", g["tracker check"].values(lambda s: s.seconds)),
        row(
            "settle (`process` once mined with 1 confirmation: debit, `withdraw.success`)",
            g["settle"].values(lambda s: s.seconds),
        ),
    ]
    print("\n".join(lines))
    if presigning:
        print(
            f"\nPresignature generation before the phases (refill, both parties in process): "
            f"{statistics.mean(presigning) * 1000:.0f} ms wall per presignature."
        )

    batch = g["send batch"]
    per_send = batch.values(lambda s: s.seconds)
    batch_signing = sum(signing(s) for s in batch.samples)
    print(f"\nThroughput, one custody key (phase 2: {len(batch.samples)} withdrawals accepted, then sent back to back,")
    print("each still pending on the node while the next is built; then mined in one block and settled):\n")
    print(
        "| withdrawals | wall s | per send p50 ms | per send p95 ms | withdrawals/min | signing s "
        "| withdrawals/min without signing |\n|---|---|---|---|---|---|---|"
    )
    print(
        f"| {len(batch.samples)} | {batch_s:.1f} | {statistics.median(per_send):.0f} | "
        f"{percentile(per_send, 0.95):.0f} | {len(batch.samples) * 60 / batch_s:.1f} | {batch_signing:.1f} | "
        f"{len(batch.samples) * 60 / (batch_s - batch_signing):.0f} |"
    )

    print("\nWhere the worker's send goes (p50 ms per send; see the docstring for the parts):\n")
    sends = [("first withdrawal (deploy + pay)", first), ("deployed, one at a time", rest), ("batch", batch)]
    sends = [(label, grp) for label, grp in sends if grp.samples]
    print("| part | " + " | ".join(label for label, _ in sends) + " |\n|---" + "|---" * len(sends) + "|")
    for part in (*PARTS, "rest", "total"):
        cells = []
        for _, grp in sends:
            if part == "total":
                values = grp.values(lambda s: s.seconds)
            elif part == "rest":
                values = grp.values(lambda s: s.seconds - sum(s.parts.get(p, 0.0) for p in PARTS))
            else:
                values = grp.values(lambda s, p=part: s.parts.get(p, 0.0))  # type: ignore[misc]
            cells.append(f"{statistics.median(values):.1f}")
        print(f"| {part} | " + " | ".join(cells) + " |")

    print("\nCalls per withdrawal (the cosigner's included):\n")
    print(
        "| stage | DynamoDB reads | DynamoDB writes | of which transactions | SQS | KMS | other AWS | JSON-RPC calls "
        "| RPC round trips |\n|---|---|---|---|---|---|---|---|---|"
    )
    stages = [
        ("API request", "api"),
        ("send, first withdrawal (deploy + pay)", "send first"),
        ("send, deployed", "send deployed"),
        ("send, batch", "send batch"),
        ("tracker check", "tracker check"),
        ("settle", "settle"),
    ]
    details = []
    for label, name in stages:
        grp = g[name]
        n = len(grp.samples)
        if not n:
            continue
        dynamodb = {op: c for op, c in grp.aws.items() if "(" in op}
        writes = sum(c for op, c in dynamodb.items() if op.split("(")[0] in DYNAMODB_WRITES)
        transactions = sum(c for op, c in dynamodb.items() if op.startswith("TransactWriteItems"))
        sqs = sum(c for op, c in grp.aws.items() if op.startswith("sqs "))
        kms = sum(c for op, c in grp.aws.items() if op.startswith("kms "))
        other = sum(grp.aws.values()) - sum(dynamodb.values()) - sqs - kms
        print(
            f"| {label} | {(sum(dynamodb.values()) - writes) / n:.1f} | {writes / n:.1f} | {transactions / n:.1f} "
            f"| {sqs / n:.1f} | {kms / n:.1f} | {other / n:.1f} | {sum(grp.rpc.values()) / n:.1f} "
            f"| {grp.round_trips / n:.1f} |"
        )
        ops = "; ".join(f"{op} {c / n:.3g}" for op, c in sorted(grp.aws.items()))
        rpc = ", ".join(f"{m} {c / n:.3g}" for m, c in sorted(grp.rpc.items())) or "none"
        details.append(f"- {label}: {ops}; JSON-RPC {rpc}")
    print("\nBy operation (per withdrawal):\n")
    print("\n".join(details))
    print(
        f"\nChecked: all {len(made)} withdrawals `success`; every recipient's balance on chain equals its withdrawal; "
        "deposit addresses and ledgers hold deposits minus withdrawals, nothing held; the key's nonce equals the "
        f"signatures made; one `withdraw.success` each. Whole benchmark: {total_s:.0f} s."
    )


if __name__ == "__main__":
    main()
