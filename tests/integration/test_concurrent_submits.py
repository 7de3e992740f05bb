"""Sponsored user operations of one app submitted at once: they race for the organization's gas tank, the app's
list and the tank's usage list. Every submit is answered (none a 500), each operation is charged once with its
usage record, every one is included on chain, and the lists answer afterwards with each operation once."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from eth_account import Account

from chalicelib.gas_tanks import charges
from chalicelib.platform import networks
from tests.support import top_ups
from tests.support.family_s import call
from tests.support.user_ops import (
    new_owner,
    run_user_op,
    settle,
    submit,
    top_ups_bundler,
    user_op_stack,  # noqa: F401 (the `stack` fixture)
)

pytestmark = pytest.mark.integration


def test_ten_parallel_sponsored_submits_of_one_app_are_each_charged_once(api, tenant, stack):
    owner, _record, account = new_owner(api, tenant, stack, fund_usdt=0)
    stack["w3"].provider.make_request("anvil_setBalance", [account["aaAddress"], hex(10**18)])
    tx_hash, sender = top_ups.transfer(stack["chains"], 31337, 50 * 10**6)
    body = top_ups.request(stack["chains"], 31337, tx_hash, sender)
    assert call(api, tenant, "POST", "/api/v1/client/gasTank/topUp", body).status_code == 200
    recipient = Account.create().address
    transfer = {"accountId": account["id"], "to": recipient, "amount": "1"}
    first = run_user_op(api, tenant, owner, "sendCoin", transfer, sponsored=True)
    assert settle(first["userOpId"])["status"] == "success"  # deployed: the ten carry no factory
    before = int(call(api, tenant, "GET", "/api/v1/client/gasTank").json_body["data"]["balance"])

    with ThreadPoolExecutor(5) as pool:
        built = list(
            pool.map(
                lambda _: call(api, tenant, "POST", "/api/v1/userOp/sendCoin/hash", transfer).json_body["data"],
                range(10),
            )
        )

    with ThreadPoolExecutor(10) as pool:
        answers = list(pool.map(lambda result: submit(api, tenant, owner, result, sponsored=True), built))
    assert [a.status_code for a in answers] == [200] * 10, [a.json_body for a in answers]
    assert [settle(r["userOpId"])["status"] for r in built] == ["success"] * 10
    assert stack["w3"].eth.get_balance(recipient) == 11  # each operation included once, on chain

    listed = call(api, tenant, "GET", "/api/v1/userOp?limit=100")
    assert listed.status_code == 200, listed.json_body
    ops = listed.json_body["data"]["data"]
    ids = [op["id"] for op in ops]
    assert sorted(ids) == sorted([first["userOpId"], *(r["userOpId"] for r in built)])  # each once
    assert all(op["status"] == "success" and op["clientGasTankUsageHistory"] is not None for op in ops)
    assert {op["clientGasTankUsageHistory"]["userOpId"] for op in ops} == set(ids)  # each its own usage record

    usage = call(api, tenant, "GET", "/api/v1/gasTank/organization/usage/history?limit=100")
    assert usage.status_code == 200
    assert sorted(u["userOpId"] for u in usage.json_body["data"]["data"]) == sorted(ids)
    network = networks.registry().by_chain_id(31337)
    charged = sum(
        charges.charge(network, int(top_ups_bundler(stack, r["hash"])["actualGasCost"], 16)).total for r in built
    )
    after = int(call(api, tenant, "GET", "/api/v1/client/gasTank").json_body["data"]["balance"])
    assert before - after == charged  # each charged its actual cost once, the rest refunded
