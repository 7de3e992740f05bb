"""chalicelib/bitcoin without a node: addresses on each chain, destinations of every standard kind (and the
refusal of other chains' and malformed ones), the wire form the parties are shown, and the signed form's size."""

from __future__ import annotations

import pytest
from embit import ec, script
from embit.networks import NETWORKS
from eth_keys import keys as eth_keys

from chalicelib.bitcoin import addresses
from chalicelib.bitcoin.transactions import Pay, Spend, UnsignedBitcoinTx

# The generator point G as a compressed key: BIP 173's P2WPKH example and its well-known P2PKH address.
G = bytes.fromhex("0279BE667EF9DCBBAC55A06295CE870B07029BFCDB2DCE28D959F2815B16F81798")
TXID = "aa" * 32


def test_deposit_addresses_of_a_key_on_each_chain():
    assert addresses.deposit_address(G, "native-segwit", "main") == "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4"
    assert addresses.deposit_address(G, "native-segwit", "regtest") == "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080"
    assert addresses.deposit_address(G, "legacy", "main") == "1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH"
    assert addresses.deposit_address(G, "legacy", "regtest").startswith(("m", "n"))


def _every_kind(chain: str) -> dict[str, str]:
    one, two = (ec.PrivateKey(bytes([b]) * 32).get_public_key() for b in (1, 2))
    multisig = script.multisig(1, [one, two])
    built = {
        "p2wpkh": script.p2wpkh(one),
        "p2pkh": script.p2pkh(one),
        "p2sh": script.p2sh(multisig),
        "p2wsh": script.p2wsh(multisig),
        "p2tr": script.p2tr(two),
    }
    return {kind: s.address(NETWORKS[chain]) for kind, s in built.items()}


@pytest.mark.parametrize("kind", ["p2wpkh", "p2pkh", "p2sh", "p2wsh", "p2tr"])
def test_every_standard_destination_is_accepted_on_its_own_chain_only(kind):
    on_regtest = _every_kind("regtest")[kind]
    assert addresses.kind_of(addresses.script_of(on_regtest, "regtest")) == kind
    assert addresses.address_of(addresses.script_of(on_regtest, "regtest"), "regtest") == on_regtest
    with pytest.raises(addresses.InvalidAddressError):
        addresses.script_of(_every_kind("main")[kind], "regtest")
    if kind not in ("p2pkh", "p2sh"):  # testnet and regtest share base58 prefixes; bech32 ones differ
        with pytest.raises(addresses.InvalidAddressError):
            addresses.script_of(_every_kind("test")[kind], "regtest")


@pytest.mark.parametrize(
    "bad", ["", "bcrt1q", "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt081", "0x" + "11" * 20, "1" * 90, "n" * 34]
)
def test_a_malformed_address_is_refused(bad):
    with pytest.raises(addresses.InvalidAddressError):
        addresses.script_of(bad, "regtest")


def _spend(secret: int, segwit: bool, value: int = 50_000, vout: int = 0) -> Spend:
    public = eth_keys.PrivateKey(secret.to_bytes(32, "big")).public_key.to_compressed_bytes()
    kind = "native-segwit" if segwit else "legacy"
    return Spend(TXID, vout, value, bytes(addresses.deposit_script(public, kind).data), public)


def test_the_wire_form_round_trips_and_each_input_has_its_own_signing_hash():
    tx = UnsignedBitcoinTx(
        inputs=(_spend(1, True), _spend(2, False, vout=1)),
        outputs=(Pay(addresses.script_of(_every_kind("regtest")["p2tr"], "regtest"), 90_000),),
    )
    again = UnsignedBitcoinTx.from_wire(tx.wire())
    assert again == tx and tx.fee == 10_000
    assert len({tx.sighash(0), tx.sighash(1)}) == 2
    changed = UnsignedBitcoinTx(inputs=tx.inputs, outputs=(Pay(tx.outputs[0].script_pubkey, 89_999),))
    assert changed.sighash(0) != tx.sighash(0) and changed.sighash(1) != tx.sighash(1)


def test_a_signed_transaction_is_no_larger_than_its_estimate():
    tx = UnsignedBitcoinTx(
        inputs=(_spend(1, True), _spend(2, False, vout=1)), outputs=(Pay(b"\x00\x14" + b"\x01" * 20, 1),)
    )
    signatures = []
    for index, secret in enumerate((1, 2)):
        signature = eth_keys.PrivateKey(secret.to_bytes(32, "big")).sign_msg_hash(tx.sighash(index))
        signatures.append(signature.to_bytes())
    signed = tx.assemble(signatures)
    assert 0 <= tx.vsize() - signed.vsize <= 2
    assert signed.txid == UnsignedBitcoinTx.from_wire(tx.wire()).assemble(signatures).txid


@pytest.mark.parametrize(
    ("change", "error"),
    [
        (lambda w: w["inputs"].append(dict(w["inputs"][0])), "spent twice"),
        (lambda w: w["outputs"][0].update(value="200000"), "more than the inputs"),
        (lambda w: w["inputs"][0].update(publicKey="02" + "11" * 32), "not a valid public key"),
        (lambda w: w["inputs"][0].update(publicKey="03" + w["inputs"][0]["publicKey"][2:]), "script"),
        (lambda w: w["inputs"][0].update(scriptPubKey="6a"), "script"),
        (lambda w: w["outputs"][0].update(value="0"), "positive"),
        (lambda w: w.pop("inputs"), "malformed"),
    ],
)
def test_a_malformed_wire_form_is_refused(change, error):
    wire = UnsignedBitcoinTx(inputs=(_spend(1, True),), outputs=(Pay(b"\x00\x14" + b"\x01" * 20, 1_000),)).wire()
    change(wire)
    with pytest.raises(ValueError, match=error):
        UnsignedBitcoinTx.from_wire(wire)
