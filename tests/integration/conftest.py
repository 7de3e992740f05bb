"""Shared integration fixtures: two local chains with ERC-4337 v0.7 and an Alto bundler each.

Session-scoped and not autouse: only a session with a test that requests `aa_chains` starts them
(two anvils and two bundlers, about 10 s), once for all such tests.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from web3 import Web3

from devtools import aa, chain
from devtools.chain import free_port
from tests.support.custody import CONFIRMATIONS as CUSTODY_CONFIRMATIONS
from tests.support.family_s import call
from tests.support.scripts import ROOT

AA_NETWORKS = (("local-a", 31337), ("local-b", 31338))


class AAChains(list[dict[str, Any]]):
    """The chains, each {name, chainId, rpc, tokens, entryPoint, accountFactory, paymaster, bundlerUrl,
    poolAddress}, and write_networks() for a registry the service reads (DOMPET_NETWORKS_FILE)."""

    def __init__(self) -> None:
        super().__init__()
        # name -> the running processes, for tests that inspect them (not part of the entries).
        self.processes: dict[str, tuple[chain.Anvil, aa.Alto]] = {}

    def by_name(self, name: str) -> dict[str, Any]:
        return next(c for c in self if c["name"] == name)

    def write_networks(self, path: Path, overrides: dict[str, dict[str, Any]] | None = None) -> Path:
        """Write the registry to path; overrides[name] replaces fields of that entry (e.g. its paymaster)."""
        entries = []
        for c in self:
            entry = {
                "name": c["name"],
                "chainId": c["chainId"],
                "rpcUrls": [c["rpc"]],
                "nativeSymbol": "ETH",
                "nativeDecimals": 18,
                "confirmations": 1,
                "tokens": c["tokens"],
                "entryPoint": c["entryPoint"],
                "accountFactory": c["accountFactory"],
                "paymaster": c["paymaster"],
                "bundlerUrls": [c["bundlerUrl"]],
                "poolAddress": c["poolAddress"],
                "usdtDecimals": 6,  # tokens.usdt is TestUSDT
                "nativeToGasTankRate": "2000",
                "clientFeeBps": 0,
                "serviceFeeBps": 0,
            }
            entry.update((overrides or {}).get(c["name"], {}))
            entries.append(entry)
        path.write_text(json.dumps({"networks": entries}, indent=2))
        return path


@pytest.fixture(scope="session")
def aa_chains() -> Iterator[AAChains]:
    """Two anvils (31337, 31338) with the test contracts (usdt18 included), the v0.7 EntryPoint and
    SimpleAccountFactory, a VerifyingPaymaster whose signer is anvil account 1 (tests that need the
    service's KMS signer deploy their own with aa.deploy_paymaster), and one Alto each."""
    chain.compile_contracts()
    chains = AAChains()
    with ExitStack() as running:
        for name, chain_id in AA_NETWORKS:
            anvil = running.enter_context(chain.start_anvil(chain.free_port(), chain_id))
            tokens = chain.deploy_test_contracts(anvil.rpc_url)
            core = aa.deploy_core(anvil.rpc_url)
            signer = Web3(Web3.HTTPProvider(anvil.rpc_url)).eth.accounts[1]
            paymaster = aa.deploy_paymaster(anvil.rpc_url, signer)
            alto = running.enter_context(aa.start_alto(anvil.rpc_url, chain.free_port()))
            chains.append(
                {
                    "name": name,
                    "chainId": chain_id,
                    "rpc": anvil.rpc_url,
                    "tokens": tokens,
                    **core,
                    "paymaster": paymaster,
                    "bundlerUrl": alto.url,
                    "poolAddress": aa.pool_address(anvil.rpc_url),
                }
            )
            chains.processes[name] = (anvil, alto)
        yield chains


@pytest.fixture
def custody(aa_chains, tmp_path, monkeypatch, api, tenant, aux_sets):
    """Both chains as custody networks (eth, usdt, erc20; CUSTODY_CONFIRMATIONS), the watcher starting at the next
    block, two aux sets for custody keys, and `signed(method, path, body)` for Family S calls."""
    from chalicelib.platform import networks, settings

    w3 = {c["chainId"]: Web3(Web3.HTTPProvider(c["rpc"])) for c in aa_chains}
    overrides = {
        c["name"]: {
            "confirmations": CUSTODY_CONFIRMATIONS,
            "custodyStartBlock": w3[c["chainId"]].eth.block_number + 1,
            "custodyTokens": [
                {"tokenCode": "eth", "symbol": "ETH", "decimals": 18, "tokenAddress": ""},
                {"tokenCode": "usdt", "symbol": "USDT", "decimals": 6, "tokenAddress": c["tokens"]["usdt"]},
                {"tokenCode": "erc20", "symbol": "DTK", "decimals": 18, "tokenAddress": c["tokens"]["erc20"]},
            ],
        }
        for c in aa_chains
    }
    path = aa_chains.write_networks(tmp_path / "networks.json", overrides)
    monkeypatch.setenv("DOMPET_NETWORKS_FILE", str(path))
    settings.load_settings.cache_clear()
    networks.registry.cache_clear()
    aux_sets(2)

    def signed(method, path_, body=None):
        return call(api, tenant, method, path_, body)

    yield {"w3": w3, "chains": aa_chains, "signed": signed, "tenant": tenant}
    settings.load_settings.cache_clear()
    networks.registry.cache_clear()


# The local stack as `make dev` runs it, for tests/integration/test_devstack*.py: started once per session (it
# makes aux-info sets and deploys two chains); test_ctrl_c_stops_everything ends it and runs after every other
# test (tests/iam_recorder.py orders it).
@pytest.fixture(scope="session")
def stack(tmp_path_factory):
    state = tmp_path_factory.mktemp("stack")
    ports = {"api": free_port(), "moto": free_port(), "chains": [free_port(), free_port()]}
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "DOMPET_"))}
    log = (state / "devstack.out").open("wb")
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "devtools.devstack",
            "--api-port",
            str(ports["api"]),
            "--moto-port",
            str(ports["moto"]),
            "--chain-ports",
            ",".join(map(str, ports["chains"])),
            "--state-dir",
            str(state),
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    stack_file = state / "stack.json"
    deadline = time.monotonic() + 300  # a fresh clone also makes its aux-info sets
    while not stack_file.exists():
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            pytest.fail("local stack did not come up:\n" + (state / "devstack.out").read_text()[-4000:])
        time.sleep(0.5)
    info = json.loads(stack_file.read_text())
    yield {"info": info, "process": process, "ports": ports, "state": state}
    if process.poll() is None:
        process.kill()
        process.wait()
