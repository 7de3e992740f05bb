"""Message signing latency, in process: `sign-message` and `sign-typed-data` against `balance-coin`.

    .venv/bin/python bench/sign_bench.py [--runs 30] [--pool stocked,empty]

The issue's goal: with a stocked presignature pool, `sign-message` is within a few milliseconds of `balance-coin`
(the cheapest wallet route that reads the chain).

Each run is one `POST` of each of the three routes through `chalice.test.Client` (the route, the wallet-token guard,
validation, the service, the envelope), interleaved so that a slow moment of the machine hits all three alike. AWS is
moto in process, the chain a local anvil (`balance-coin` reads it), the cosigner the real MPC party in process over
the DynamoDB mailbox. Two passes: a **stocked** pool (one presignature per signature, made before the timed runs)
and an **empty** one (full signing). Stages timed where they are called:

* authentication: the wallet-token guard (client secret, JWT, user lookup);
* MPC signing: `mpc.service.sign` (the digest, share A, the cosigner's own digest and partial signature, combine,
  verify, the audit record);
* rest: everything else (validation, hashing the typed data, the wallet lookup, the history record, the envelope).

Every signature is checked afterwards (outside the timings) to recover to the wallet's address, and the audit
records to name the expected method (`presignature` stocked, `full` empty). Prints Markdown for
docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections import Counter, defaultdict
from typing import Any

import local_env
from instrument import Calls, Timers, percentile, progress

ROOT = local_env.ROOT
local_env.use(DOMPET_PARTY_TRANSPORT="in_process")

ROUTES = ("balance-coin", "sign-message", "sign-typed-data")
STAGES = ("authentication", "MPC signing", "rest")
stages = Timers()
calls = Calls()

MESSAGE = (
    "app.example.com wants you to sign in with your Ethereum account:\n{address}\n\nSign in to Example.\n\n"
    "URI: https://app.example.com/login\nVersion: 1\nChain ID: 31337\nNonce: {nonce}\nIssued At: 2026-01-01T00:00:00Z"
)


def permit(owner: str, nonce: int) -> dict[str, Any]:
    """An EIP-2612 Permit as an integrator sends it (EIP712Domain left out, derived by the service)."""
    return {
        "types": {
            "Permit": [
                {"name": "owner", "type": "address"},
                {"name": "spender", "type": "address"},
                {"name": "value", "type": "uint256"},
                {"name": "nonce", "type": "uint256"},
                {"name": "deadline", "type": "uint256"},
            ]
        },
        "primaryType": "Permit",
        "domain": {
            "name": "Dompet Permit Token",
            "version": "1",
            "chainId": 31337,
            "verifyingContract": "0x5FbDB2315678afecb367f032d93F642f64180aa3",
        },
        "message": {
            "owner": owner,
            "spender": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
            "value": 10**24,
            "nonce": nonce,
            "deadline": 2**48,
        },
    }


def bodies(route: str, address: str, run: int) -> dict[str, Any]:
    if route == "balance-coin":
        return {"network": "local-a"}
    if route == "sign-message":
        return {"message": MESSAGE.format(address=address, nonce=f"bench{run:08d}")}
    return {"typedData": permit(address, run)}


def recovers_to(route: str, body: dict[str, Any], signature: str, address: str) -> bool:
    from eth_account import Account
    from eth_account.messages import encode_defunct, encode_typed_data

    if route == "sign-message":
        signable = encode_defunct(text=body["message"])
    else:
        document = body["typedData"]
        signable = encode_typed_data(document["domain"], document["types"], document["message"])
    return bool(Account.recover_message(signable, signature=signature) == address)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--pool", default="stocked,empty", help="stocked, empty, or both (comma-separated)")
    args = parser.parse_args()

    from moto import mock_aws

    from devtools import aux_cache, bootstrap, chain

    with chain.start_anvil(chain.free_port(), 31337) as anvil, mock_aws():
        entry = {"name": "local-a", "chainId": 31337, "rpcUrls": [anvil.rpc_url], "nativeSymbol": "ETH"}
        local_env.use_networks("sign", [entry])

        from chalicelib.platform import aws as aws_clients

        calls.count_aws(aws_clients._session())
        bootstrap.create_resources("bench", "us-east-1")
        bootstrap.initialise()
        aux_cache.fill_pool(1)

        from chalice.test import Client

        from app import app
        from chalicelib.auth import guards, users
        from chalicelib.mpc import service as mpc_service
        from chalicelib.platform import aws, settings
        from chalicelib.tenancy import service as tenancy

        stages.wrap(guards.WalletFamilyGuard, "__call__", "authentication")
        stages.wrap(mpc_service, "sign", "MPC signing")

        tenant = tenancy.create_tenant("Bench")
        headers = {"Content-Type": "application/json", "x-client-secret": tenant.clientSecret}
        with Client(app) as client:
            login = client.http.post("/api/v1/auth/login", body=json.dumps({"subId": "bench"}), headers=headers)
            access = login.json_body["data"]["accessToken"]
            created = client.http.post(
                "/api/v1/account/create", body="{}", headers={**headers, "Authorization": f"Bearer {access}"}
            ).json_body["data"]
            address = created["address"]
            wallet_headers = {**headers, "Authorization": f"Bearer {created['walletToken']}"}
            wallet_id = users.get(tenant.clientId, "bench").walletId

            def post(route: str, body: dict[str, Any]) -> Any:
                return client.http.post(f"/api/v1/wallet/{route}", body=json.dumps(body), headers=wallet_headers)

            for route in ROUTES:  # warm-up: imports, data keys, caches
                warm = post(route, bodies(route, address, 10**6))
                assert warm.status_code == 200, (route, warm.json_body)

            def audit_methods() -> Counter[str]:
                items = aws.table("signing-audit").scan()["Items"]
                return Counter(str(i.get("method")) for i in items if i.get("walletId") == wallet_id)

            results: dict[str, dict[str, dict[str, list[float]]]] = {}
            refill_s = 0.0
            methods: dict[str, Counter[str]] = {}
            aws_calls: dict[str, dict[str, dict[str, float]]] = {}
            for pool in args.pool.split(","):
                signatures = args.runs * (len(ROUTES) - 1)
                if pool == "stocked":  # one presignature per timed signature, made first
                    progress(f"making {signatures} presignatures")
                    started = time.perf_counter()
                    made = mpc_service.refill_presignatures(wallet_id, lambda: 1e9, 0.0, target=signatures)
                    refill_s = (time.perf_counter() - started) / max(made, 1)
                else:
                    os.environ["DOMPET_PRESIGN_POOL_CEILING"] = "0"  # full signing, as with an empty pool
                settings.load_settings.cache_clear()
                before = audit_methods()
                timings: dict[str, dict[str, list[float]]] = {r: defaultdict(list) for r in ROUTES}
                per_route: dict[str, Counter[str]] = {r: Counter() for r in ROUTES}
                signed: list[tuple[str, dict[str, Any], str]] = []
                progress(f"{pool} pool: {args.runs} runs of {', '.join(ROUTES)}")
                for run in range(args.runs):
                    for route in ROUTES:
                        body = bodies(route, address, run)
                        stages.clear()
                        calls.reset()
                        started = time.perf_counter()
                        response = post(route, body)
                        total = time.perf_counter() - started
                        per_route[route].update(calls.aws)
                        assert response.status_code == 200, (route, response.json_body)
                        stages.seconds["rest"] = (
                            total - stages.seconds["authentication"] - stages.seconds["MPC signing"]
                        )
                        for stage in STAGES:
                            timings[route][stage].append(stages.seconds[stage] * 1000)
                        timings[route]["total"].append(total * 1000)
                        if route != "balance-coin":
                            signed.append((route, body, response.json_body["data"]["signature"]))
                wrong = [(r, s) for r, b, s in signed if not recovers_to(r, b, s, address)]
                assert not wrong, f"signatures that do not recover to {address}: {wrong[:3]}"
                with calls.pause():
                    methods[pool] = audit_methods() - before
                results[pool] = timings
                aws_calls[pool] = {r: {k: n / args.runs for k, n in sorted(c.items())} for r, c in per_route.items()}

    print(f"\n{args.runs} runs of each route per pass; p50 / p95 in ms.\n")
    print(
        "| route | pool | total p50 | total p95 | p50 minus `balance-coin` p50 | authentication p50 | "
        "MPC signing p50 | rest p50 |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for pool, timings in results.items():
        base = statistics.median(timings["balance-coin"]["total"])
        for route in ROUTES:
            measured = timings[route]
            p50 = statistics.median(measured["total"])
            print(
                f"| `{route}` | {pool} | {p50:.1f} | {percentile(measured['total'], 0.95):.1f} | "
                f"{p50 - base:+.1f} | {statistics.median(measured['authentication']):.1f} | "
                f"{statistics.median(measured['MPC signing']):.1f} | "
                f"{statistics.median(measured['rest']):.1f} |"
            )
    for pool, counted in methods.items():
        print(f"\n{pool} pool: signing methods in the audit records: {dict(sorted(counted.items()))}")
        for route, per_request in aws_calls[pool].items():
            print(
                f"- AWS calls per `{route}` (the cosigner's included): "
                + "; ".join(f"{k} {v:g}" for k, v in per_request.items())
            )
    if "stocked" in results:
        print(f"refill wall time per presignature (both parties in process): {refill_s * 1000:.0f} ms")


if __name__ == "__main__":
    main()
