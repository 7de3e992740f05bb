"""Custody withdrawals on a Bitcoin network (a real btcd in regtest, the real MPC core and cosigner): the account's
confirmed outputs pay exactly the amount to the destination with the change back to its native SegWit address,
the fee is debited with the amount, each input is signed by the account's child key under the cosigner's own
checks, and the transaction is recorded before its broadcast. Effects are checked on the node
(`getrawtransaction`), in the ledger and in the events."""

from __future__ import annotations

import json
import secrets
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal

import pytest
from embit import ec, script
from embit.networks import NETWORKS

from chalicelib.bitcoin import rpc as bitcoin_rpc
from chalicelib.bitcoin.transactions import Pay, UnsignedBitcoinTx, input_payload
from chalicelib.custody import pool_keys, utxos
from chalicelib.custody.deposits import watcher
from chalicelib.custody.store import get
from chalicelib.custody.withdrawals import bitcoin_sending, bitcoin_spends, worker
from chalicelib.custody.withdrawals import lifecycle as withdrawals
from chalicelib.mpc import cosigner_checks, payloads
from chalicelib.mpc.cosigner_checks import PolicyRefusedError
from chalicelib.platform import aws, networks
from tests.support.custody import create_account, custody_balance, outbox_events

pytestmark = pytest.mark.integration

NETWORK = "bitcoin-regtest"
REGTEST = NETWORKS["regtest"]


def fresh_address(kind="p2wpkh"):
    public = ec.PrivateKey(secrets.token_bytes(32)).get_public_key()
    made = {
        "p2wpkh": script.p2wpkh(public),
        "p2pkh": script.p2pkh(public),
        "p2tr": script.p2tr(public),
        "p2sh": script.p2sh(script.p2wpkh(public)),
        "p2wsh": script.p2wsh(script.p2pkh(public)),
    }[kind]
    return made.address(REGTEST)


def step():
    report = watcher.step(networks.registry().any_by_name(NETWORK))
    assert report is not None
    return report


def funded(btc_custody, btc_node, sub_id, payments):
    """An account whose addresses received `payments` ((addressType, sats), one output each), credited."""
    account = create_account(btc_custody, sub_id)
    wallets = {w["addressType"]: w["address"] for w in account["wallets"] if w["network"] == NETWORK}
    step()
    btc_node.pay([(wallets[address_type], sats) for address_type, sats in payments])
    btc_node.generate(2)
    step()
    return account, wallets


def sats(btc_custody, account, field="activeBalance"):
    found = custody_balance(btc_custody, account["id"], NETWORK, "btc")[field]
    return int(Decimal(found) * 100_000_000)


def request(btc_custody, account, amount, to):
    body = {"accountId": account["id"], "network": NETWORK, "tokenCode": "btc", "to": to, "amount": amount}
    return btc_custody["signed"]("POST", "/api/v1/custody/withdrawals", body)


def run(withdrawal_id, btc_node, rounds=8):
    """What the SQS worker does, with blocks mined in between, until the withdrawal settles."""
    for _ in range(rounds):
        worker.process(withdrawal_id)
        record = get(**withdrawals.key(withdrawal_id))
        if record["status"] in ("success", "failed"):
            return record
        if record["status"] == "sent":
            btc_node.generate(1)
    return get(**withdrawals.key(withdrawal_id))


def test_a_withdrawal_pays_exactly_with_change_back_and_the_fee_debited(btc_custody, btc_node):
    account, wallets = funded(btc_custody, btc_node, "btc-payer", [("native-segwit", 200_000), ("legacy", 100_000)])
    assert sats(btc_custody, account) == 300_000
    destination = fresh_address("p2tr")
    answer = request(btc_custody, account, "0.0025", destination)
    assert answer.status_code == 200, answer.json_body
    created = answer.json_body["data"]
    fee = int(Decimal(created["fee"]) * 100_000_000)
    assert created["status"] == "pending" and created["amountInDecimals"] == "250000" and fee > 0
    assert sats(btc_custody, account) == 300_000 - 250_000 - fee
    assert sats(btc_custody, account, "heldBalance") == 250_000 + fee
    record = get(**withdrawals.key(created["id"]))
    assert len(record["inputs"]) == 2  # one output is not enough: both are spent, legacy one included

    settled = run(created["id"], btc_node)
    assert settled["status"] == "success", settled
    txid = settled["txHash"]
    mined = btc_node.rpc("getrawtransaction", txid, 1)
    outputs = [(out["scriptPubKey"].get("addresses", [None])[0], round(out["value"] * 1e8)) for out in mined["vout"]]
    change = 300_000 - 250_000 - fee
    assert outputs[0] == (destination, 250_000)
    assert outputs[1:] == [(wallets["native-segwit"], change)]
    spent = sum(int(i["value"]) for i in record["inputs"])
    assert spent - sum(v for _, v in outputs) == fee  # the fee is exactly inputs minus outputs
    assert {(i["txid"], i["vout"]) for i in mined["vin"]} == {(i["txid"], int(i["vout"])) for i in record["inputs"]}
    assert sats(btc_custody, account) == change and sats(btc_custody, account, "heldBalance") == 0
    [success] = outbox_events("withdraw.success")
    assert success["data"]["withdrawal"]["txHash"] == txid
    assert success["data"]["transaction"]["blockchainType"] == "bitcoin"
    assert Decimal(str(success["data"]["debit"]["amount"])) == Decimal(250_000 + fee) / 100_000_000
    worker.process(created["id"])  # a duplicate message: nothing more
    assert len(outbox_events("withdraw.success")) == 1

    # The change is the account's, not a deposit; it is what the next withdrawal spends.
    btc_node.generate(1)
    step()
    assert not [
        e for e in outbox_events("deposit.wallet.pending_confirmation") if e["data"]["transaction"]["txHash"] == txid
    ]
    [left] = utxos.available(18443, account["id"])
    assert (left["txid"], int(left["vout"]), int(left["value"])) == (txid, 1, change)
    legacy_destination = fresh_address("p2pkh")
    second = request(btc_custody, account, "0.0001", legacy_destination).json_body["data"]
    assert run(second["id"], btc_node)["status"] == "success"
    paid = btc_node.rpc("getrawtransaction", get(**withdrawals.key(second["id"]))["txHash"], 1)
    assert paid["vin"][0]["txid"] == txid
    assert paid["vout"][0]["scriptPubKey"]["addresses"] == [legacy_destination]


def test_bad_destinations_the_allowlist_and_the_balance_change_nothing(btc_custody, btc_node):
    account, wallets = funded(btc_custody, btc_node, "btc-checks", [("native-segwit", 100_000)])
    for to in (
        "bcrt1qnotanaddress",
        "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4",  # mainnet
        "0x" + "11" * 20,
        wallets["legacy"],  # its own
    ):
        answer = request(btc_custody, account, "0.0001", to)
        assert answer.status_code == 400 and answer.json_body["data"]["code"] == "INVALID_ADDRESS", to
    dust = request(btc_custody, account, "0.000001", fresh_address())
    assert dust.status_code == 400 and dust.json_body["data"]["code"] == "INVALID_AMOUNT"
    over = request(btc_custody, account, "0.001", fresh_address())  # 100 000 sat leave nothing for the fee
    assert over.status_code == 422 and over.json_body["data"]["code"] == "INSUFFICIENT_BALANCE"

    from chalicelib import operator as admin

    tenant = btc_custody["tenant"]
    listed, other = fresh_address(), fresh_address("p2sh")
    base = ["set-withdrawal-allowlist", "--app-id", tenant.appId, "--organization-id", tenant.organizationId]
    assert admin.main([*base, "--address", "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4"]) == 1  # not this chain's
    assert admin.main([*base, "--address", listed]) == 0
    refused = request(btc_custody, account, "0.0002", other)
    assert refused.status_code == 422 and refused.json_body["data"]["code"] == "DESTINATION_NOT_ALLOWED"
    assert sats(btc_custody, account) == 100_000 and outbox_events("withdraw.created") == []
    assert len(utxos.available(18443, account["id"])) == 1
    allowed = request(btc_custody, account, "0.0002", listed)
    assert allowed.status_code == 200, allowed.json_body
    assert run(allowed.json_body["data"]["id"], btc_node)["status"] == "success"


def test_parallel_withdrawals_never_spend_one_output(btc_custody, btc_node):
    account, _ = funded(btc_custody, btc_node, "btc-parallel", [("native-segwit", 100_000)] * 3)
    destinations = [fresh_address() for _ in range(4)]
    with ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(lambda to: request(btc_custody, account, "0.0009", to), destinations))
    accepted = [a.json_body["data"] for a in answers if a.status_code == 200]
    refused = [a.json_body["data"]["code"] for a in answers if a.status_code != 200]
    assert len(accepted) == 3 and refused == ["INSUFFICIENT_BALANCE"]
    records = [get(**withdrawals.key(w["id"])) for w in accepted]
    spent = [(i["txid"], i["vout"]) for r in records for i in r["inputs"]]
    assert len(spent) == len(set(spent)) == 3  # each its own output
    for withdrawal in accepted:
        assert run(withdrawal["id"], btc_node)["status"] == "success"
    for record, withdrawal in zip(records, accepted, strict=True):
        mined = btc_node.rpc("getrawtransaction", get(**withdrawals.key(withdrawal["id"]))["txHash"], 1)
        assert mined["vout"][0]["scriptPubKey"]["addresses"] == [record["to"]]
        assert round(mined["vout"][0]["value"] * 1e8) == 90_000
    fees = sum(int(r["fee"]) for r in records)
    assert sats(btc_custody, account) == 300_000 - 3 * 90_000 - fees


def test_a_crash_between_signing_and_broadcast_broadcasts_the_same_transaction(btc_custody, btc_node, monkeypatch):
    account, _ = funded(btc_custody, btc_node, "btc-crash", [("legacy", 80_000)])
    created = request(btc_custody, account, "0.0005", fresh_address()).json_body["data"]

    def crash(*_args, **_kwargs):
        raise RuntimeError("the function died here")

    with monkeypatch.context() as patched:
        patched.setattr(bitcoin_sending, "_broadcast", crash)
        with pytest.raises(RuntimeError):
            worker.process(created["id"])
    record = get(**withdrawals.key(created["id"]))
    assert record["status"] == "sent" and record["rawTx"]
    network = networks.registry().any_by_name(NETWORK)
    assert bitcoin_rpc.transaction(network, record["txHash"]) is None  # nothing reached the node
    settled = run(created["id"], btc_node)
    assert settled["status"] == "success" and settled["txHash"] == record["txHash"]
    assert btc_node.rpc("getrawtransaction", record["txHash"], 0) == record["rawTx"]  # the very same bytes


def test_the_cosigner_refuses_any_other_output_set(btc_custody, btc_node):
    """A compromised API function asks the cosigner to sign transactions other than the withdrawal's: another
    recipient, change to another address, a fee above the network's bounds, an output claimed at another amount,
    another account's key. Each is refused, and nothing is signed."""
    account, _wallets = funded(btc_custody, btc_node, "btc-victim", [("native-segwit", 200_000), ("legacy", 50_000)])
    created = request(btc_custody, account, "0.001", fresh_address()).json_body["data"]
    record = get(**withdrawals.key(created["id"]))
    aws.table("custody").update_item(  # `sending`, as the worker holding it
        Key=withdrawals.key(record["id"]),
        UpdateExpression="SET #s = :s",
        ExpressionAttributeNames={"#s": "status"},
        ExpressionAttributeValues={":s": "sending"},
    )
    network = networks.registry().any_by_name(NETWORK)
    child = bytes.fromhex(record["childKey"])
    previous = {i["txid"]: bitcoin_rpc.raw_transaction(network, i["txid"]) for i in record["inputs"]}
    honest = bitcoin_spends.unsigned(
        network, record["inputs"], child, record["to"], 100_000, int(record["change"]), previous
    )
    thief = bitcoin_spends.unsigned(
        network, record["inputs"], child, fresh_address(), 100_000, int(record["change"]), previous
    )
    other_change = UnsignedBitcoinTx(
        honest.inputs,
        (
            honest.outputs[0],
            Pay(script.p2wpkh(ec.PrivateKey(secrets.token_bytes(32)).get_public_key()).data, int(record["change"])),
        ),
    )
    greedy = UnsignedBitcoinTx(honest.inputs, (honest.outputs[0],))  # the change left to the miners
    lying = UnsignedBitcoinTx(
        tuple(
            type(s)(s.txid, s.vout, s.value - 10_000, s.script_pubkey, s.public_key, s.previous) for s in honest.inputs
        ),
        (*honest.outputs[:1], Pay(honest.outputs[1].script_pubkey, honest.outputs[1].value - 10000)),
    )
    stranger = create_account(btc_custody, "btc-stranger")
    path = pool_keys.bitcoin_path(record["accountId"], 18443)
    context = {"purpose": "withdrawal", "id": record["id"]}

    def ask(tx, derivation=path, fee=None):
        if fee is not None:
            aws.table("custody").update_item(
                Key=withdrawals.key(record["id"]),
                UpdateExpression="SET fee = :f",
                ExpressionAttributeValues={":f": str(fee)},
            )
        payload = payloads.bitcoin_input(input_payload(tx, 0))
        cosigner_checks.authorize(record["keyId"], payload, payloads.digest_of(payload), context, derivation=derivation)

    cases = (
        (thief, {}, "does not pay exactly"),
        (other_change, {}, "someone other"),
        (greedy, {"fee": greedy.fee}, "above the network's bounds"),
        (lying, {}, "not what it claims"),
        (honest, {"derivation": pool_keys.bitcoin_path(stranger["id"], 18443)}, "derivation path"),
        (honest, {"derivation": pool_keys.bitcoin_path(record["accountId"], 18444)}, "derivation path"),
    )
    for tx, extra, reason in cases:
        with pytest.raises(PolicyRefusedError, match=reason):
            ask(tx, **extra)
    ask(honest, fee=int(record["fee"]))  # the withdrawal's own transaction is signable
    with pytest.raises(PolicyRefusedError, match="another payment"):  # and then no other one for it
        other = Pay(honest.outputs[1].script_pubkey, honest.outputs[1].value - 1)
        ask(UnsignedBitcoinTx(honest.inputs, (honest.outputs[0], other)), fee=int(record["fee"]) + 1)


def test_a_withdrawal_the_cosigner_refuses_is_held_then_released_by_the_operators_review(
    btc_custody, btc_node, monkeypatch
):
    from chalicelib.custody.withdrawals import review
    from chalicelib.platform import settings

    account, _ = funded(btc_custody, btc_node, "btc-review", [("native-segwit", 100_000)])
    created = request(btc_custody, account, "0.0005", fresh_address()).json_body["data"]
    # The operator lowers the limit after the request: the cosigner judges by the limit as it stands.
    monkeypatch.setenv("DOMPET_WITHDRAWAL_LIMITS", json.dumps({"btc": {"perWithdrawal": "0.0001"}}))
    settings.load_settings.cache_clear()
    worker.process(created["id"])
    record = get(**withdrawals.key(created["id"]))
    assert (record["status"], record["failedReason"], record["released"]) == ("failed", "policy_refused", False)
    assert utxos.available(18443, account["id"]) == []  # still reserved while it is held
    assert sats(btc_custody, account, "heldBalance") == 50_000 + int(record["fee"])

    found = review.inspect(created["id"])
    assert found["verdict"] == "not_paid" and "never signed" in found["why"]
    with pytest.raises(review.ReviewRefusedError):
        review.settle(created["id"])
    review.release(created["id"])
    assert sats(btc_custody, account) == 100_000 and sats(btc_custody, account, "heldBalance") == 0
    [back] = utxos.available(18443, account["id"])
    assert int(back["value"]) == 100_000
    [failed, released] = outbox_events("withdraw.failed")
    assert failed["data"]["withdrawal"]["reason"] == "policy_refused" and "release" in released["data"]


def test_a_withdrawal_to_another_custody_account_is_that_accounts_deposit(btc_custody, btc_node):
    """The withdrawal's change back to its own account is not a deposit; its payment to another custody account's
    address is that account's deposit, credited like any other."""
    payer, _ = funded(btc_custody, btc_node, "btc-sender", [("native-segwit", 120_000)])
    payee = create_account(btc_custody, "btc-payee")
    to = next(w["address"] for w in payee["wallets"] if w["addressType"] == "legacy")
    created = request(btc_custody, payer, "0.0004", to).json_body["data"]
    txid = run(created["id"], btc_node)["txHash"]
    btc_node.generate(2)
    step()
    step()
    credited = [
        e["data"] for e in outbox_events("deposit.wallet.credited") if e["data"]["transaction"]["txHash"] == txid
    ]
    assert [(c["wallet"]["address"], c["transaction"]["value"]) for c in credited] == [(to, "40000")]
    assert sats(btc_custody, payee) == 40_000
    [back] = utxos.available(18443, payer["id"])  # the change, once, as the payer's own output
    assert back["txid"] == txid and int(back["value"]) == sats(btc_custody, payer)


def test_more_outputs_than_one_withdrawal_signs_is_refused_before_anything_changes(btc_custody, btc_node):
    account, _ = funded(btc_custody, btc_node, "btc-dust", [("native-segwit", 10_000)] * 11)
    refused = request(btc_custody, account, "0.00105", fresh_address())
    assert refused.status_code == 422 and refused.json_body["data"]["code"] == "WITHDRAWAL_TOO_FRAGMENTED"
    assert len(utxos.available(18443, account["id"])) == 11 and sats(btc_custody, account) == 110_000
    assert request(btc_custody, account, "0.0009", fresh_address()).status_code == 200  # ten of them do


def test_a_block_reward_is_not_a_spendable_deposit(btc_custody, btc_node):
    network = networks.registry().any_by_name(NETWORK)
    [block_hash] = btc_node.generate(1)
    block = bitcoin_rpc.block_at(network, block_hash)
    assert block.outputs and all(o.coinbase for o in block.outputs if o.txid == block.outputs[0].txid)
