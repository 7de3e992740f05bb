"""Bursts of `send-coin` from one wallet, with the presignature pool refilled in the background as on AWS.

    .venv/bin/python bench/burst_bench.py [--burst 20] [--pools demand,fixed]

Issue 27, item 2: pools that follow demand. One wallet sends `--burst` transactions back to back through the real
route (`chalice.test.Client`: guard, validation, service, the MPC online step or a full run, anvil, the records),
while a refill worker in a thread of this process does what the `refill_presignatures` function does on AWS: it
takes the `presign-refill` queue's messages and refills each wallet with the cosigner (an in-process party over the
DynamoDB mailbox). Both share this machine's 2 CPUs with the sends, as in `make dev`.

For each pool setting, a fresh wallet:

1. warm-up: the wallet is created (its first stock: the floor), then sends one burst (its demand becomes visible in
   the signing audit); the worker is left to finish (the pool reaches the wallet's target);
2. the measured burst: `--burst` sends, back to back; p50 and p95 of the send's answer time, and how many were signed
   from a presignature (the rest fell back to a full run);
3. the pool is left to refill again; what it then holds is what the wallet would leave unused if it went idle now:
   those presignatures expire (`DOMPET_PRESIGN_TTL_S`), and the CPU spent making them is wasted.

Pool settings compared: `demand` (the defaults: floor 1, ceiling 24, a 15-minute demand window) and `fixed` (floor
and ceiling 4: the fixed target of 4 that came before). The CPU per presignature (both parties' process time) is
measured once, alone, before the runs. Prints Markdown for docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import threading
import time
import urllib.request
from typing import Any

import local_env
from instrument import percentile, progress

local_env.use(DOMPET_PARTY_TRANSPORT="in_process")

POOLS = {
    "demand": {"DOMPET_PRESIGN_POOL_FLOOR": "1", "DOMPET_PRESIGN_POOL_CEILING": "24"},
    "fixed": {"DOMPET_PRESIGN_POOL_FLOOR": "4", "DOMPET_PRESIGN_POOL_CEILING": "4"},
}
TO = "0x000000000000000000000000000000000000dEaD"


class RefillWorker:
    """The `presign-refill` consumer: one message at a time (one lane, as the local worker runner has), through the
    function's own handler."""

    def __init__(self) -> None:
        self.stop = threading.Event()
        self.busy = threading.Event()
        self.thread = threading.Thread(target=self._run, name="refill-worker", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def _run(self) -> None:
        from app import app
        from chalicelib.platform import aws

        refill_presignatures = app.handler_map["refill_presignatures"]  # as Lambda calls it

        sqs = aws.client("sqs")
        url = sqs.get_queue_url(QueueName=aws.queue("presign-refill"))["QueueUrl"]
        while not self.stop.is_set():
            messages = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=1, WaitTimeSeconds=0).get("Messages", [])
            if not messages:
                time.sleep(0.05)
                continue
            self.busy.set()
            try:
                record = {
                    "messageId": messages[0]["MessageId"],
                    "receiptHandle": messages[0]["ReceiptHandle"],
                    "body": messages[0]["Body"],
                    "attributes": {},
                    "messageAttributes": {},
                    "md5OfBody": "",
                    "eventSource": "aws:sqs",
                    "eventSourceARN": f"arn:aws:sqs:us-east-1:123456789012:{aws.queue('presign-refill')}",
                    "awsRegion": "us-east-1",
                }
                refill_presignatures({"Records": [record]}, _Context())
                sqs.delete_message(QueueUrl=url, ReceiptHandle=messages[0]["ReceiptHandle"])
            finally:
                self.busy.clear()

    def settle(self, queue_empty: Any) -> float:
        """Wait until the queue is empty and no refill runs; the seconds waited."""
        started = time.perf_counter()
        quiet = 0
        while quiet < 3:
            time.sleep(0.2)
            quiet = quiet + 1 if not self.busy.is_set() and queue_empty() else 0
        return time.perf_counter() - started


class _Context:
    def get_remaining_time_in_millis(self) -> int:
        return 120_000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--burst", type=int, default=20)
    parser.add_argument("--pools", default="demand,fixed")
    args = parser.parse_args()

    from moto import mock_aws

    from devtools import aux_cache, bootstrap, chain

    with chain.start_anvil(chain.free_port(), 31337) as anvil, mock_aws():
        local_env.use_networks(
            "burst", [{"name": "local-a", "chainId": 31337, "rpcUrls": [anvil.rpc_url], "nativeSymbol": "ETH"}]
        )
        bootstrap.create_resources("bench", "us-east-1")
        bootstrap.initialise()
        pools = args.pools.split(",")
        aux_cache.fill_pool(len(pools) + 1)

        from chalice.test import Client

        from app import app
        from chalicelib.auth import users
        from chalicelib.mpc import presignatures, shares
        from chalicelib.mpc import service as mpc_service
        from chalicelib.platform import aws, settings
        from chalicelib.tenancy import service as tenancy

        sqs = aws.client("sqs")
        refill_url = sqs.get_queue_url(QueueName=aws.queue("presign-refill"))["QueueUrl"]

        def queue_empty() -> bool:
            counts = ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"]
            counts.append("ApproximateNumberOfMessagesDelayed")  # the refills' follow-ups
            attributes = sqs.get_queue_attributes(QueueUrl=refill_url, AttributeNames=counts)["Attributes"]
            return sum(int(attributes.get(name, 0)) for name in counts) == 0

        tenant = tenancy.create_tenant("Burst bench")
        headers = {"Content-Type": "application/json", "x-client-secret": tenant.clientSecret}
        body = json.dumps({"network": "local-a", "to": TO, "amount": "0.001"})

        def fund(address: str) -> None:
            call = {"jsonrpc": "2.0", "id": 1, "method": "anvil_setBalance", "params": [address, hex(10**21)]}
            request = urllib.request.Request(
                anvil.rpc_url, data=json.dumps(call).encode(), headers={"Content-Type": "application/json"}
            )
            urllib.request.urlopen(request, timeout=5).read()

        def audit(wallet_id: str) -> list[dict[str, Any]]:
            from boto3.dynamodb.conditions import Key

            items = aws.table("signing-audit").query(KeyConditionExpression=Key("pk").eq(f"WALLET#{wallet_id}"))
            return list(items["Items"])

        with Client(app) as client:

            def new_wallet(sub_id: str) -> tuple[str, dict[str, str]]:
                login = client.http.post("/api/v1/auth/login", body=json.dumps({"subId": sub_id}), headers=headers)
                access = login.json_body["data"]["accessToken"]
                created = client.http.post(
                    "/api/v1/account/create", body="{}", headers={**headers, "Authorization": f"Bearer {access}"}
                ).json_body["data"]
                fund(created["address"])
                wallet_id = str(users.get(tenant.clientId, sub_id).walletId)
                return wallet_id, {**headers, "Authorization": f"Bearer {created['walletToken']}"}

            def burst(wallet_headers: dict[str, str]) -> list[float]:
                times = []
                for _ in range(args.burst):
                    started = time.perf_counter()
                    answer = client.http.post("/api/v1/wallet/send-coin", body=body, headers=wallet_headers)
                    times.append((time.perf_counter() - started) * 1000)
                    assert answer.status_code == 200, answer.json_body
                return times

            # The CPU of one presignature, both parties (process time), measured alone.
            calibration, _ = new_wallet("calibration")
            cpu_started, wall_started = time.process_time(), time.perf_counter()
            made = mpc_service.refill_presignatures(calibration, lambda: 1e9, 0.0, target=6)
            cpu_per_presignature = (time.process_time() - cpu_started) / made
            wall_per_presignature = (time.perf_counter() - wall_started) / made
            progress(f"a presignature: {cpu_per_presignature:.2f} s CPU, {wall_per_presignature:.2f} s wall")
            sqs.purge_queue(QueueUrl=refill_url)

            worker = RefillWorker()
            worker.start()
            results: dict[str, dict[str, Any]] = {}
            for pool in pools:
                os.environ.update(POOLS[pool])
                settings.load_settings.cache_clear()
                wallet_id, wallet_headers = new_wallet(f"burst-{pool}")
                worker.settle(queue_empty)
                warm_up = burst(wallet_headers)
                waited = worker.settle(queue_empty)
                stocked = len(presignatures.ready_ids(shares.SIGNER, wallet_id))
                progress(f"{pool}: warm-up burst done; {stocked} ready after {waited:.1f} s of refills")
                before = {str(item["sk"]) for item in audit(wallet_id)}
                measured = burst(wallet_headers)
                methods = [str(i["method"]) for i in audit(wallet_id) if str(i["sk"]) not in before]
                worker.settle(queue_empty)
                left = len(presignatures.ready_ids(shares.SIGNER, wallet_id))
                runs = audit(wallet_id)
                results[pool] = {
                    "warm_up": warm_up,
                    "measured": measured,
                    "stocked": stocked,
                    "presigned": methods.count("presignature"),
                    "left": left,
                    "used": sum(1 for i in runs if i["method"] == "presignature"),
                    "signatures": len(runs),
                }
                progress(f"{pool}: measured burst p50 {statistics.median(measured):.0f} ms; {left} left unused")
            worker.stop.set()

    print(
        f"\nA wallet sending {args.burst} `send-coin` back to back (in process, anvil, both MPC parties and the "
        f"refill worker sharing {os.cpu_count()} CPUs). A presignature costs {cpu_per_presignature * 1000:.0f} ms "
        f"of CPU (both parties), {wall_per_presignature * 1000:.0f} ms wall alone.\n"
    )
    print(
        "| pool | warm-up burst p50 / p95 ms | ready before the measured burst | measured burst p50 ms | p95 ms "
        "| from presignatures | left unused after (expire) | CPU wasted if the wallet goes idle |\n"
        "|---|---|---|---|---|---|---|---|"
    )
    for pool, r in results.items():
        print(
            f"| {pool} | {statistics.median(r['warm_up']):.0f} / {percentile(r['warm_up'], 0.95):.0f} "
            f"| {r['stocked']} | {statistics.median(r['measured']):.0f} | {percentile(r['measured'], 0.95):.0f} "
            f"| {r['presigned']} of {args.burst} | {r['left']} | {r['left'] * cpu_per_presignature:.1f} s |"
        )
    print()
    for pool, r in results.items():
        print(
            f"- {pool}: {r['signatures']} signatures in all, {r['used']} from presignatures; "
            f"{r['used'] + r['left']} presignatures made for the wallet."
        )


if __name__ == "__main__":
    main()
