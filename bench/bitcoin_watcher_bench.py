"""The custody deposit watcher on a Bitcoin network (btcd regtest): node calls per block and per deposit, and
DynamoDB calls per deposit, with many deposit addresses.

    .venv/bin/python bench/bitcoin_watcher_bench.py [--addresses 1000,10000] [--deposits 200] [--blocks 4]

The EVM watcher's bench (custody_bench.py) measures the same on anvil; this one reuses its counting, its step
record and its moto patch. Goal: a scan costs in proportion to the blocks and the outputs it reads, never to the
number of deposit addresses.

Setup (not timed). One btcd in regtest, mined past SegWit's activation (height 432: the coinbases of the first
~330 blocks are mature, 50 BTC each, and pay the deposits); moto in process with every resource bootstrapped; one
tenant whose app has a webhook URL (each event also gets its delivery record and SQS message, as in production).
The registry holds one network, the Bitcoin network `bitcoin-regtest` (chain id 18443, the coin `btc`, the
watcher starting at the next block).

Deposit addresses: ONE real account is made by `accounts.create` (it makes the pool's EVM and Bitcoin keys, MPC
key generation in process from cached aux-info sets); the others are written directly into the `custody` table
with batch writes: a copy of the real ACCOUNT item with a new id, subId and wallets (the native SegWit and the
legacy address of a random compressed key of its own, `deposit_address`), and the two `ADDR#18443#<address>`
index items, which is all the watcher reads of an account. Making 10 000 accounts through
the API would cost a transaction each and measure nothing of the watcher.

Deposits: `--deposits` outputs per phase, each to a different account that had no deposit before (alternately
its native SegWit and its legacy address), paid by transactions of `--outputs-per-tx` outputs (`Btcd.pay`, change
back to the miner) and mined into `--blocks` blocks (`generate`). Every block also holds its coinbase, and every
payment its change: both are outputs the watcher reads and looks up, and neither is a deposit.

Phases (one network; `network.confirmations` is `--confirmations`, so nothing is due before phase 3):

1. empty blocks: `--empty-blocks` blocks with only their coinbase, scanned until caught up (`custodyScanBlocks`
   = `--scan-blocks` per step): the cost of following the chain when nothing happens;
2. deposits: for each count in `--addresses` (ascending; addresses are added between phases) the deposits are
   mined, then watcher steps run until the cursor has passed them. Both phases' deposits have the same shape
   (amounts, address types, layout in transactions and blocks, fresh recipients among the addresses just added),
   so the rows differ only by the registered addresses (and by the first phase's deposits, still pending, in the
   watch list every step reads);
3. confirmation: `--confirmations` blocks are mined, so every deposit of the run is due at once, and one step is
   run. That step also scans `--scan-blocks` of the new blocks; its confirmation part (the re-check of the
   deposits due: the watch list, the deposits and accounts, one batch of block hashes, a credit each) is counted
   on its own.

How to read the tables: a JSON-RPC call is one method call (a batch of n calls counts n), a round trip one HTTP
request to the node (`transport.post_json`); per block divides by the blocks scanned, per deposit by the deposits
recorded (phase 2) or credited (phase 3). DynamoDB calls are counted with botocore's hooks (reads: GetItem,
BatchGetItem, Query; writes: TransactWriteItems, PutItem, UpdateItem, DeleteItem); other AWS is SQS (the webhook
deliveries' queue). moto answers in process in a millisecond or a few: the calls per deposit times a real
DynamoDB latency estimate the time on AWS better than the seconds measured here. The moto patches are those of
custody_bench.py (a Query reads its partition only; the webhook-deliveries queue keeps no messages).
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import random
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import local_env

# custody_bench's import also sets this process's environment (local_env.use, the MPC parties in process).
from custody_bench import Phase, calls, calls_per_phase, moto_queries_read_one_partition, rate, run_step, timers
from instrument import DYNAMODB_WRITES, progress

CHAIN_ID = 18443
NETWORK = "bitcoin-regtest"
ADDRESS_TYPES = ("native-segwit", "legacy")
BENCH_NAMESPACE = uuid.UUID("0b6d1e0c-5a0f-4f3e-9e0a-2c1d3b4a5f61")


# --- the confirmation part of a step, counted on its own ---------------------------------------------------


@dataclass
class Part:
    """The calls made while a part of a step ran."""

    rpc: Counter[str]
    round_trips: int
    aws: Counter[str]

    @property
    def rpc_calls(self) -> int:
        return sum(self.rpc.values())

    @property
    def reads(self) -> int:
        return sum(n for label, n in self.aws.items() if "(" in label and label.split("(")[0] not in DYNAMODB_WRITES)

    @property
    def writes(self) -> int:
        return sum(n for label, n in self.aws.items() if "(" in label and label.split("(")[0] in DYNAMODB_WRITES)


confirm_parts: list[Part] = []  # one per step, in order


def count_part(owner: Any, name: str, into: list[Part]) -> None:
    """Record the calls each call of `owner.name` makes (the difference of the counters around it)."""
    original: Callable[..., Any] = getattr(owner, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        rpc, trips, aws_calls = Counter(calls.rpc), calls.all_round_trips(), Counter(calls.aws)
        try:
            return original(*args, **kwargs)
        finally:
            into.append(Part(Counter(calls.rpc) - rpc, calls.all_round_trips() - trips, Counter(calls.aws) - aws_calls))

    setattr(owner, name, counted)


# --- deposit addresses -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Address:
    account_id: str
    address: str
    address_type: str


def bitcoin_public_key(i: int) -> bytes:
    """A compressed public key of its own for the i-th written account (reproducible from i)."""
    from embit import ec

    secret = hashlib.sha256(f"bitcoin-watcher-bench-key-{i}".encode()).digest()
    return bytes(ec.PrivateKey(secret).get_public_key().sec())


def register(template: dict[str, Any], start: int, count: int) -> list[Address]:
    """`count` more accounts like `template` (items written directly, see the module docstring); their Bitcoin
    addresses, per account its native SegWit one then its legacy one."""
    from chalicelib.bitcoin.addresses import AddressType, deposit_address
    from chalicelib.custody import accounts
    from chalicelib.custody.store import TABLE
    from chalicelib.custody.tokens import NAMESPACE
    from chalicelib.platform import aws, clock

    added: list[Address] = []
    with calls.pause(), aws.table(TABLE).batch_writer() as writer:
        for i in range(start, start + count):
            account_id = str(uuid.uuid5(BENCH_NAMESPACE, f"account:{i}"))
            public_key = bitcoin_public_key(i)
            wallets = []
            for wallet in template["wallets"]:  # its native SegWit and its legacy address
                address_type: AddressType = "legacy" if wallet["addressType"] == "legacy" else "native-segwit"
                wallet_id = uuid.uuid5(NAMESPACE, f"wallet:{account_id}:{CHAIN_ID}:{address_type}")
                address = deposit_address(public_key, address_type, "regtest")
                wallets.append({**wallet, "walletId": str(wallet_id), "address": address})
            writer.put_item(
                Item={
                    **template,
                    **accounts.account_key(account_id),
                    "id": account_id,
                    "subId": f"bench-{i}",
                    "wallets": wallets,
                    "createdAt": clock.iso_now(),
                }
            )
            for wallet in wallets:
                writer.put_item(
                    Item={
                        **accounts.address_key(CHAIN_ID, wallet["address"]),
                        "accountId": account_id,
                        "appId": template["appId"],
                        "walletId": wallet["walletId"],
                    }
                )
                added.append(Address(account_id, str(wallet["address"]), str(wallet["addressType"])))
    return added


# --- the chain ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Payment:
    to: Address
    sats: int
    txid: str = ""
    vout: int = -1


def mine_deposits(node: Any, recipients: list[Address], blocks: int, per_tx: int) -> tuple[list[Payment], int]:
    """Pay each recipient once (transactions of `per_tx` outputs) in `blocks` blocks; the payments and the last
    block's height. Each block is checked to hold its transactions."""
    per_block = -(-len(recipients) // blocks)
    paid: list[Payment] = []
    last = 0
    for block_start in range(0, len(recipients), per_block):
        in_block = recipients[block_start : block_start + per_block]
        txids = []
        for tx_start in range(0, len(in_block), per_tx):
            outputs = in_block[tx_start : tx_start + per_tx]
            amounts = [10_000 + block_start + tx_start + k for k in range(len(outputs))]
            txid = node.pay([(a.address, sats) for a, sats in zip(outputs, amounts, strict=True)])
            txids.append(txid)
            paid += [Payment(a, sats, txid, k) for k, (a, sats) in enumerate(zip(outputs, amounts, strict=True))]
        [block_hash] = node.generate(1)
        block = node.rpc("getblock", block_hash, 1)
        missing = set(txids) - set(block["tx"])
        if missing:
            raise RuntimeError(f"block {block['height']} lacks {len(missing)} of its {len(txids)} transactions")
        last = int(block["height"])
    return paid, last


# --- the watcher -------------------------------------------------------------------------------------------


def cursor_next() -> int:
    from chalicelib.custody import cursor as watcher_cursor

    with calls.pause():
        cursor = watcher_cursor.read(CHAIN_ID)
    return int(cursor["next"]) if cursor else -1


def catch_up(network: Any, phase: Phase, last_block: int) -> None:
    while cursor_next() <= last_block:
        phase.steps.append(run_step(network))


def check_recorded(payments: list[Payment]) -> None:
    """Every payment is one pending deposit of its account, on the wallet of its address."""
    from chalicelib.custody import store
    from chalicelib.custody.deposits import lifecycle as deposits

    with calls.pause():
        for payment in payments:
            item = store.get(f"DEPOSIT#{deposits.deposit_id(CHAIN_ID, payment.txid, str(payment.vout))}", "DEPOSIT")
            assert item is not None, payment
            assert item["accountId"] == payment.to.account_id and int(item["value"]) == payment.sats, (item, payment)
            account = store.get(f"ACCOUNT#{payment.to.account_id}", "ACCOUNT")
            assert account is not None
            [wallet] = [w for w in account["wallets"] if w["address"] == payment.to.address]
            assert item["walletId"] == wallet["walletId"] and wallet["addressType"] == payment.to.address_type


# --- output ------------------------------------------------------------------------------------------------


def per(value: float, count: float, digits: int = 2) -> str:
    return f"{value / count:,.{digits}f}" if count else "—"


def table(phases: list[Phase], confirm_part: Part) -> None:
    print(
        "| phase | accounts (Bitcoin addresses) | steps | blocks scanned | outputs read | deposits | seconds "
        "| JSON-RPC calls (round trips) | RPC calls per block | RPC calls per deposit | DynamoDB reads / writes "
        "| DynamoDB reads per deposit | DynamoDB writes per deposit | other AWS | ms per deposit |\n"
        + "|---" * 15
        + "|"
    )
    for phase in phases:
        deposits = int(phase.total("recorded") or phase.total("credited"))
        kind = "recorded" if phase.total("recorded") else "credited" if deposits else ""
        blocks = phase.total("blocks")
        rpc_calls = sum(sum(s.rpc.values()) for s in phase.steps)
        reads, writes, seconds = phase.total("reads"), phase.total("writes"), phase.total("seconds")
        print(
            f"| {phase.label} | {phase.addresses // 2:,} ({phase.addresses:,}) | {len(phase.steps)} | {int(blocks):,} "
            f"| {int(phase.total('transfers')):,} | {f'{deposits:,} {kind}' if deposits else '0'} | {seconds:.2f} "
            f"| {rpc_calls:,} ({int(phase.total('round_trips')):,}) | {per(rpc_calls, blocks)} "
            f"| {per(rpc_calls, deposits, 3)} | {int(reads):,} / {int(writes):,} | {per(reads, deposits)} "
            f"| {per(writes, deposits)} | {int(phase.total('other_aws')):,} | {per(seconds * 1000, deposits, 1)} |"
        )
        if phase.label.startswith("confirmation"):
            print(
                f"| of which its confirmation part | {phase.addresses // 2:,} ({phase.addresses:,}) | | | "
                f"| {deposits:,} credited "
                f"| {phase.total('confirm_s'):.2f} | {confirm_part.rpc_calls:,} ({confirm_part.round_trips:,}) | "
                f"| {per(confirm_part.rpc_calls, deposits, 3)} | {confirm_part.reads:,} / {confirm_part.writes:,} "
                f"| {per(confirm_part.reads, deposits)} | {per(confirm_part.writes, deposits)} | "
                f"| {per(phase.total('confirm_s') * 1000, deposits, 1)} |"
            )


# --- main --------------------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--addresses", default="1000,10000", help="accounts (two addresses each) per deposit phase, ascending"
    )
    parser.add_argument("--deposits", type=int, default=200, help="deposits per deposit phase")
    parser.add_argument("--blocks", type=int, default=4, help="blocks the deposits of a phase are mined into")
    parser.add_argument("--outputs-per-tx", type=int, default=25, help="deposit outputs per paying transaction")
    parser.add_argument("--empty-blocks", type=int, default=100, help="empty blocks scanned in phase 1")
    parser.add_argument("--scan-blocks", type=int, default=20, help="custodyScanBlocks: blocks per step at most")
    parser.add_argument("--confirmations", type=int, default=100, help="network confirmations (see docstring)")
    args = parser.parse_args()
    sizes = sorted(int(n) for n in args.addresses.split(","))
    if args.deposits > sizes[0] or any(b - a < args.deposits for a, b in itertools.pairwise(sizes)):
        parser.error("each phase pays --deposits accounts added for it: grow the addresses by at least that much")
    started_all = time.perf_counter()

    from moto import mock_aws

    from devtools import aux_cache, bootstrap
    from devtools.bitcoin_node import Btcd
    from devtools.chain import free_port

    moto_queries_read_one_partition()

    with ExitStack() as stack:
        log = Path(tempfile.mkdtemp(prefix="bitcoin-watcher-bench-")) / "btcd.log"
        node = stack.enter_context(Btcd(free_port(), log_path=log))
        height = node.mine_until_segwit()
        progress(f"btcd at {node.rpc_url}, height {height}, log {log}")
        stack.enter_context(mock_aws())

        from chalicelib.platform import aws, clock, networks, settings, transport

        calls.count_aws(aws._session())  # before any client is made: clients copy the handlers
        calls.count_rpc(transport)
        bitcoin_entry = {
            "kind": "bitcoin",
            "name": NETWORK,
            "chainId": CHAIN_ID,
            "chain": "regtest",
            "rpcUrls": [node.rpc_url],
            "rpcUser": node.rpc_user,
            "rpcPassword": node.rpc_password,
            "confirmations": args.confirmations,
            "custodyScanBlocks": args.scan_blocks,
            "custodyStartBlock": height + 1,
            "custodyTokens": [{"tokenCode": "btc", "symbol": "BTC", "decimals": 8}],
        }
        local_env.use_networks("bitcoin-watcher", [bitcoin_entry])
        settings.load_settings.cache_clear()
        networks.registry.cache_clear()

        with calls.pause():
            bootstrap.create_resources("bench", "us-east-1")
            bootstrap.initialise()
            aux_cache.fill_pool(2)  # the pool's EVM key and its Bitcoin key

        from chalicelib.custody import accounts
        from chalicelib.custody.deposits import bitcoin_watch, watcher
        from chalicelib.custody.deposits import lifecycle as deposits
        from chalicelib.tenancy import service as tenancy
        from chalicelib.webhooks import settings as webhook_settings
        from chalicelib.wiring import wire

        wire()  # the cosigner's signing policies, the recorder of events (as app.py's first event does)

        local_env.moto_queues_keep_nothing({aws.queue("webhook-deliveries")})
        timers.wrap(bitcoin_watch, "scan", "scan")
        count_part(bitcoin_watch, "confirm", confirm_parts)
        timers.wrap(bitcoin_watch, "confirm", "confirm")
        timers.wrap(deposits, "seen", "record")
        watcher.FAMILIES["bitcoin"] = (bitcoin_watch.scan, bitcoin_watch.confirm)  # the timed ones
        network = networks.registry().any_by_name(NETWORK)
        assert network is not None

        with calls.pause():
            credentials = tenancy.create_tenant("Bitcoin watcher bench")
            assert credentials.appId is not None
            found = tenancy.app_with_secret(credentials.appId)
            assert found is not None
            webhook_settings.put(found.app.appId, "https://hooks.example.com/dompet", clock.iso_now())
            keygen_started = time.perf_counter()
            real, created = accounts.create(found.app, "bench-real", "dedicated")
            keygen_s = time.perf_counter() - keygen_started
        assert created and sorted(w["addressType"] for w in real["wallets"]) == sorted(ADDRESS_TYPES)
        written: list[Address] = []  # the written accounts' addresses, two per account
        register_s = 0.0

        def grow_to(total: int) -> list[Address]:
            nonlocal register_s
            started = time.perf_counter()
            accounts_before = len(written) // 2 + 1
            added = register(real, accounts_before - 1, total - accounts_before)
            register_s += time.perf_counter() - started
            written.extend(added)
            progress(f"{len(written) // 2 + 1:,} accounts ({len(written) + 2:,} Bitcoin deposit addresses) registered")
            return added

        first_added = grow_to(sizes[0])
        run_step(network)  # warms clients and connections (account creation made the cursor at the next block)
        confirm_parts.clear()

        # Phase 1: empty blocks.
        phases: list[Phase] = []
        empty = Phase(f"{args.empty_blocks} empty blocks", 2 * sizes[0])
        node.generate(args.empty_blocks)
        catch_up(network, empty, node.height())
        phases.append(empty)
        progress(f"{args.empty_blocks} empty blocks scanned in {empty.total('seconds'):.2f} s")

        # Phase 2: deposits, per number of registered accounts.
        pending: list[Payment] = []
        shuffle = random.Random(7)
        for size in sizes:
            added = first_added if size == sizes[0] else grow_to(size)
            accounts_added = [added[k : k + 2] for k in range(0, len(added), 2)]
            chosen = shuffle.sample(accounts_added, args.deposits)
            recipients = [pair[k % 2] for k, pair in enumerate(chosen)]  # alternately native SegWit and legacy
            payments, last = mine_deposits(node, recipients, args.blocks, args.outputs_per_tx)
            progress(f"{len(payments)} deposits mined into blocks up to {last}; {size:,} accounts")
            phase = Phase(f"{args.deposits:,} deposits in {args.blocks} blocks", 2 * size)
            catch_up(network, phase, last)
            phases.append(phase)
            assert int(phase.total("recorded")) == len(payments), (phase.total("recorded"), len(payments))
            check_recorded(payments)
            pending += payments
            progress(f"recorded {len(payments)} in {phase.total('seconds'):.2f} s")

        # Phase 3: every deposit of the run due at once.
        node.generate(args.confirmations)
        confirm = Phase(f"confirmation: {len(pending):,} deposits due, one step", 2 * sizes[-1])
        confirm.steps.append(run_step(network))
        confirm_part = confirm_parts[-1]
        phases.append(confirm)
        credited = int(confirm.total("credited"))
        outcome = f"credited {credited:,} of {len(pending):,} due in one step"
        progress(outcome)
        node_height = node.height()

    total_s = time.perf_counter() - started_all
    print(f"\nCustody deposit watcher on btcd regtest ({NETWORK}, chain {CHAIN_ID}), one network, moto in process.\n")
    print(
        f"Setup: pool keys (EVM and Bitcoin) {keygen_s:.1f} s; {sizes[-1]:,} accounts, {2 * sizes[-1]:,} Bitcoin "
        f"deposit addresses ({sizes[-1] - 1:,} accounts written directly, {register_s:.1f} s); custodyScanBlocks "
        f"{args.scan_blocks}; confirmations {args.confirmations}; {args.outputs_per_tx} deposit outputs per "
        f"transaction; node height {node_height:,} at the end.\n"
    )
    table(phases, confirm_part)
    calls_per_phase(phases)
    print(
        "- confirmation part of the last step: AWS "
        + "; ".join(f"{op} {n:,}" for op, n in sorted(confirm_part.aws.items()))
        + "; JSON-RPC "
        + ", ".join(f"{m} {n:,}" for m, n in sorted(confirm_part.rpc.items()))
        + f" ({confirm_part.round_trips} round trips)"
    )
    print(
        f"\nConfirmation: {outcome}. Whole benchmark: {total_s:.0f} s; blocks/s of phase 1: "
        f"{rate(empty.total('blocks') / empty.total('seconds'))}."
    )
    if credited != len(pending):
        sys.exit(f"not every due deposit was credited: {outcome}")


if __name__ == "__main__":
    main()
