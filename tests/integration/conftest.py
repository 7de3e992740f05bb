"""Shared integration fixtures: two local chains with ERC-4337 v0.7 and an Alto bundler each, and a Bitcoin node.

Session-scoped and not autouse: only a session with a test that requests `aa_chains` starts them
(two anvils and two bundlers, about 10 s), once for all such tests; likewise `btc_node` (btcd, under a second).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from web3 import Web3

from devtools import aa, bitcoin_node, chain
from tests.support.custody import CONFIRMATIONS as CUSTODY_CONFIRMATIONS
from tests.support.family_s import call

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


@pytest.fixture(scope="session")
def btc_node() -> Iterator[bitcoin_node.Btcd]:
    """btcd in regtest, mined until SegWit is active (so the first coinbases are mature: fund() pays from them)."""
    with bitcoin_node.Btcd(chain.free_port()) as node:
        node.mine_until_segwit()
        yield node


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


@pytest.fixture
def btc_custody(custody, btc_node, aux_sets, monkeypatch):
    """The custody fixture's networks plus btcd as `bitcoin-regtest` (its coin), and a third aux set: a pool's
    first account now makes its EVM and its Bitcoin key."""
    from chalicelib.platform import networks, settings

    path = settings.load_settings().networks_file
    registry = json.loads(path.read_text())
    registry["networks"].append(
        {
            "kind": "bitcoin",
            "name": "bitcoin-regtest",
            "chainId": 18443,
            "chain": "regtest",
            "rpcUrls": [btc_node.rpc_url],
            "rpcUser": btc_node.rpc_user,
            "rpcPassword": btc_node.rpc_password,
            "confirmations": 2,
            "feeRateBounds": {"min": 1, "max": 100},
            "custodyTokens": [{"tokenCode": "btc", "symbol": "BTC", "decimals": 8}],
        }
    )
    path.write_text(json.dumps(registry))
    networks.registry.cache_clear()
    aux_sets(3)
    return custody
