"""Smart-account creation and an immediate gas-tank top-up, in process: the Chalice handler, moto and two anvils.

    .venv/bin/python bench/smart_account_bench.py [--runs 50]

Issue 10's goal: `POST /api/v1/smart-account` for a new owner on two networks makes ≤ 2 DynamoDB writes and no
RPC call (the counterfactual address is computed locally), and an immediate `POST /api/v1/smart-account/topUp`
makes ≤ 3 RPC calls.

Two anvil chains (31337 and 31338) get the test tokens and the v0.7 EntryPoint and SimpleAccountFactory; the
registry has every smart-account field. The paymaster and bundler are placeholders: neither route calls them.
Each run creates a new owner, then (after the USDT transfer to the pool was made and mined, outside the timing)
tops its tank up with `immediate: true`, alternating the two chains. Requests are Family S (HMAC-signed, with
scripts/dompet_sign.py) through `chalice.test.Client`: the route, the guard (signature, replay record),
validation, the service and the envelope.

Per request it counts:

* RPC round trips: calls of `transport.post_json` (every JSON-RPC and bundler request goes through it);
* JSON-RPC calls: the calls in those bodies (a batch of n counts n);
* DynamoDB writes (PutItem, UpdateItem, DeleteItem, TransactWriteItems, BatchWriteItem) and reads (every other
  DynamoDB operation), as API calls (botocore `before-parameter-build`, so a retried call counts once), with the
  operations and tables they touch.

One creation and one top-up are made first to warm caches and are not counted. Prints Markdown for
docs/performance.md.
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

CHAINS = (("local-a", 31337, "usdt", 6), ("local-b", 31338, "usdt18", 18))
PLACEHOLDER_PAYMASTER = "0x" + "34" * 20
PLACEHOLDER_BUNDLER = "http://127.0.0.1:9"  # never called by these routes

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


def start_chains(stack: Any) -> list[dict[str, Any]]:
    from devtools import aa, chain

    chain.compile_contracts()
    entries = []
    for name, chain_id, token_key, decimals in CHAINS:
        anvil = stack.enter_context(chain.start_anvil(chain.free_port(), chain_id))
        tokens = chain.deploy_test_contracts(anvil.rpc_url)
        core = aa.deploy_core(anvil.rpc_url)
        entries.append(
            {
                "name": name,
                "chainId": chain_id,
                "rpcUrls": [anvil.rpc_url],
                "nativeSymbol": "ETH",
                "confirmations": 1,
                "tokens": {"usdt": tokens[token_key]},
                "usdtDecimals": decimals,
                "entryPoint": core["entryPoint"],
                "accountFactory": core["accountFactory"],
                "paymaster": PLACEHOLDER_PAYMASTER,
                "bundlerUrls": [PLACEHOLDER_BUNDLER],
                "poolAddress": aa.pool_address(anvil.rpc_url),
                "nativeToGasTankRate": "2000",
            }
        )
    return entries


def transfer_to_pool(w3: Any, network: dict[str, Any], amount: int) -> tuple[str, Any]:
    """A fresh sender gets ETH and `amount` of the network's USDT and sends it to the pool (mined on return)."""
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
            "chainId": network["chainId"],
            "gas": 100_000,
            "maxFeePerGas": 10**10,
            "maxPriorityFeePerGas": 10**9,
        }
    )
    tx_hash = w3.eth.send_raw_transaction(sender.sign_transaction(tx).raw_transaction)
    receipt = w3.eth.wait_for_transaction_receipt(tx_hash, poll_latency=0.01)
    assert receipt["status"] == 1, dict(receipt)
    return "0x" + tx_hash.hex().removeprefix("0x"), sender


def top_up_body(network: dict[str, Any], tx_hash: str, sender: Any, owner_id: str) -> dict[str, Any]:
    from eth_account.messages import encode_defunct

    signature = sender.sign_message(encode_defunct(text=f"{network['chainId']}.{tx_hash}")).signature.hex()
    return {
        "txHash": tx_hash,
        "chainId": network["chainId"],
        "tokenAddress": network["tokens"]["usdt"],
        "poolAddress": network["poolAddress"],
        "immediate": True,
        "signature": "0x" + signature.removeprefix("0x"),
        "receiverOwnerId": owner_id,
    }


class Sample:
    def __init__(self) -> None:
        self.ms: list[float] = []
        self.round_trips: list[int] = []
        self.rpc_calls: list[int] = []
        self.writes: list[int] = []
        self.reads: list[int] = []
        self.dynamodb: Counter[str] = Counter()
        self.rpc_methods: Counter[str] = Counter()
        self.other_aws: Counter[str] = Counter()

    def add(self, seconds: float) -> None:
        self.ms.append(seconds * 1000)
        self.round_trips.append(calls.all_round_trips())
        self.rpc_calls.append(calls.rpc_calls)
        self.writes.append(calls.writes)
        self.reads.append(calls.reads)
        self.dynamodb.update({label: n for label, n in calls.aws.items() if "(" in label})
        self.rpc_methods.update(calls.rpc)
        self.other_aws.update({label: n for label, n in calls.aws.items() if "(" not in label})


def per_request(values: list[int]) -> str:
    low, high = min(values), max(values)
    return str(low) if low == high else f"{statistics.mean(values):.2f} ({low} to {high})"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args()

    from contextlib import ExitStack

    from eth_account import Account
    from moto import mock_aws
    from web3 import Web3

    from devtools import bootstrap

    with ExitStack() as stack:
        entries = start_chains(stack)
        stack.enter_context(mock_aws())
        local_env.use_networks("smart-account", entries)

        from chalicelib.platform import aws, transport

        # Before any client is created: a client copies the session's event handlers when it is created.
        calls.count_aws(aws._session())
        calls.count_rpc(transport)
        bootstrap.create_resources("bench", "us-east-1")
        bootstrap.initialise()

        from chalice.test import Client

        from app import app
        from chalicelib.gas_tanks import store as tanks
        from chalicelib.tenancy import service as tenancy
        from scripts.dompet_sign import signed_headers

        tenant = tenancy.create_tenant("Bench")
        w3 = {e["chainId"]: Web3(Web3.HTTPProvider(e["rpcUrls"][0])) for e in entries}

        def call(client: Any, path: str, body: dict[str, Any]) -> Any:
            raw = json.dumps(body).encode()
            headers = signed_headers(tenant.appId, tenant.appSecret, "POST", f"http://x{path}", raw)
            return client.http.post(path, headers=headers, body=raw)

        def create(client: Any) -> dict[str, Any]:
            owner = {"owner": {"id": Account.create().address, "provider": "wallet"}}
            answer = call(client, "/api/v1/smart-account", owner)
            assert answer.status_code == 200, answer.json_body
            record: dict[str, Any] = answer.json_body["data"]
            assert [a["chainId"] for a in record["accounts"]] == [31337, 31338], record
            return record

        # The transfers are made and mined before anything is timed: run i tops up on chain i % 2.
        amounts = {31337: 1_500_000, 31338: 15 * 10**17}
        transfers = []
        for i in range(args.runs + 1):
            network = entries[i % 2]
            transfers.append((network, *transfer_to_pool(w3[network["chainId"]], network, amounts[network["chainId"]])))

        creations, top_ups = Sample(), Sample()
        with Client(app) as client:
            for i, (network, tx_hash, sender) in enumerate(transfers):
                calls.reset()
                start = time.perf_counter()
                record = create(client)
                elapsed = time.perf_counter() - start
                if i:
                    creations.add(elapsed)
                body = top_up_body(network, tx_hash, sender, record["id"])
                calls.reset()
                start = time.perf_counter()
                answer = call(client, "/api/v1/smart-account/topUp", body)
                elapsed = time.perf_counter() - start
                assert answer.status_code == 200, answer.json_body
                if i:
                    top_ups.add(elapsed)
            # The last owner's tank holds its one top-up, converted exactly to the tank's 18 decimals.
            tank = tanks.get_tank(record["gasTanks"][0]["id"])
            expected = amounts[network["chainId"]] * 10 ** (18 - network["usdtDecimals"])
            assert tank is not None and tank.balance == expected, tank

    print(
        "| request | runs | p50 ms | p95 ms | mean ms | RPC round trips | JSON-RPC calls | DynamoDB writes "
        "| DynamoDB reads |\n|---|---|---|---|---|---|---|---|---|"
    )
    for label, sample in (
        ("`POST /api/v1/smart-account` (new owner, 2 networks)", creations),
        ("`POST /api/v1/smart-account/topUp` (`immediate: true`)", top_ups),
    ):
        print(
            f"| {label} | {len(sample.ms)} | {statistics.median(sample.ms):.1f} | {percentile(sample.ms, 0.95):.1f} "
            f"| {statistics.mean(sample.ms):.1f} | {per_request(sample.round_trips)} | {per_request(sample.rpc_calls)} "
            f"| {per_request(sample.writes)} | {per_request(sample.reads)} |"
        )
    print("\nCalls per request, by operation (tables):\n")
    for label, sample in (("creation", creations), ("top-up", top_ups)):
        runs = len(sample.ms)
        dynamodb = "; ".join(f"{op} {n / runs:g}" for op, n in sorted(sample.dynamodb.items()))
        rpc = ", ".join(f"{m} {n / runs:g}" for m, n in sorted(sample.rpc_methods.items())) or "none"
        other = ", ".join(f"{op} {n / runs:g}" for op, n in sorted(sample.other_aws.items())) or "none"
        print(f"- {label}: DynamoDB {dynamodb}; JSON-RPC {rpc}; other AWS {other}")
    # moto copies every table for each TransactWriteItems (to roll back): its cost grows with what is stored.
    tenth = max(1, args.runs // 10)
    print("\nLatency drift (p50 of the first and of the last tenth of the runs):\n")
    for label, sample in (("creation", creations), ("top-up", top_ups)):
        first, last = statistics.median(sample.ms[:tenth]), statistics.median(sample.ms[-tenth:])
        print(f"- {label}: first {tenth} runs {first:.1f} ms, last {tenth} runs {last:.1f} ms")


if __name__ == "__main__":
    main()
