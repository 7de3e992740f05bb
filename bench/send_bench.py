"""End-to-end `send-coin` latency, in process: the Chalice handler, moto, anvil and the real MPC parties.

    .venv/bin/python bench/send_bench.py [--runs 50] [--pool stocked,empty]

Issue 12's goals: online signing p50 ≤ 50 ms, and `send-coin` p50 ≤ signing + 30 ms, with a stocked pool.

Each run is one `POST /api/v1/wallet/send-coin` through `chalice.test.Client` (the route, guard,
validation, service, envelope), with the cosigner as an in-process party over the DynamoDB mailbox.
The total is split by timing the stages where they are called:

* authentication: the wallet-token guard (client secret, JWT, user lookup);
* MPC signing: `provisioning.sign` (secret check; with a stocked presignature pool the online step: share
  A consumed, the cosigner's partial signature, combine, verify; with an empty pool share A and the two-party
  run; the audit record either way);
* broadcast: `eth_sendRawTransaction` and the node's view of the pending transaction;
* storage: the transaction record (with the list entry, the nonce lease's end and the tracker message) and
  its claim;
* building: the rest (network, the one batch of balance, fee, nonce and gas reads from the node, the one
  batch read of the nonce item and the list counter, the nonce lease, encoding, envelope).

Also measures the cold-start import of `app.py` (what Lambda loads for these routes) in fresh
interpreters. Prints Markdown for docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections import defaultdict

import local_env
from instrument import Calls, Timers, cold_import, percentile

ROOT = local_env.ROOT
local_env.use(DOMPET_PARTY_TRANSPORT="in_process")

STAGES = ("authentication", "building", "MPC signing", "broadcast", "storage")
timings: dict[str, list[float]] = defaultdict(list)
stages = Timers()  # stage -> seconds in the current send
calls = Calls()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--pool", default="stocked,empty", help="stocked, empty, or both (comma-separated)")
    parser.add_argument("--profile", action="store_true", help="cProfile the timed sends; print the top functions")
    args = parser.parse_args()
    import cProfile
    import pstats

    profiler = cProfile.Profile()

    from moto import mock_aws

    from devtools import aux_cache, bootstrap, chain

    with chain.start_anvil(chain.free_port(), 31337) as anvil, mock_aws():
        entry = {"name": "local-a", "chainId": 31337, "rpcUrls": [anvil.rpc_url], "nativeSymbol": "ETH"}
        local_env.use_networks("send", [entry])

        from chalicelib.platform import aws as aws_clients

        calls.count_aws(aws_clients._session())
        bootstrap.create_resources("bench", "us-east-1")
        bootstrap.initialise()
        aux_cache.fill_pool(1)

        from chalice.test import Client

        from app import app
        from chalicelib.auth import guards, users
        from chalicelib.evm import pipeline, tracking
        from chalicelib.mpc import service as mpc_service
        from chalicelib.platform import aws, settings
        from chalicelib.tenancy import service as tenancy
        from chalicelib.wallets import provisioning

        stages.wrap(guards.WalletFamilyGuard, "__call__", "authentication")
        stages.wrap(provisioning, "sign", "MPC signing")
        stages.wrap(
            pipeline, "rpc_call", "broadcast", when=lambda network, method, *a, **k: method == "eth_sendRawTransaction"
        )
        stages.wrap(pipeline, "_node_gas_price", "broadcast")
        for name in ("record", "claim"):
            stages.wrap(tracking, name, "storage")

        tenant = tenancy.create_tenant("Bench")
        headers = {"Content-Type": "application/json", "x-client-secret": tenant.clientSecret}
        with Client(app) as client:
            login = client.http.post("/api/v1/auth/login", body=json.dumps({"subId": "bench"}), headers=headers)
            access = login.json_body["data"]["accessToken"]
            created = client.http.post(
                "/api/v1/account/create", body="{}", headers={**headers, "Authorization": f"Bearer {access}"}
            ).json_body["data"]
            chain_call = {"jsonrpc": "2.0", "id": 1, "method": "anvil_setBalance"}
            import urllib.request

            request = urllib.request.Request(
                anvil.rpc_url,
                data=json.dumps({**chain_call, "params": [created["address"], hex(10**21)]}).encode(),
                headers={"Content-Type": "application/json"},
            )
            urllib.request.urlopen(request, timeout=5).read()
            wallet_headers = {**headers, "Authorization": f"Bearer {created['walletToken']}"}
            body = json.dumps(
                {"network": "local-a", "to": "0x000000000000000000000000000000000000dEaD", "amount": "0.001"}
            )
            client.http.post("/api/v1/wallet/send-coin", body=body, headers=wallet_headers)  # warm-up
            wallet_id = users.get(tenant.clientId, "bench").walletId
            results = {}
            for pool in args.pool.split(","):
                refill_s = 0.0
                if pool == "stocked":  # one presignature per run, made before the timed sends
                    started = time.perf_counter()
                    made = mpc_service.refill_presignatures(wallet_id, lambda: 1e9, 0.0, target=args.runs)
                    refill_s = (time.perf_counter() - started) / max(made, 1)
                else:
                    os.environ["DOMPET_PRESIGN_POOL_CEILING"] = "0"  # full signing, as with an empty pool
                settings.load_settings.cache_clear()
                timings.clear()
                calls.reset()
                for _ in range(args.runs):
                    stages.clear()
                    start = time.perf_counter()
                    if args.profile:
                        profiler.enable()
                    response = client.http.post("/api/v1/wallet/send-coin", body=body, headers=wallet_headers)
                    profiler.disable()
                    total = time.perf_counter() - start
                    assert response.status_code == 200, response.json_body
                    accounted = sum(stages.seconds[s] for s in STAGES if s != "building")
                    stages.seconds["building"] = total - accounted
                    for stage in STAGES:
                        timings[stage].append(stages.seconds[stage] * 1000)
                    timings["total"].append(total * 1000)
                methods = {r["method"] for r in aws.table("signing-audit").scan()["Items"][-args.runs :]}
                per_send = {name: n / args.runs for name, n in sorted(calls.aws.items())}
                results[pool] = ({k: list(v) for k, v in timings.items()}, refill_s, methods, per_send)

    if args.profile:
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(r"chalicelib|_make_api_call|post_json", 45)
    imports = cold_import(ROOT, 10)
    for pool, (measured, refill_s, methods, per_send) in results.items():
        print(f"\n`send-coin` with {'a stocked' if pool == 'stocked' else 'an empty'} presignature pool:\n")
        print("| stage | runs | p50 ms | p95 ms |\n|---|---|---|---|")
        for stage in (*STAGES, "total"):
            values = measured[stage]
            print(f"| {stage} | {len(values)} | {statistics.median(values):.1f} | {percentile(values, 0.95):.1f} |")
        rest = [t - m for t, m in zip(measured["total"], measured["MPC signing"], strict=True)]
        print(f"| total minus signing | {len(rest)} | {statistics.median(rest):.1f} | {percentile(rest, 0.95):.1f} |")
        if pool == "stocked":
            print(f"\nrefill wall time per presignature (both parties in process): {refill_s * 1000:.0f} ms")
        print(f"signing methods in the audit records: {sorted(methods)}")
        print("AWS calls per send (the cosigner's included): " + "; ".join(f"{k} {v:g}" for k, v in per_send.items()))
    print(
        f"\n| cold import of app.py (fresh interpreter) | {len(imports)} | {statistics.median(imports):.0f} | "
        f"{percentile(imports, 0.95):.0f} |"
    )


if __name__ == "__main__":
    main()
