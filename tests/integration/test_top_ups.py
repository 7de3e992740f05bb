"""Gas-tank top-ups against real anvil chains: USDT sent to the pool is credited exactly once, converted
exactly (6 and 18 decimals), refused with a code when the chain does not show it, and checked later by the
delayed checker. Effects are checked on the chain (the pool's token balance) and in the tank."""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from eth_account import Account
from eth_account.messages import encode_defunct

from chalicelib.gas_tanks import checks
from chalicelib.platform import aws, erc20, networks, settings
from chalicelib.tenancy import service as tenancy
from tests.unit.test_smart_accounts import call, create

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def chains(aa_chains, tmp_path_factory):
    """Both anvil chains with the real EntryPoint, factory, paymaster and Alto (tests/integration/conftest.py);
    local-a's USDT has 6 decimals, local-b's 18 (TestUSDT18, as on BSC)."""
    from web3 import Web3

    entries = []
    for network, token_key, decimals in (
        (aa_chains.by_name("local-a"), "usdt", 6),
        (aa_chains.by_name("local-b"), "usdt18", 18),
    ):
        entries.append(
            {
                "name": network["name"],
                "chainId": network["chainId"],
                "rpcUrls": [network["rpc"]],
                "nativeSymbol": "ETH",
                "confirmations": 1,
                "tokens": {"usdt": network["tokens"][token_key]},
                "usdtDecimals": decimals,
                "entryPoint": network["entryPoint"],
                "accountFactory": network["accountFactory"],
                "paymaster": network["paymaster"],
                "bundlerUrls": [network["bundlerUrl"]],
                "poolAddress": network["poolAddress"],
                "nativeToGasTankRate": "2000",
            }
        )
    path = tmp_path_factory.mktemp("networks") / "networks.json"
    path.write_text(json.dumps({"networks": entries}))
    return {
        "file": path,
        "entries": entries,
        "w3": {e["chainId"]: Web3(Web3.HTTPProvider(e["rpcUrls"][0])) for e in entries},
    }


@pytest.fixture
def env(chains, monkeypatch, api, tenant):
    monkeypatch.setenv("DOMPET_NETWORKS_FILE", str(chains["file"]))
    monkeypatch.setenv("DOMPET_TOPUP_CHECK_DELAY_S", "1")
    settings.load_settings.cache_clear()
    networks.registry.cache_clear()
    erc20._info.clear()
    yield chains
    settings.load_settings.cache_clear()
    networks.registry.cache_clear()


def use_registry(monkeypatch, path):
    monkeypatch.setenv("DOMPET_NETWORKS_FILE", str(path))
    settings.load_settings.cache_clear()
    networks.registry.cache_clear()


def entry(chains, chain_id):
    return next(e for e in chains["entries"] if e["chainId"] == chain_id)


def transfer(chains, chain_id, amount, to=None, sender=None, gas=None):
    """A fresh sender gets ETH and `amount` of the network's USDT, and sends it to the pool (or `to`)."""
    w3 = chains["w3"][chain_id]
    network = entry(chains, chain_id)
    sender = sender or Account.create()
    w3.provider.make_request("anvil_setBalance", [sender.address, hex(10**18)])
    token = w3.eth.contract(address=network["tokens"]["usdt"], abi=_ERC20_ABI)
    w3.eth.wait_for_transaction_receipt(
        token.functions.mint(sender.address, amount).transact({"from": w3.eth.accounts[0]})
    )
    tx = token.functions.transfer(to or network["poolAddress"], amount * (2 if gas else 1)).build_transaction(
        {
            "from": sender.address,
            "nonce": w3.eth.get_transaction_count(sender.address),
            "chainId": chain_id,
            "gas": gas or 100_000,
            "maxFeePerGas": 10**10,
            "maxPriorityFeePerGas": 10**9,
        }
    )
    tx_hash = w3.eth.send_raw_transaction(sender.sign_transaction(tx).raw_transaction)
    w3.eth.wait_for_transaction_receipt(tx_hash)
    return "0x" + tx_hash.hex().removeprefix("0x"), sender


def pool_balance(chains, chain_id):
    network = entry(chains, chain_id)
    token = chains["w3"][chain_id].eth.contract(address=network["tokens"]["usdt"], abi=_ERC20_ABI)
    return token.functions.balanceOf(network["poolAddress"]).call()


def request(chains, chain_id, tx_hash, signer, immediate=True, **extra):
    network = entry(chains, chain_id)
    signature = signer.sign_message(encode_defunct(text=f"{chain_id}.{tx_hash}")).signature.hex()
    return {
        "txHash": tx_hash,
        "chainId": chain_id,
        "tokenAddress": network["tokens"]["usdt"],
        "poolAddress": network["poolAddress"],
        "immediate": immediate,
        "signature": "0x" + signature.removeprefix("0x"),
        **extra,
    }


def owner_tank(api, tenant, owner_id):
    return call(api, tenant, "GET", f"/api/v1/smart-account/{owner_id}").json_body["data"]["gasTanks"][0]


def test_a_top_up_is_credited_exactly_on_both_chains(api, tenant, env):
    owner = create(api, tenant, Account.create().address).json_body["data"]
    for chain_id, amount, credited in ((31337, 1_500_000, 1_500_000 * 10**12), (31338, 15 * 10**17, 15 * 10**17)):
        before_pool = pool_balance(env, chain_id)
        before = int(owner_tank(api, tenant, owner["id"])["balance"])
        tx_hash, sender = transfer(env, chain_id, amount)
        answer = call(
            api,
            tenant,
            "POST",
            "/api/v1/smart-account/topUp",
            request(env, chain_id, tx_hash, sender, receiverOwnerId=owner["id"]),
        )
        assert answer.status_code == 200, answer.json_body
        assert pool_balance(env, chain_id) - before_pool == amount  # on chain
        assert int(owner_tank(api, tenant, owner["id"])["balance"]) - before == credited  # exact conversion
        history = call(api, tenant, "GET", f"/api/v1/smart-account/{owner['id']}/topUp/history").json_body["data"]
        assert history["data"][0]["txHash"] == tx_hash and history["data"][0]["amount"] == str(amount)
        assert history["data"][0]["status"] == "success" and history["data"][0]["chainId"] == chain_id


def test_a_transaction_credits_once_in_the_whole_service(api, tenant, env):
    owner = create(api, tenant, Account.create().address).json_body["data"]
    tx_hash, sender = transfer(env, 31337, 2_000_000)
    body = request(env, 31337, tx_hash, sender, receiverOwnerId=owner["id"])
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda _: call(api, tenant, "POST", "/api/v1/smart-account/topUp", body), range(8)))
    assert sorted(a.status_code for a in answers) == [200] + [409] * 7
    assert {a.json_body["data"]["code"] for a in answers if a.status_code == 409} == {"TOPUP_ALREADY_USED"}
    assert owner_tank(api, tenant, owner["id"])["balance"] == str(2_000_000 * 10**12)
    client_body = {k: v for k, v in body.items() if k != "receiverOwnerId"}
    assert call(api, tenant, "POST", "/api/v1/client/gasTank/topUp", client_body).status_code == 409
    other = tenancy.create_tenant("Other")
    assert call(api, other, "POST", "/api/v1/client/gasTank/topUp", client_body).status_code == 409
    assert call(api, other, "GET", "/api/v1/client/gasTank").json_body["data"]["balance"] == "0"


def test_what_the_chain_does_not_show_is_refused_with_a_code(api, tenant, env):
    owner = create(api, tenant, Account.create().address).json_body["data"]
    tx_hash, sender = transfer(env, 31337, 1_000_000)
    cases = [
        (request(env, 31337, tx_hash, Account.create()), "SIGNATURE_MISMATCH"),
        (request(env, 31337, "0x" + "ee" * 32, sender), "TX_NOT_FOUND"),
        (request(env, 31337, *transfer(env, 31337, 1_000, to=Account.create().address)), "NO_TRANSFER_TO_POOL"),
        (request(env, 31337, *transfer(env, 31337, 1_000, gas=60_000)), "TX_FAILED"),  # sends twice its balance
    ]
    for body, code in cases:
        answer = call(api, tenant, "POST", "/api/v1/smart-account/topUp", {**body, "receiverOwnerId": owner["id"]})
        assert answer.status_code == 422 and answer.json_body["data"]["code"] == code, (code, answer.json_body)
    assert owner_tank(api, tenant, owner["id"])["balance"] == "0"
    # A refused top-up used nothing: the right signature still credits the same transaction.
    good = call(
        api,
        tenant,
        "POST",
        "/api/v1/smart-account/topUp",
        {**request(env, 31337, tx_hash, sender), "receiverOwnerId": owner["id"]},
    )
    assert good.status_code == 200


def test_too_few_confirmations_is_422_and_works_once_confirmed(api, tenant, env, chains, monkeypatch):
    entries = [dict(e, confirmations=3) for e in chains["entries"]]
    path = chains["file"].with_name("confirmations.json")
    path.write_text(json.dumps({"networks": entries}))
    use_registry(monkeypatch, path)
    tx_hash, sender = transfer(env, 31337, 500_000)
    body = request(env, 31337, tx_hash, sender)
    early = call(api, tenant, "POST", "/api/v1/client/gasTank/topUp", body)
    assert early.status_code == 422 and early.json_body["data"]["code"] == "TX_NOT_CONFIRMED"
    chains["w3"][31337].provider.make_request("anvil_mine", [2])
    assert call(api, tenant, "POST", "/api/v1/client/gasTank/topUp", body).status_code == 200
    assert call(api, tenant, "GET", "/api/v1/client/gasTank").json_body["data"]["balance"] == str(500_000 * 10**12)


def test_a_delayed_top_up_is_credited_by_the_checker_once(api, tenant, env):
    tx_hash, sender = transfer(env, 31338, 3 * 10**18)
    answer = call(
        api, tenant, "POST", "/api/v1/client/gasTank/topUp", request(env, 31338, tx_hash, sender, immediate=False)
    )
    assert answer.status_code == 200
    assert call(api, tenant, "GET", "/api/v1/client/gasTank").json_body["data"]["balance"] == "0"
    [body] = receive_checks()
    run_check(body)
    run_check(body)  # a re-delivered message credits nothing more
    assert call(api, tenant, "GET", "/api/v1/client/gasTank").json_body["data"]["balance"] == str(3 * 10**18)
    [record] = call(api, tenant, "GET", "/api/v1/client/gasTank/topUp/history").json_body["data"]["data"]
    assert record["status"] == "success" and record["amount"] == str(3 * 10**18) and record["updatedAt"]


def test_the_checker_waits_for_confirmations_then_fails_a_refuted_top_up(api, tenant, env):
    tx_hash, sender = transfer(env, 31337, 1_000)
    wrong = request(env, 31337, tx_hash, Account.create(), immediate=False)
    assert call(api, tenant, "POST", "/api/v1/client/gasTank/topUp", wrong).status_code == 200
    [body] = receive_checks()
    run_check(body)
    [record] = call(api, tenant, "GET", "/api/v1/client/gasTank/topUp/history").json_body["data"]["data"]
    assert (
        record["status"] == "failed"
        and call(api, tenant, "GET", "/api/v1/client/gasTank").json_body["data"]["balance"] == "0"
    )
    item = aws.table("gas-tanks").get_item(Key={"pk": f"TOPUPTX#31337#{tx_hash}", "sk": "USED"})["Item"]
    assert item["state"] == "failed"
    # The transaction is usable again by a top-up that proves its sender.
    assert (
        call(api, tenant, "POST", "/api/v1/client/gasTank/topUp", request(env, 31337, tx_hash, sender)).status_code
        == 200
    )

    unknown = request(env, 31337, "0x" + "cd" * 32, sender, immediate=False)
    assert call(api, tenant, "POST", "/api/v1/client/gasTank/topUp", unknown).status_code == 200
    [pending] = receive_checks()
    run_check(pending)  # not mined: checked again later
    [again] = receive_checks(wait_s=4)
    assert again["attempt"] == 2 and again["topUpId"] == pending["topUpId"]


def run_check(body):
    """As the check_top_up function runs it (its AWS calls are recorded for the IAM test)."""
    from chalicelib.platform.invocation import running_as

    with running_as("check_top_up"):
        checks.check(body)


def receive_checks(wait_s: float = 2.5):
    time.sleep(wait_s)  # DOMPET_TOPUP_CHECK_DELAY_S=1 (doubling on re-queue)
    answer = aws.client("sqs").receive_message(QueueUrl=aws.queue("topup-checks"), MaxNumberOfMessages=10)
    messages = answer.get("Messages") or []
    for message in messages:
        aws.client("sqs").delete_message(QueueUrl=aws.queue("topup-checks"), ReceiptHandle=message["ReceiptHandle"])
    return [json.loads(m["Body"]) for m in messages]


_ERC20_ABI = [
    {
        "name": "mint",
        "type": "function",
        "stateMutability": "nonpayable",
        "inputs": [{"name": "to", "type": "address"}, {"name": "amount", "type": "uint256"}],
        "outputs": [],
    },
    {
        "name": "transfer",
        "type": "function",
        "stateMutability": "nonpayable",
        "inputs": [{"name": "to", "type": "address"}, {"name": "amount", "type": "uint256"}],
        "outputs": [{"name": "", "type": "bool"}],
    },
    {
        "name": "balanceOf",
        "type": "function",
        "stateMutability": "view",
        "inputs": [{"name": "owner", "type": "address"}],
        "outputs": [{"name": "", "type": "uint256"}],
    },
]


def test_a_node_that_is_down_records_nothing_and_a_retry_works(api, tenant, env, chains, monkeypatch):
    entries = [dict(e, rpcUrls=["http://127.0.0.1:9"]) for e in chains["entries"]]
    path = chains["file"].with_name("down.json")
    path.write_text(json.dumps({"networks": entries}))
    tx_hash, sender = transfer(env, 31337, 700_000)
    body = request(env, 31337, tx_hash, sender)
    use_registry(monkeypatch, path)
    down = call(api, tenant, "POST", "/api/v1/client/gasTank/topUp", body)
    assert down.status_code == 502 and down.json_body["data"]["code"] == "UPSTREAM_UNAVAILABLE"
    use_registry(monkeypatch, chains["file"])
    assert call(api, tenant, "POST", "/api/v1/client/gasTank/topUp", body).status_code == 200
    assert call(api, tenant, "GET", "/api/v1/client/gasTank").json_body["data"]["balance"] == str(700_000 * 10**12)
