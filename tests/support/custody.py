"""Custodial accounts, deposits and withdrawals on the anvil chains, through the `custody` fixture
(tests/integration/conftest.py): the watcher's steps, token transfers and balances on chain, the service's balances
and events, and what the SQS worker and the EVM tracker do for a withdrawal."""

from __future__ import annotations

import json

from eth_account import Account

from chalicelib.custody.deposits import watcher
from chalicelib.custody.store import get
from chalicelib.custody.withdrawals import lifecycle as withdrawals
from chalicelib.custody.withdrawals import sending
from chalicelib.evm import engine
from chalicelib.platform import aws, networks
from chalicelib.platform.invocation import running_as
from tests.support.top_ups import ERC20_ABI

CONFIRMATIONS = 3


def network_named(name):
    return networks.registry().by_name(name)


def watcher_step(name):
    report = watcher.step(network_named(name))
    assert report is not None
    return report


def mine_blocks(w3, blocks):
    w3.provider.make_request("anvil_mine", [hex(blocks)])


def send_token(custody, chain_id, token_key, to, amount):
    w3 = custody["w3"][chain_id]
    chain = next(c for c in custody["chains"] if c["chainId"] == chain_id)
    token = w3.eth.contract(address=chain["tokens"][token_key], abi=ERC20_ABI)
    sender = w3.eth.accounts[2]
    w3.eth.wait_for_transaction_receipt(token.functions.mint(sender, amount).transact({"from": sender}))
    tx_hash = token.functions.transfer(to, amount).transact({"from": sender})
    w3.eth.wait_for_transaction_receipt(tx_hash)
    return "0x" + tx_hash.hex().removeprefix("0x")


def token_balance(custody, chain_id, token_key, address):
    w3 = custody["w3"][chain_id]
    chain = next(c for c in custody["chains"] if c["chainId"] == chain_id)
    return w3.eth.contract(address=chain["tokens"][token_key], abi=ERC20_ABI).functions.balanceOf(address).call()


def outbox_events(event_type):
    items = aws.table("webhooks").scan()["Items"]
    return [json.loads(i["body"]) for i in items if i.get("type") == event_type and "body" in i]


def custody_balance(custody, account_id, network, token_code):
    answer = custody["signed"]("GET", f"/api/v1/custody/accounts/{account_id}/balances")
    assert answer.status_code == 200, answer.json_body
    return next(
        b for b in answer.json_body["data"]["balances"] if b["network"] == network and b["tokenCode"] == token_code
    )


def create_account(custody, sub_id="user-1"):
    answer = custody["signed"]("POST", "/api/v1/custody/accounts", {"subId": sub_id})
    assert answer.status_code == 200, answer.json_body
    return answer.json_body["data"]


def funded_account(custody, usdt=0, eth=0, sub_id="payer", pool_type="dedicated"):
    answer = custody["signed"]("POST", "/api/v1/custody/accounts", {"subId": sub_id, "poolType": pool_type})
    assert answer.status_code == 200, answer.json_body
    account = answer.json_body["data"]
    address = account["wallets"][0]["address"]
    w3 = custody["w3"][31337]
    if usdt:
        send_token(custody, 31337, "usdt", address, usdt)
    if eth:
        w3.eth.wait_for_transaction_receipt(
            w3.eth.send_transaction({"from": w3.eth.accounts[7], "to": address, "value": eth})
        )
    watcher_step("local-a")
    mine_blocks(w3, CONFIRMATIONS)
    watcher_step("local-a")
    owner = get(f"ACCOUNT#{account['id']}", "ACCOUNT")["ownerAddress"]
    w3.provider.make_request("anvil_setBalance", [owner, hex(10**19)])  # the pool's gas wallet
    return account


def request_withdrawal(custody, account, amount, token="usdt", to=None, **extra):
    body = {
        "accountId": account["id"],
        "network": "local-a",
        "tokenCode": token,
        "to": to or Account.create().address,
        "amount": amount,
        **extra,
    }
    return custody["signed"]("POST", "/api/v1/custody/withdrawals", body)


def run_withdrawal(withdrawal_id, custody, rounds=6):
    """What the SQS worker and the EVM tracker do, in turn, until the withdrawal settles."""
    w3 = custody["w3"][31337]
    for _ in range(rounds):
        sending.process(withdrawal_id)
        record = get(**withdrawals.key(withdrawal_id))
        if record["status"] in ("success", "failed"):
            return record
        if record.get("txHash"):
            w3.eth.wait_for_transaction_receipt(record["txHash"])
            mine_blocks(w3, CONFIRMATIONS)
            with running_as("track_transaction"):  # its AWS calls are checked against the function's grants
                engine.check(record["txHash"])  # settles the transaction
                engine.check(record["txHash"])  # tells the withdrawal, which settles on it

    return get(**withdrawals.key(withdrawal_id))
