"""`make dev`: the whole service on this machine, the embedded default.

Starts, in order: an in-process moto server with every resource bootstrapped, two
anvil chains (two named networks with different chain ids) with the test
contracts, a Bitcoin node (btcd in regtest, mined until SegWit is active),
ERC-4337 v0.7 (EntryPoint, SimpleAccountFactory, a VerifyingPaymaster
signed for by the service's KMS key) and an Alto bundler each, the aux-info
pool's filler (devtools/aux_cache.py: insecure cached sets, above a low-water
mark), a demo organization/client/app, the local worker runner, and `chalice
local`. Writes `.local/stack.json` once `/health` answers 200, then runs until
Ctrl-C (or SIGTERM), which stops every process it started.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from contextlib import ExitStack
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
LOCAL_PERIODS: dict[str, float] = {"watch_deposits": 3, "expire_invoices": 10}  # s; EventBridge: 1 min
# The deployed refill searches real safe primes: on a development machine's two cores it would starve requests,
# while the local filler (devtools/aux_cache.py) keeps the pool stocked from cached sets.
LOCAL_SKIPPED = {"refill_aux_pool": "the local aux filler stocks the pool"}
STAGE = "local"
REGION = "us-east-1"
NETWORKS = (("local-a", 31337), ("local-b", 31338))
# The Bitcoin network's registry number (Bitcoin has no chain id): regtest's customary RPC port.
BITCOIN_NETWORK, BITCOIN_CHAIN_ID = "bitcoin-regtest", 18443
DEFAULT_BUNDLER_PORTS = "4337,4338"
# Gas-tank pricing on the local chains: 2000 USDT per ETH, no fees.
NATIVE_TO_GAS_TANK_RATE = "2000"
LOCAL_FEE_CEILING_WEI = 100 * 10**9  # anvil starts at a base fee of 1 gwei


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="make dev", description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--api-port", type=int, default=int(os.environ.get("DOMPET_DEV_API_PORT", "8000")))
    parser.add_argument(
        "--aux-sets", type=int, default=int(os.environ.get("DOMPET_DEV_AUX_SETS", "3")), help="wallets creatable"
    )
    parser.add_argument(
        "--aux-low-water",
        type=int,
        default=int(os.environ.get("DOMPET_DEV_AUX_LOW_WATER", "4")),
        help="below this many ready sets, the local filler tops the pool up (0: no filler)",
    )
    parser.add_argument(
        "--aux-target",
        type=int,
        default=int(os.environ["DOMPET_DEV_AUX_TARGET"]) if os.environ.get("DOMPET_DEV_AUX_TARGET") else None,
        help="ready sets after a top-up (default: low water + 4)",
    )
    parser.add_argument("--moto-port", type=int, default=int(os.environ.get("DOMPET_DEV_MOTO_PORT", "5000")))
    parser.add_argument(
        "--chain-ports",
        default=os.environ.get("DOMPET_DEV_CHAIN_PORTS", "8545,8546"),
        help="two ports, comma-separated",
    )
    parser.add_argument(
        "--btc-port",
        type=int,
        default=int(os.environ.get("DOMPET_DEV_BTC_RPC_PORT", "18443")),
        help="btcd's RPC port",
    )
    parser.add_argument(
        "--btc-block-s",
        type=float,
        default=float(os.environ.get("DOMPET_DEV_BTC_BLOCK_S", "0")),
        help="mine a Bitcoin block every this many seconds (0: only when asked, e.g. with btcctl generate)",
    )
    parser.add_argument(
        "--bundler-ports",
        default=os.environ.get("DOMPET_DEV_BUNDLER_PORTS"),
        help=f"two ports for the Alto bundlers, comma-separated (default {DEFAULT_BUNDLER_PORTS}, or free ones)",
    )
    parser.add_argument("--state-dir", type=Path, default=ROOT / ".local")
    args = parser.parse_args(argv)
    chain_ports = [int(p) for p in args.chain_ports.split(",")]
    if len(chain_ports) != len(NETWORKS):
        parser.error(f"--chain-ports needs {len(NETWORKS)} ports")
    aux_target = args.aux_low_water + 4 if args.aux_target is None else args.aux_target
    if not 0 <= args.aux_low_water <= aux_target:
        parser.error("--aux-low-water must be between 0 and --aux-target")
    bundler_ports = _bundler_ports(args.bundler_ports)
    if len(bundler_ports) != len(NETWORKS):
        parser.error(f"--bundler-ports needs {len(NETWORKS)} ports")

    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())

    state_dir: Path = args.state_dir.resolve()
    logs = state_dir / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    (state_dir / "stack.json").unlink(missing_ok=True)

    with ExitStack() as running:
        env = _aws_env(args.moto_port, state_dir)
        os.environ.update(env)  # this process bootstraps, seeds and runs the workers against moto
        running.callback(_say, "stopped")

        _say(f"moto on 127.0.0.1:{args.moto_port}")
        running.enter_context(_MotoServer(args.moto_port))

        # Resources before the chains: the paymasters are deployed for the service's KMS signing key.
        from devtools import bootstrap

        bootstrap.create_resources(STAGE, REGION)

        # Then the chains: the networks registry they produce is a setting the service validates at start.
        from devtools import aa, bitcoin_node, chain

        _say("compiling test contracts")
        chain.compile_contracts()
        networks: list[dict[str, Any]] = []
        for (name, chain_id), port in zip(NETWORKS, chain_ports, strict=True):
            anvil = chain.start_anvil(port, chain_id, log_path=logs / f"anvil-{name}.log")
            running.callback(anvil.stop)
            tokens = chain.deploy_test_contracts(anvil.rpc_url)
            core = aa.deploy_core(anvil.rpc_url)
            networks.append(
                {"kind": "evm", "name": name, "chainId": chain_id, "rpcUrl": anvil.rpc_url, "tokens": tokens, **core}
            )
            _say(f"{name}: chain {chain_id} at {anvil.rpc_url}, tokens {tokens}, {core}")
        btcd = bitcoin_node.Btcd(args.btc_port, state_dir=state_dir / "btcd", log_path=logs / "btcd.log")
        running.callback(btcd.stop)
        height = btcd.mine_until_segwit()
        btcd.mine_every(args.btc_block_s)
        bitcoin = {
            "name": BITCOIN_NETWORK,
            "kind": "bitcoin",
            "chainId": BITCOIN_CHAIN_ID,
            "rpcUrl": btcd.rpc_url,
            "rpcUser": btcd.rpc_user,
            "rpcPassword": btcd.rpc_password,
            "miner": {"address": bitcoin_node.MINER_ADDRESS, "wif": bitcoin_node.MINER_WIF},
        }
        every = f", a block every {args.btc_block_s:g} s" if args.btc_block_s > 0 else ""
        _say(f"{BITCOIN_NETWORK}: btcd at {btcd.rpc_url} height {height} (segwit active{every})")
        # Settings (which the signer lookup reads) need a networks file; the full one follows below.
        _write_networks(state_dir / "networks.json", networks, bitcoin)
        signer = _paymaster_signer()
        for network, port in zip(networks, bundler_ports, strict=True):
            name, rpc_url = network["name"], network["rpcUrl"]
            network["paymaster"] = aa.deploy_paymaster(rpc_url, signer)
            network["paymasterV08"] = aa.deploy_paymaster(rpc_url, signer, version="0.8")
            network["poolAddress"] = aa.pool_address(rpc_url)
            alto = aa.start_alto(rpc_url, port, log_path=logs / f"alto-{name}.log")
            running.callback(alto.stop)
            network["bundlerUrl"] = alto.url
            paymasters = f"{network['paymaster']} (v0.7), {network['paymasterV08']} (v0.8)"
            _say(f"{name}: paymasters {paymasters} (signer {signer}), bundler {alto.url}")
        _write_networks(state_dir / "networks.json", networks, bitcoin)
        _forget_settings()

        bootstrap.initialise()

        # Key material for new wallets. Real sets take minutes each (safe primes); the local stack
        # seeds the pool from the crate's INSECURE fixture primes (cached in .cache/insecure-aux), and its
        # filler keeps it above the low-water mark from there (generating more into the cache when used up).
        from devtools import aux_cache

        _say(f"aux-info pool: {args.aux_sets} insecure local sets (first run ≈ 17 s each, then cached)")
        aux_filler = aux_cache.LocalAuxFiller(args.aux_low_water, aux_target, say=_say)
        aux_filler.seed(args.aux_sets)
        aux_filler.start()
        running.callback(aux_filler.stop)
        if aux_filler.running:
            _say(f"aux filler: keeps ≥ {args.aux_low_water} ready sets, topping up to {aux_target}")

        from chalicelib.tenancy import service

        demo = service.create_tenant("Demo")
        from chalicelib.console import accounts, audit
        from chalicelib.console.models import Role

        _, invite_token = accounts.invite(audit.operator(demo.organizationId), None, Role.ADMIN)

        from app import app
        from devtools.workers import WorkerRunner

        workers = WorkerRunner(app, region=REGION, periods=LOCAL_PERIODS, skipped=LOCAL_SKIPPED)
        workers.start()
        running.callback(workers.stop)
        for line in workers.describe():
            _say(f"worker: {line}")

        api_url = f"http://127.0.0.1:{args.api_port}"
        api = _chalice_local(args.api_port, logs / "chalice.log")
        running.callback(_terminate, api)
        _wait_healthy(api_url, api, stop)
        if stop.is_set():
            return 130

        stack = {
            "apiUrl": api_url,
            "networks": [*networks, bitcoin],  # each with its `kind`: evm, bitcoin
            "demo": demo.model_dump(),
            "consoleInvite": f"{api_url}/console/invite/{invite_token}",
            "awsEndpointUrl": env["AWS_ENDPOINT_URL"],
            "stage": STAGE,
        }
        (state_dir / "stack.json").write_text(json.dumps(stack, indent=2))
        _say(f"console: the demo organization's first admin joins at {stack['consoleInvite']} (once, 24 h)")
        _say(f"ready: {api_url}/health, docs at {api_url}/docs; stack in {state_dir / 'stack.json'}; Ctrl-C stops")

        while not stop.is_set():
            if api.poll() is not None:
                _say(f"chalice local exited with {api.returncode}; see {logs / 'chalice.log'}")
                return 1
            stop.wait(1)
    return 0


def _aws_env(moto_port: int, state_dir: Path) -> dict[str, str]:
    return {
        "AWS_ENDPOINT_URL": f"http://127.0.0.1:{moto_port}",
        "AWS_ACCESS_KEY_ID": "local",
        "AWS_SECRET_ACCESS_KEY": "local",
        "AWS_DEFAULT_REGION": REGION,
        "AWS_REGION": REGION,
        "DOMPET_STAGE": STAGE,
        "DOMPET_NETWORKS_FILE": str(state_dir / "networks.json"),
        # The cosigner and user party run as threads of the API process, with the same JSON payloads.
        "DOMPET_PARTY_TRANSPORT": "in_process",
        # Local webhook receivers listen on loopback, which production refuses (docs/webhooks.md).
        "DOMPET_WEBHOOK_ALLOWLIST": "127.0.0.1/32",
        # Short retries so the retry path can be watched: the first three attempts within a minute.
        "DOMPET_WEBHOOK_RETRY_SCHEDULE_S": "5,10,20,60,300",
        # A small presignature stock per wallet (each costs ≈ 2 s of proofs on this machine's two cores).
        "DOMPET_PRESIGN_POOL_FLOOR": os.environ.get("DOMPET_PRESIGN_POOL_FLOOR", "1"),
        "DOMPET_PRESIGN_POOL_CEILING": os.environ.get("DOMPET_PRESIGN_POOL_CEILING", "16"),
        # One watcher pass per run, runs every few seconds (LOCAL_PERIODS) on the watcher's own worker thread.
        "DOMPET_WATCH_LOOP_S": "0",
    }


class _MotoServer:
    def __init__(self, port: int) -> None:
        import logging

        from moto.server import ThreadedMotoServer

        from devtools import moto_patches

        moto_patches.kms_signs_digests()  # the paymaster signer signs digests, as AWS KMS does
        moto_patches.dynamodb_requests_are_atomic()  # each DynamoDB request one indivisible step, as on AWS
        moto_patches.dynamodb_transactions_back_up_items()
        moto_patches.dynamodb_refuses_oversized_keys()  # reads with a key over DynamoDB's size fail, as on AWS
        moto_patches.sqs_receives_without_rereading_the_queue()
        logging.getLogger("werkzeug").setLevel(logging.WARNING)  # one line per AWS call is noise here
        self.server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)

    def __enter__(self) -> _MotoServer:
        self.server.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.stop()


def _bundler_ports(value: str | None) -> list[int]:
    """Ports given (flag or DOMPET_DEV_BUNDLER_PORTS) must be free; the defaults give way to free ones,
    so a second stack (the devstack test next to a running `make dev`) still starts."""
    from devtools import chain

    if value:
        return [int(p) for p in value.split(",")]
    return [p if chain._port_is_free(p) else chain.free_port() for p in map(int, DEFAULT_BUNDLER_PORTS.split(","))]


def _paymaster_signer() -> str:
    """The address the paymasters accept signatures from: the service's KMS paymaster key (in moto here)."""
    from chalicelib.evm.kms_signer import KmsSigner

    return KmsSigner("paymaster-signer").address


def _forget_settings() -> None:
    """Settings and the registry are cached per process: reload them from the complete networks file."""
    from chalicelib.platform import networks, settings

    settings.load_settings.cache_clear()
    networks.registry.cache_clear()


def _write_networks(path: Path, networks: list[dict[str, Any]], bitcoin: dict[str, Any]) -> None:
    """The networks registry the service reads (DOMPET_NETWORKS_FILE); smart-account fields once known."""
    entries = []
    for n in networks:
        entry: dict[str, Any] = {
            "kind": "evm",
            "name": n["name"],
            "chainId": n["chainId"],
            "rpcUrls": [n["rpcUrl"]],
            "nativeSymbol": "ETH",
            "nativeDecimals": 18,
            "confirmations": 1,
            "tokens": n["tokens"],
            "maxFeePerGasCeiling": LOCAL_FEE_CEILING_WEI,
        }
        if "bundlerUrl" in n:  # the service wants all of these or none
            entry.update(
                {
                    "entryPoint": n["entryPoint"],
                    "accountFactory": n["accountFactory"],
                    "paymaster": n["paymaster"],
                    "entryPointV08": n["entryPointV08"],
                    "eip7702Account": n["eip7702Account"],
                    "paymasterV08": n["paymasterV08"],
                    "bundlerUrls": [n["bundlerUrl"]],
                    "poolAddress": n["poolAddress"],
                    "usdtDecimals": 6,  # tokens.usdt is TestUSDT
                    "nativeToGasTankRate": NATIVE_TO_GAS_TANK_RATE,
                    "clientFeeBps": 0,
                    "serviceFeeBps": 0,
                    # Custody deposit addresses are accounts of the factory: the native coin, usdt and erc20.
                    "custodyTokens": [
                        {"tokenCode": "eth", "symbol": "ETH", "decimals": 18, "tokenAddress": ""},
                        {"tokenCode": "usdt", "symbol": "USDT", "decimals": 6, "tokenAddress": n["tokens"]["usdt"]},
                        {"tokenCode": "erc20", "symbol": "DTK", "decimals": 18, "tokenAddress": n["tokens"]["erc20"]},
                    ],
                }
            )
        entries.append(entry)
    entries.append(_bitcoin_registry_entry(bitcoin))
    # Write-then-rename: the service may read it while a restart rewrites it.
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({"networks": entries}, indent=2))
    tmp.replace(path)


def _bitcoin_registry_entry(bitcoin: dict[str, Any]) -> dict[str, Any]:
    """The btcd node as a custody network (BTC only)."""
    return {
        "kind": "bitcoin",
        "name": bitcoin["name"],
        "chainId": BITCOIN_CHAIN_ID,
        "chain": "regtest",
        "rpcUrls": [bitcoin["rpcUrl"]],
        "rpcUser": bitcoin["rpcUser"],
        "rpcPassword": bitcoin["rpcPassword"],  # a node on this machine, with a password made for this run
        "confirmations": 2,
        "feeRateBounds": {"min": 1, "max": 100},
        "custodyTokens": [{"tokenCode": "btc", "symbol": "BTC", "decimals": 8}],
    }


def _chalice_local(port: int, log_path: Path) -> subprocess.Popen[bytes]:
    log = log_path.open("ab")
    # `chalice local` without autoreload (it watches the whole tree, and the logs under .local change all the
    # time), answering an unknown path with the envelope as API Gateway's gateway responses do (devtools/local_api.py).
    # Its own process group, so that a stop reaches everything it started; the stack's session, so that Linux's
    # autogroup scheduling weighs the API and the workers' background threads (niced: chalicelib/platform/priority.py)
    # against each other rather than as two equal groups.
    return subprocess.Popen(
        [sys.executable, "-m", "devtools.local_api", "--host", "127.0.0.1", "--port", str(port), "--stage", STAGE],
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
        process_group=0,
    )


def _terminate(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is not None:
        return
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def _wait_healthy(api_url: str, api: subprocess.Popen[bytes], stop: threading.Event, timeout_s: float = 90) -> None:
    deadline = time.monotonic() + timeout_s
    while not stop.is_set():
        if api.poll() is not None:
            raise SystemExit(f"chalice local exited with {api.returncode} before becoming healthy")
        try:
            with urllib.request.urlopen(f"{api_url}/health", timeout=5) as response:  # noqa: S310 - loopback
                if response.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        if time.monotonic() > deadline:
            raise SystemExit(f"{api_url}/health did not answer 200 within {timeout_s:.0f} s")
        stop.wait(0.5)


def _say(message: str) -> None:
    print(f"[dompet] {message}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
