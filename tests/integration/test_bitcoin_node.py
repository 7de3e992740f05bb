"""The local Bitcoin node (devtools/bitcoin_node.py): btcd in regtest, its miner, fund(), and its shutdown."""

from __future__ import annotations

import json
import os
import time

import pytest
from embit import ec, script
from embit.networks import NETWORKS

from chalicelib.platform.networks import BitcoinNetwork, Registry
from devtools import bitcoin_node, devstack
from devtools.bitcoin_node import MINER_ADDRESS, MINER_WIF, SEGWIT_HEIGHT, Btcd, BtcdRpcError
from devtools.chain import ChainError, _port_is_free, free_port

pytestmark = pytest.mark.integration

REGTEST = NETWORKS["regtest"]


def p2wpkh_address() -> str:
    return script.p2wpkh(ec.PrivateKey(os.urandom(32)).get_public_key()).address(REGTEST)


def sats(btc: float) -> int:
    return round(btc * 100_000_000)


def test_the_miner_key_is_the_published_one():
    key = ec.PrivateKey.from_wif(MINER_WIF)
    assert script.p2pkh(key.get_public_key()).address(REGTEST) == MINER_ADDRESS
    assert MINER_ADDRESS.startswith(("m", "n"))  # P2PKH on a test network


def test_the_node_comes_up_mined_past_segwit_activation(btc_node):
    info = btc_node.rpc("getblockchaininfo")
    assert info["chain"] == "regtest"
    assert info["blocks"] >= SEGWIT_HEIGHT
    assert info["bip9_softforks"]["segwit"]["status"] == "active"
    block_1 = btc_node.rpc("getblock", btc_node.rpc("getblockhash", 1), 2)
    coinbase = block_1["rawtx"][0]  # btcd puts verbose transactions under "rawtx"
    assert coinbase["vout"][0]["scriptPubKey"]["address"] == MINER_ADDRESS
    # Mature: a transaction spending it may enter the next block.
    assert btc_node.rpc("gettxout", coinbase["txid"], 0, True)["confirmations"] >= bitcoin_node.COINBASE_MATURITY


def test_rpc_errors_are_raised(btc_node):
    with pytest.raises(BtcdRpcError) as raised:
        btc_node.rpc("getblockhash", 10**6)
    assert raised.value.code == -1 and "out of range" in raised.value.message


def test_fund_pays_a_p2wpkh_address_seen_after_one_block(btc_node):
    address = p2wpkh_address()
    txid = btc_node.fund(address, 123_456)
    assert txid in btc_node.rpc("getrawmempool")
    [block] = btc_node.generate(1)

    tx = btc_node.rpc("getrawtransaction", txid, 1)
    assert tx["blockhash"] == block and tx["confirmations"] == 1
    [paid] = [o for o in tx["vout"] if o["scriptPubKey"].get("address") == address]
    assert sats(paid["value"]) == 123_456 and paid["scriptPubKey"]["type"] == "witness_v0_keyhash"
    output = btc_node.rpc("gettxout", txid, paid["n"], True)
    assert sats(output["value"]) == 123_456 and output["confirmations"] == 1 and not output["coinbase"]
    # The change goes back to the miner; the fee is at least 1000 sat.
    spent = sum(sats(btc_node.rpc("getrawtransaction", i["txid"], 1)["vout"][i["vout"]]["value"]) for i in tx["vin"])
    change = sum(sats(o["value"]) for o in tx["vout"] if o["scriptPubKey"].get("address") == MINER_ADDRESS)
    assert spent - 123_456 - change >= 1000


def test_two_funds_in_a_row_do_not_conflict(btc_node):
    first, second = p2wpkh_address(), p2wpkh_address()
    a = btc_node.fund(first, 50_000)
    b = btc_node.fund(second, sats(60))  # more than one coinbase holds: two inputs
    assert a != b and {a, b} <= set(btc_node.rpc("getrawmempool"))
    inputs = [(i["txid"], i["vout"]) for t in (a, b) for i in btc_node.rpc("getrawtransaction", t, 1)["vin"]]
    assert len(inputs) == len(set(inputs)) == 3
    btc_node.generate(1)
    assert btc_node.rpc("getrawtransaction", a, 1)["confirmations"] == 1
    assert btc_node.rpc("getrawtransaction", b, 1)["confirmations"] == 1
    assert sats(btc_node.rpc("gettxout", b, 0, True)["value"]) == sats(60)


def test_fund_refuses_an_address_of_another_network(btc_node):
    key = ec.PrivateKey(os.urandom(32)).get_public_key()
    for address in (script.p2wpkh(key).address(NETWORKS["main"]), script.p2pkh(key).address(NETWORKS["main"]), "x"):
        with pytest.raises(ChainError, match="not a regtest address"):
            btc_node.fund(address, 10_000)


def test_the_dev_stack_registry_entry_is_a_valid_bitcoin_network(btc_node, tmp_path):
    path = tmp_path / "networks.json"
    bitcoin = {
        "name": devstack.BITCOIN_NETWORK,
        "rpcUrl": btc_node.rpc_url,
        "rpcUser": btc_node.rpc_user,
        "rpcPassword": btc_node.rpc_password,
    }
    devstack._write_networks(path, [], bitcoin)
    [entry] = Registry.model_validate(json.loads(path.read_text())).bitcoin
    assert isinstance(entry, BitcoinNetwork)
    assert (entry.name, entry.chainId, entry.chain, entry.confirmations) == ("bitcoin-regtest", 18443, "regtest", 2)
    assert [t.tokenCode for t in entry.custodyTokens] == ["btc"]
    assert entry.rpc_headers()["Authorization"] == btc_node._auth


def test_stop_leaves_no_process_and_the_block_timer_mines():
    port = free_port()
    node = Btcd(port)
    assert node.height() == 0  # btcd starts every regtest chain anew
    node.mine_every(0.1)
    deadline = time.monotonic() + 10
    while node.height() < 3:
        assert time.monotonic() < deadline, "the block timer mined nothing"
        time.sleep(0.05)
    pid, state_dir = node.pid, node.state_dir
    node.stop()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    assert not state_dir.exists() and _port_is_free(port)
    assert node.log_tail() == ""
    node.stop()  # idempotent
    with pytest.raises(OSError):
        node.rpc("getblockcount", timeout_s=2)


def test_a_port_in_use_is_refused(btc_node):
    with pytest.raises(ChainError, match="already in use"):
        Btcd(btc_node.rpc_port)


def test_a_refused_payment_leaves_its_coinbase_to_the_next(btc_node):
    next_height = btc_node._next_coinbase_height  # where fund() looks for an unspent coinbase next
    with pytest.raises(BtcdRpcError, match="dust"):
        btc_node.fund(p2wpkh_address(), 100)  # btcd refuses it
    txid = btc_node.fund(p2wpkh_address(), 10_000)
    [spent] = btc_node.rpc("getrawtransaction", txid, 1)["vin"]
    assert spent["txid"] == btc_node._coinbase_txid(next_height)


def test_without_go_a_missing_build_says_so(monkeypatch):
    pinned = bitcoin_node.ensure_btcd() and bitcoin_node.BTCD_VERSION
    monkeypatch.setattr(bitcoin_node, "BTCD_VERSION", "v0.0.0")  # the binaries are of another version
    monkeypatch.setattr(bitcoin_node.shutil, "which", lambda name: None)
    with pytest.raises(ChainError, match=r"go is not installed.*Go >= 1\.22"):
        bitcoin_node.ensure_btcd()
    assert bitcoin_node._stamp() == pinned  # the pinned build is left as it was
