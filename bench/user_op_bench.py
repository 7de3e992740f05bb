"""User operations on anvil and Alto, in process: hash, submit, and submit to success.

    .venv/bin/python bench/user_op_bench.py [--runs 30] [--sponsored]

Issue 11's goals: `POST /api/v1/userOp/{kind}/hash` ≤ 150 ms p50 (one batched RPC round for nonce, code and fees
where the node allows, one bundler estimate, one KMS sign), and `POST /api/v1/userOp/submit` ≤ 50 ms p50 beyond
the bundler's own answer.

One anvil (31337) gets the test tokens, the v0.7 EntryPoint and SimpleAccountFactory, and a VerifyingPaymaster
trusting the moto KMS key `paymaster-signer`; one Alto bundles for it. One owner's gas tank is funded by a real
top-up (USDT sent to the pool), and its account gets ETH with `anvil_setBalance`. A first sendCoin operation
deploys the account (warm-up, not counted); then each run is one sendCoin operation on that account:

* (a) `POST /api/v1/userOp/sendCoin/hash`;
* the owner signs the hash with eth-account (not timed);
* (b) `POST /api/v1/userOp/submit`, and inside it the bundler's own `eth_sendUserOperation` answer, so that
  submit minus the bundler is the service's part;
* (c) submit to success: from the start of the submit until `tracking.check` (the tracker's handler, called in
  process every 50 ms from the submit's answer on) has settled the operation `success`.

Requests are Family S (HMAC-signed, scripts/dompet_sign.py) through `chalice.test.Client`: the route, the guard
(signature, replay record), validation, the service and the envelope. Per request (and per operation, for the
tracker's checks) it counts:

* RPC round trips: calls of `transport.post_json`, to the node or to the bundler, and the time each took;
* JSON-RPC calls: the calls in those bodies (a batch of n counts n);
* AWS API calls (botocore `before-parameter-build`, so a retried call counts once): DynamoDB writes (PutItem,
  UpdateItem, DeleteItem, TransactWriteItems, BatchWriteItem) and reads (every other DynamoDB operation), KMS and
  SQS calls, with the time each took (botocore `before-call` to `after-call`: moto serves the call in between).

`--sponsored`: the organization tank pays, under a sponsorship policy with every rule set and caps never reached,
so each submit also reads the policy and the owner's and the app's windows (one BatchGetItem) and writes both
windows in its transaction (docs/smart-accounts.md).

Prints Markdown for docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import Counter
from typing import Any

import local_env
from instrument import Calls, percentile

ROOT = local_env.ROOT
local_env.use()

CHAIN_ID = 31337
POLL_S = 0.05
REST = {
    "hash": "the rest, in process: routing, guard, validation, packing and hashing, signature recovery",
    "submit": "the rest, in process: routing, guard, validation, signature recovery, packing, the view",
    "submit to success": "the rest: the submit request itself, waiting between checks, the checks in process",
}
TANK_USDT = 100_000 * 10**6  # 6-decimal TestUSDT: far beyond 30 operations' maximum cost at the rate 2000

ERC20_ABI = [
    {
        "name": "mint",
        "type": "function",
        "stateMutability": "nonpayable",
        "inputs": [{"name": "to", "type": "address"}, {"name": "amount", "type": "uint256"}],
        "outputs": [],
    },
    {
        "name": "transfer",
        "type": "function",
        "stateMutability": "nonpayable",
        "inputs": [{"name": "to", "type": "address"}, {"name": "amount", "type": "uint256"}],
        "outputs": [{"name": "", "type": "bool"}],
    },
]


calls = Calls()


class Sample:
    def __init__(self) -> None:
        self.ms: list[float] = []
        self.node: list[int] = []
        self.bundler: list[int] = []
        self.rpc_calls: list[int] = []
        self.writes: list[int] = []
        self.reads: list[int] = []
        self.kms: list[int] = []
        self.sqs: list[int] = []
        self.dynamodb: Counter[str] = Counter()
        self.rpc_methods: Counter[str] = Counter()
        self.other_aws: Counter[str] = Counter()
        self.parts: dict[str, list[float]] = {}  # "bundler eth_estimateUserOperationGas" / "aws GetItem(users)" -> ms

    def add(self, seconds: float) -> None:
        self.ms.append(seconds * 1000)
        self.node.append(calls.round_trips["node"])
        self.bundler.append(calls.round_trips["bundler"])
        self.rpc_calls.append(calls.rpc_calls)
        self.writes.append(calls.writes)
        self.reads.append(calls.reads)
        self.kms.append(calls.service("kms"))
        self.sqs.append(calls.service("sqs"))
        self.dynamodb.update({label: n for label, n in calls.aws.items() if "(" in label})
        self.rpc_methods.update(calls.rpc_at)
        self.other_aws.update({label: n for label, n in calls.aws.items() if "(" not in label})
        run = len(self.ms) - 1
        parts = {
            **{k: v * 1000 for k, v in calls.rpc_s.items()},
            **{f"aws {k}": v * 1000 for k, v in calls.aws_s.items()},
        }
        for name in set(parts) | set(self.parts):
            self.parts.setdefault(name, [0.0] * run).append(parts.get(name, 0.0))


def per_call(values: list[int]) -> str:
    low, high = min(values), max(values)
    return str(low) if low == high else f"{statistics.mean(values):.2f} ({low} to {high})"


def ms_row(label: str, values: list[float]) -> str:
    return (
        f"| {label} | {len(values)} | {statistics.median(values):.1f} | {percentile(values, 0.95):.1f} "
        f"| {statistics.mean(values):.1f} |"
    )


def fund_tank(w3: Any, network: dict[str, Any], amount: int) -> tuple[str, Any]:
    """A fresh sender gets ETH and `amount` of USDT and sends it to the pool (mined on return)."""
    from eth_account import Account

    sender = Account.create()
    w3.provider.make_request("anvil_setBalance", [sender.address, hex(10**18)])
    token = w3.eth.contract(address=network["tokens"]["usdt"], abi=ERC20_ABI)
    w3.eth.wait_for_transaction_receipt(
        token.functions.mint(sender.address, amount).transact({"from": w3.eth.accounts[0]}), poll_latency=0.01
    )
    tx = token.functions.transfer(network["poolAddress"], amount).build_transaction(
        {
            "from": sender.address,
            "nonce": 0,
            "chainId": CHAIN_ID,
            "gas": 100_000,
            "maxFeePerGas": 10**10,
            "maxPriorityFeePerGas": 10**9,
        }
    )
    tx_hash = w3.eth.send_raw_transaction(sender.sign_transaction(tx).raw_transaction)
    receipt = w3.eth.wait_for_transaction_receipt(tx_hash, poll_latency=0.01)
    assert receipt["status"] == 1, dict(receipt)
    return "0x" + tx_hash.hex().removeprefix("0x"), sender


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--profile", action="store_true", help="cProfile the submits; print the top functions")
    parser.add_argument(
        "--sponsored",
        action="store_true",
        help="the organization tank pays, under a sponsorship policy with every rule set (caps never reached)",
    )
    args = parser.parse_args()
    import cProfile
    import pstats

    profiler = cProfile.Profile()

    from contextlib import ExitStack

    from eth_account import Account
    from eth_account.messages import encode_defunct
    from moto import mock_aws
    from web3 import Web3

    from devtools import aa, bootstrap, chain

    with ExitStack() as stack:
        chain.compile_contracts()
        anvil = stack.enter_context(chain.start_anvil(chain.free_port(), CHAIN_ID))
        tokens = chain.deploy_test_contracts(anvil.rpc_url)
        core = aa.deploy_core(anvil.rpc_url)
        alto = stack.enter_context(aa.start_alto(anvil.rpc_url, chain.free_port()))
        w3 = Web3(Web3.HTTPProvider(anvil.rpc_url))
        stack.enter_context(mock_aws())

        from chalicelib.platform import aws, networks, settings, transport

        # Before any client is created: a client copies the session's event handlers when it is created.
        calls.count_aws(aws._session())
        calls.count_rpc(transport, {alto.url: "bundler"})
        bootstrap.create_resources("bench", "us-east-1")
        bootstrap.initialise()

        from chalicelib.evm.kms_signer import KmsSigner

        network = {
            "name": "local-a",
            "chainId": CHAIN_ID,
            "rpcUrls": [anvil.rpc_url],
            "nativeSymbol": "ETH",
            "nativeDecimals": 18,
            "confirmations": 1,
            "tokens": {"usdt": tokens["usdt"]},
            "usdtDecimals": 6,
            "entryPoint": core["entryPoint"],
            "accountFactory": core["accountFactory"],
            "paymaster": aa.deploy_paymaster(anvil.rpc_url, KmsSigner("paymaster-signer").address),
            "bundlerUrls": [alto.url],
            "poolAddress": aa.pool_address(anvil.rpc_url),
            "nativeToGasTankRate": "2000",
            "clientFeeBps": 0,
            "serviceFeeBps": 0,
        }
        local_env.use_networks("user-op", [network])
        settings.load_settings.cache_clear()
        networks.registry.cache_clear()

        from chalice.test import Client

        from app import app
        from chalicelib.platform.invocation import running_as
        from chalicelib.tenancy import service as tenancy
        from chalicelib.user_ops import settlement as tracking
        from chalicelib.user_ops import store
        from scripts.dompet_sign import signed_headers

        tenant = tenancy.create_tenant("Bench")
        owner = Account.create()

        def call(client: Any, path: str, body: dict[str, Any]) -> Any:
            raw = json.dumps(body).encode()
            headers = signed_headers(tenant.appId, tenant.appSecret, "POST", f"http://x{path}", raw)
            headers["Content-Type"] = "application/json"
            answer = client.http.post(path, headers=headers, body=raw)
            assert answer.status_code == 200, (path, answer.status_code, answer.json_body)
            return answer.json_body.get("data")

        def status(user_op_id: str) -> str:
            with calls.pause():
                item = store.get(user_op_id)
            assert item is not None
            return item.status

        hashes, submits, bundler_sends, service_parts, settles = Sample(), Sample(), [], [], Sample()
        checks_per_op: list[int] = []
        after_answer: list[float] = []  # ms from the submit's answer to `success`
        recipient = Account.create().address
        with Client(app) as client:
            record = call(client, "/api/v1/smart-account", {"owner": {"id": owner.address, "provider": "wallet"}})
            account = next(a for a in record["accounts"] if a["chainId"] == CHAIN_ID)
            tx_hash, sender = fund_tank(w3, network, TANK_USDT)
            signature = sender.sign_message(encode_defunct(text=f"{CHAIN_ID}.{tx_hash}")).signature.hex()
            top_up = {
                "txHash": tx_hash,
                "chainId": CHAIN_ID,
                "tokenAddress": network["tokens"]["usdt"],
                "poolAddress": network["poolAddress"],
                "immediate": True,
                "signature": "0x" + signature.removeprefix("0x"),
            }
            if args.sponsored:
                call(client, "/api/v1/client/gasTank/topUp", top_up)
                many = str(10**30)
                policy = {
                    "perOwner": {"maxPerDay": many, "maxCountPerDay": 1_000_000, "maxPerMonth": many},
                    "perOperation": {"max": many},
                    "total": {"maxPerDay": many},
                    "networks": [network["name"]],
                    "contracts": [{"address": recipient}],
                    "activeFrom": "2020-01-01T00:00:00Z",
                }
                put = json.dumps(policy).encode()
                path = "/api/v1/client/gasTank/policy"
                headers = signed_headers(tenant.appId, tenant.appSecret, "PUT", f"http://x{path}", put)
                answer = client.http.put(path, headers={**headers, "Content-Type": "application/json"}, body=put)
                assert answer.status_code == 200, answer.json_body
            else:
                call(client, "/api/v1/smart-account/topUp", {**top_up, "receiverOwnerId": record["id"]})
            w3.provider.make_request("anvil_setBalance", [account["aaAddress"], hex(10**21)])
            body = {"accountId": account["id"], "to": recipient, "amount": "1"}

            for run in range(args.runs + 1):  # run 0 deploys the account: warm-up, not counted
                calls.reset()
                start = time.perf_counter()
                hashed = call(client, "/api/v1/userOp/sendCoin/hash", body)
                hash_s = time.perf_counter() - start
                if run:
                    hashes.add(hash_s)
                op_hash = hashed["hash"]
                owner_signature = owner.sign_message(encode_defunct(primitive=bytes.fromhex(op_hash[2:]))).signature
                submit = {
                    "userOpId": hashed["userOpId"],
                    "hash": op_hash,
                    "signature": "0x" + bytes(owner_signature).hex(),
                    "isSponsored": args.sponsored,
                }
                calls.reset()
                start = time.perf_counter()
                if args.profile and run:
                    profiler.enable()
                submitted = call(client, "/api/v1/userOp/submit", submit)
                submit_s = time.perf_counter() - start
                profiler.disable()
                assert submitted["status"] == "on_process", submitted
                bundler_ms = calls.rpc_s["bundler eth_sendUserOperation"] * 1000
                if run:
                    submits.add(submit_s)
                    bundler_sends.append(bundler_ms)
                    service_parts.append(submit_s * 1000 - bundler_ms)
                calls.reset()
                checks = 0
                while True:
                    with running_as("track_user_op"):
                        tracking.check({"userOpId": hashed["userOpId"], "attempt": 1})
                    checks += 1
                    state = status(hashed["userOpId"])
                    if state != "on_process":
                        break
                    time.sleep(max(0.0, start + submit_s + checks * POLL_S - time.perf_counter()))
                    assert time.perf_counter() - start < 60, "the operation did not settle within 60 s"
                assert state == "success", (run, state)
                if run:
                    settles.add(time.perf_counter() - start)
                    after_answer.append((time.perf_counter() - start - submit_s) * 1000)
                    checks_per_op.append(checks)
        assert w3.eth.get_balance(recipient) == args.runs + 1  # every operation moved its wei on chain
    if args.profile:
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(60)

    print(
        "| measured | runs | p50 ms | p95 ms | mean ms | RPC round trips: node | RPC round trips: bundler "
        "| JSON-RPC calls | DynamoDB writes | DynamoDB reads | KMS calls |\n" + "|---" * 11 + "|"
    )
    for label, sample in (
        ("(a) `POST /api/v1/userOp/sendCoin/hash`", hashes),
        ("(b) `POST /api/v1/userOp/submit`", submits),
        ("(c) submit to `success` (all tracker checks of the operation)", settles),
    ):
        print(
            f"{ms_row(label, sample.ms)} {per_call(sample.node)} | {per_call(sample.bundler)} "
            f"| {per_call(sample.rpc_calls)} | {per_call(sample.writes)} | {per_call(sample.reads)} "
            f"| {per_call(sample.kms)} |"
        )
    print(
        "\nSubmit split at the bundler's answer, and success after the submit's answer:\n\n"
        "| part | runs | p50 ms | p95 ms | mean ms |\n|---|---|---|---|---|"
    )
    print(ms_row("the bundler's own `eth_sendUserOperation` answer", bundler_sends))
    print(ms_row("submit minus the bundler's answer (the service)", service_parts))
    print(ms_row("from the submit's answer to `success`", after_answer))
    print(f"\nTracker checks per operation until `success` (every {POLL_S * 1000:.0f} ms): {per_call(checks_per_op)}.")

    print("\nWhere the time goes (ms per request; RPC by target and methods, AWS by operation, served by moto):\n")
    print("| request | part | p50 ms | p95 ms | mean ms |\n|---|---|---|---|---|")
    for label, sample in (("hash", hashes), ("submit", submits), ("submit to success", settles)):
        for name in sorted(sample.parts, key=lambda n: -statistics.mean(sample.parts[n])):
            values = sample.parts[name]
            print(
                f"| {label} | {name} | {statistics.median(values):.1f} | {percentile(values, 0.95):.1f} "
                f"| {statistics.mean(values):.1f} |"
            )
        rest = [total - sum(values[i] for values in sample.parts.values()) for i, total in enumerate(sample.ms)]
        what = REST[label]
        print(
            f"| {label} | {what} | {statistics.median(rest):.1f} | {percentile(rest, 0.95):.1f} "
            f"| {statistics.mean(rest):.1f} |"
        )

    print("\nCalls per request, by operation (tables):\n")
    for label, sample in (("hash", hashes), ("submit", submits), ("submit to success", settles)):
        runs = len(sample.ms)
        dynamodb = "; ".join(f"{op} {n / runs:g}" for op, n in sorted(sample.dynamodb.items())) or "none"
        rpc = ", ".join(f"{m} {n / runs:g}" for m, n in sorted(sample.rpc_methods.items())) or "none"
        other = ", ".join(f"{op} {n / runs:g}" for op, n in sorted(sample.other_aws.items())) or "none"
        print(f"- {label}: DynamoDB {dynamodb}; JSON-RPC {rpc}; other AWS {other}")
    tenth = max(1, args.runs // 10)
    print("\nLatency drift (p50 of the first and of the last tenth of the runs):\n")
    for label, sample in (("hash", hashes), ("submit", submits), ("submit to success", settles)):
        first, last = statistics.median(sample.ms[:tenth]), statistics.median(sample.ms[-tenth:])
        print(f"- {label}: first {tenth} runs {first:.1f} ms, last {tenth} runs {last:.1f} ms")


if __name__ == "__main__":
    main()
