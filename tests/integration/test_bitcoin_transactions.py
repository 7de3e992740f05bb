"""chalicelib/bitcoin against a real btcd in regtest: the service's own client (rpc.py) reads the node, and a
transaction built by transactions.py, hashed per input (BIP 143 for P2WPKH, legacy for P2PKH) and assembled from
external signatures (a plain key stands in for the threshold signer), is accepted, mined and pays exactly what it
says. The node is the oracle for the signing hashes: a wrong one is a refused signature."""

from __future__ import annotations

import pytest
from eth_keys import keys as eth_keys

from chalicelib.bitcoin import addresses, rpc
from chalicelib.bitcoin.transactions import Pay, Spend, UnsignedBitcoinTx
from chalicelib.platform.networks import BitcoinNetwork
from chalicelib.platform.transport import RpcError

pytestmark = pytest.mark.integration

KEYS = {kind: eth_keys.PrivateKey(bytes([n]) * 32) for n, kind in ((7, "native-segwit"), (8, "legacy"))}


@pytest.fixture(scope="module")
def network(btc_node) -> BitcoinNetwork:
    return BitcoinNetwork(
        kind="bitcoin",
        name="bitcoin-regtest",
        chainId=18443,
        chain="regtest",
        rpcUrls=(btc_node.rpc_url,),
        rpcUser=btc_node.rpc_user,
        rpcPassword=btc_node.rpc_password,
        feeRateBounds={"min": 2, "max": 50},
    )


def _public(kind: str) -> bytes:
    return KEYS[kind].public_key.to_compressed_bytes()


def _funded(btc_node, network, kind: str, sats: int) -> Spend:
    address = addresses.deposit_address(_public(kind), kind, "regtest")  # type: ignore[arg-type]
    txid = btc_node.fund(address, sats)
    btc_node.generate(1)
    found = rpc.transaction(network, txid)
    assert found is not None and found["confirmations"] == 1
    vout = next(o["n"] for o in found["vout"] if o["scriptPubKey"].get("address") == address)
    assert rpc.unspent(network, txid, vout)["confirmations"] == 1
    script = addresses.script_of(address, "regtest")
    return Spend(txid, vout, sats, script, _public(kind))


def test_a_transaction_spending_segwit_and_legacy_outputs_is_accepted_and_pays_exactly(btc_node, network):
    segwit = _funded(btc_node, network, "native-segwit", 150_000)
    legacy = _funded(btc_node, network, "legacy", 70_000)
    recipient = "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080"
    change = addresses.script_of(
        addresses.deposit_address(_public("native-segwit"), "native-segwit", "regtest"), "regtest"
    )
    rate = rpc.fee_rate(network)
    assert network.feeRateBounds.min <= rate <= network.feeRateBounds.max
    draft = UnsignedBitcoinTx(
        (segwit, legacy), (Pay(addresses.script_of(recipient, "regtest"), 100_000), Pay(change, 1))
    )
    fee = draft.vsize() * rate
    tx = UnsignedBitcoinTx(draft.inputs, (draft.outputs[0], Pay(change, 220_000 - 100_000 - fee)))
    signatures = [
        KEYS["native-segwit" if spend.segwit else "legacy"].sign_msg_hash(tx.sighash(i)).to_bytes()
        for i, spend in enumerate(tx.inputs)
    ]
    signed = tx.assemble(signatures)
    assert rpc.broadcast(network, signed.raw) == signed.txid
    btc_node.generate(1)
    mined = rpc.transaction(network, signed.txid)
    assert mined is not None and mined["confirmations"] == 1
    paid = {o["scriptPubKey"]["address"]: rpc.sats(o["value"]) for o in mined["vout"]}
    assert paid[recipient] == 100_000
    assert sum(paid.values()) == 220_000 - fee == sum(s.value for s in tx.inputs) - tx.fee
    assert mined["vsize"] <= tx.vsize()
    assert rpc.unspent(network, segwit.txid, segwit.vout) is None  # spent


def test_a_signature_over_another_input_s_hash_is_refused_by_the_node(btc_node, network):
    spend = _funded(btc_node, network, "native-segwit", 50_000)
    tx = UnsignedBitcoinTx((spend,), (Pay(addresses.script_of(btc_node_miner(btc_node), "regtest"), 40_000),))
    other = UnsignedBitcoinTx((spend,), (Pay(tx.outputs[0].script_pubkey, 39_000),))
    wrong = KEYS["native-segwit"].sign_msg_hash(other.sighash(0)).to_bytes()
    with pytest.raises(RpcError):
        rpc.broadcast(network, tx.assemble([wrong]).raw)
    right = KEYS["native-segwit"].sign_msg_hash(tx.sighash(0)).to_bytes()
    assert rpc.broadcast(network, tx.assemble([right]).raw) == tx.assemble([right]).txid


def test_the_client_reads_blocks_and_a_wrong_password_is_unreachable(btc_node, network):
    head = rpc.head(network)
    (hash_,) = rpc.block_hashes(network, [head])
    block = rpc.block_at(network, hash_)
    assert block.height == head and block.outputs  # at least the coinbase
    assert rpc.block_hashes(network, [head + 1000]) == [None]
    from chalicelib.platform.errors import ApiError

    locked_out = network.model_copy(update={"rpcPassword": "wrong"})
    with pytest.raises(ApiError) as refused:
        rpc.head(locked_out)
    assert refused.value.code == "UPSTREAM_UNAVAILABLE"


def btc_node_miner(btc_node) -> str:
    from devtools import bitcoin_node

    return bitcoin_node.MINER_ADDRESS
