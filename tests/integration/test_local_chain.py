"""The local chain tooling end to end: two anvils, the test contracts on both, minting on each."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from eth_account import Account
from web3 import Web3
from web3.exceptions import ContractCustomError

from devtools import chain

pytestmark = pytest.mark.integration

CHAIN_IDS = (31337, 31338)


@pytest.fixture(scope="module")
def chains() -> Iterator[dict[int, tuple[chain.Anvil, dict[str, str]]]]:
    """chain id -> (running anvil, deployed addresses); started once for the module."""
    chain.compile_contracts()
    with (
        chain.start_anvil(chain.free_port(), CHAIN_IDS[0]) as a,
        chain.start_anvil(chain.free_port(), CHAIN_IDS[1]) as b,
    ):
        yield {anvil.chain_id: (anvil, chain.deploy_test_contracts(anvil.rpc_url)) for anvil in (a, b)}


def _contract(w3: Web3, address: str, name: str) -> Any:
    return w3.eth.contract(address=Web3.to_checksum_address(address), abi=chain.load_artifact(name)["abi"])


def _transact(w3: Web3, call: Any) -> None:
    receipt = w3.eth.wait_for_transaction_receipt(call.transact({"from": w3.eth.accounts[0]}), timeout=30)
    assert receipt["status"] == 1


def test_deploys_separately_on_each_chain(chains: dict[int, tuple[chain.Anvil, dict[str, str]]]) -> None:
    for anvil, addresses in chains.values():
        assert set(addresses) == set(chain.TEST_CONTRACTS)
        w3 = Web3(Web3.HTTPProvider(anvil.rpc_url))
        assert w3.eth.chain_id == anvil.chain_id
        for address in addresses.values():
            assert Web3.is_checksum_address(address)
            assert w3.eth.get_code(Web3.to_checksum_address(address)), f"no code at {address} on chain {anvil.chain_id}"


@pytest.mark.parametrize("chain_id", CHAIN_IDS)
def test_mint_each_token(chains: dict[int, tuple[chain.Anvil, dict[str, str]]], chain_id: int) -> None:
    anvil, addresses = chains[chain_id]
    w3 = Web3(Web3.HTTPProvider(anvil.rpc_url))
    holder = Account.create().address

    usdt = _contract(w3, addresses["usdt"], "TestUSDT")
    assert (usdt.functions.symbol().call(), usdt.functions.decimals().call()) == ("USDT", 6)
    _transact(w3, usdt.functions.mint(holder, 25 * 10**6))
    assert usdt.functions.balanceOf(holder).call() == 25 * 10**6

    token = _contract(w3, addresses["erc20"], "TestToken")
    assert token.functions.decimals().call() == 18
    _transact(w3, token.functions.mint(holder, 3 * 10**18))
    assert token.functions.balanceOf(holder).call() == 3 * 10**18

    nft = _contract(w3, addresses["erc721"], "TestNFT")
    _transact(w3, nft.functions.mint(holder, 7))
    assert nft.functions.ownerOf(7).call() == holder
    assert nft.functions.balanceOf(holder).call() == 1

    multi = _contract(w3, addresses["erc1155"], "TestMultiToken")
    _transact(w3, multi.functions.mint(holder, 42, 5))
    assert multi.functions.balanceOf(holder, 42).call() == 5
    assert multi.functions.balanceOf(holder, 43).call() == 0


def test_refuses_non_local_chain() -> None:
    chain.compile_contracts()
    with chain.start_anvil(chain.free_port(), 1) as mainnet_id:
        with pytest.raises(chain.ChainError, match="chain 1"):
            chain.deploy_test_contracts(mainnet_id.rpc_url)

        # Bypassing the Python check, the constructor itself reverts with NotALocalChain(1)
        # (web3 surfaces it from the gas estimate that precedes eth_sendTransaction).
        w3 = Web3(Web3.HTTPProvider(mainnet_id.rpc_url))
        artifact = chain.load_artifact("TestUSDT")
        contract = w3.eth.contract(abi=artifact["abi"], bytecode=artifact["bytecode"])
        with pytest.raises(ContractCustomError) as raised:
            contract.constructor().transact({"from": w3.eth.accounts[0]})
        selector = Web3.keccak(text="NotALocalChain(uint256)")[:4].hex()
        assert raised.value.data == "0x" + selector + (1).to_bytes(32, "big").hex()
