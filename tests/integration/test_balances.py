"""Wallet balances against a real anvil chain, through the API with a wallet token."""

from __future__ import annotations

import json

import pytest
from eth_account import Account

from chalicelib.evm import erc20
from chalicelib.platform import aws, networks, settings
from devtools import chain

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def local_chain(tmp_path_factory):
    with chain.start_anvil(chain.free_port(), 31337) as anvil:
        tokens = chain.deploy_test_contracts(anvil.rpc_url)
        path = tmp_path_factory.mktemp("networks") / "networks.json"
        entry = {
            "name": "local-a",
            "chainId": 31337,
            # The first URL is dead: reads must fail over to the next one.
            "rpcUrls": ["http://127.0.0.1:9", anvil.rpc_url],
            "nativeSymbol": "ETH",
            "tokens": tokens,
        }
        other = {"name": "local-b", "chainId": 31338, "rpcUrls": ["http://127.0.0.1:9"], "nativeSymbol": "ETH"}
        path.write_text(json.dumps({"networks": [entry, other]}))
        yield {"rpc": anvil.rpc_url, "tokens": tokens, "networks_file": path}


@pytest.fixture
def wallet_api(local_chain, api, tenant, monkeypatch):
    from web3 import Web3

    monkeypatch.setenv("DOMPET_NETWORKS_FILE", str(local_chain["networks_file"]))
    settings.load_settings.cache_clear()
    networks.registry.cache_clear()
    erc20._info.clear()
    address = Account.create().address
    w3 = Web3(Web3.HTTPProvider(local_chain["rpc"]))
    w3.provider.make_request("anvil_setBalance", [address, hex(1_234_500_000_000_000_000)])
    minter = w3.eth.accounts[0]
    for key, amount in (("usdt", 1_500_000), ("erc20", 2 * 10**18 + 1)):
        token = w3.eth.contract(
            address=local_chain["tokens"][key], abi=chain.load_artifact(chain.TEST_CONTRACTS[key])["abi"]
        )
        w3.eth.wait_for_transaction_receipt(token.functions.mint(address, amount).transact({"from": minter}))

    def login(sub_id, with_wallet):
        if with_wallet:
            aws.table("users").put_item(
                Item={
                    "pk": f"CLIENT#{tenant.clientId}",
                    "sk": f"SUB#{sub_id}",
                    "userId": f"user-{sub_id}",
                    "clientId": tenant.clientId,
                    "subId": sub_id,
                    "createdAt": "2026-11-22T00:00:00.000Z",
                    "walletAddress": address,
                }
            )
        body = api.post(
            "/api/v1/auth/login",
            body=json.dumps({"subId": sub_id}),
            headers={"Content-Type": "application/json", "x-client-secret": tenant.clientSecret},
        ).json_body["data"]
        return body.get("walletToken") or body["accessToken"]

    def call(path, body, token):
        return api.post(
            path,
            body=json.dumps(body),
            headers={
                "Content-Type": "application/json",
                "Authorization": f"Bearer {token}",
                "x-client-secret": tenant.clientSecret,
            },
        )

    yield {"call": call, "login": login, "address": address, **local_chain}
    settings.load_settings.cache_clear()
    networks.registry.cache_clear()


def test_coin_balance_by_name_and_by_chain_id(wallet_api):
    token = wallet_api["login"]("rich", with_wallet=True)
    for selector in ({"network": "local-a"}, {"chainId": "31337"}, {"network": "local-a", "chainId": "31337"}):
        response = wallet_api["call"]("/api/v1/wallet/balance-coin", selector, token)
        assert response.status_code == 200, response.json_body
        assert response.json_body["data"] == {"balance": "1.2345", "symbol": "ETH", "address": wallet_api["address"]}


def test_token_balances_are_exact(wallet_api):
    token = wallet_api["login"]("rich", with_wallet=True)
    usdt = wallet_api["call"](
        "/api/v1/wallet/balance-token", {"network": "local-a", "tokenAddress": wallet_api["tokens"]["usdt"]}, token
    )
    assert usdt.json_body["data"] == {"balance": "1.5", "symbol": "USDT", "address": wallet_api["address"]}
    erc20 = wallet_api["call"](
        "/api/v1/wallet/balance-token",
        {"chainId": "31337", "tokenAddress": wallet_api["tokens"]["erc20"].lower()},
        token,
    )
    assert erc20.json_body["data"]["balance"] == "2.000000000000000001"


def test_access_token_is_refused_on_a_wallet_route(wallet_api):
    token = wallet_api["login"]("no-wallet", with_wallet=False)
    response = wallet_api["call"]("/api/v1/wallet/balance-coin", {"network": "local-a"}, token)
    assert response.status_code == 403
    assert response.json_body["data"]["code"] == "WALLET_TOKEN_REQUIRED"


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({}, 400, "NETWORK_REQUIRED"),
        ({"network": "mars"}, 400, "UNKNOWN_NETWORK"),
        ({"chainId": "1"}, 400, "UNKNOWN_NETWORK"),
        ({"chainId": "0x7a69"}, 400, "VALIDATION_ERROR"),
        ({"chainId": "\u00b2"}, 400, "VALIDATION_ERROR"),
        ({"network": "local-a", "chainId": "31338"}, 400, "NETWORK_MISMATCH"),
        ({"network": "local-a", "chainId": "31339"}, 400, "UNKNOWN_NETWORK"),
        ({"chainId": 31337}, 400, "VALIDATION_ERROR"),
    ],
)
def test_choosing_the_chain(wallet_api, body, status, code):
    token = wallet_api["login"]("rich", with_wallet=True)
    response = wallet_api["call"]("/api/v1/wallet/balance-coin", body, token)
    assert response.status_code == status and response.json_body["data"]["code"] == code


def test_token_address_problems(wallet_api):
    token = wallet_api["login"]("rich", with_wallet=True)
    usdt = wallet_api["tokens"]["usdt"]
    bad_checksum = usdt[:2] + usdt[2:].swapcase() if usdt[2:] != usdt[2:].swapcase() else usdt
    cases = [
        ("0x1234", 400, "INVALID_ADDRESS"),
        (bad_checksum, 400, "INVALID_ADDRESS"),
        ("0x" + "00" * 19 + "01", 422, "NOT_A_TOKEN"),  # a precompile, no ERC-20 behind it
        ("0x" + "ab" * 20, 422, "NOT_A_TOKEN"),  # no code at all
    ]
    for address, status, code in cases:
        response = wallet_api["call"](
            "/api/v1/wallet/balance-token", {"network": "local-a", "tokenAddress": address}, token
        )
        assert (response.status_code, response.json_body["data"]["code"]) == (status, code), address


def test_unreachable_rpc_is_502(wallet_api, use_networks):
    token = wallet_api["login"]("rich", with_wallet=True)
    use_networks([{"name": "local-a", "chainId": 31337, "rpcUrls": ["http://127.0.0.1:9"], "nativeSymbol": "ETH"}])
    response = wallet_api["call"]("/api/v1/wallet/balance-coin", {"network": "local-a"}, token)
    assert response.status_code == 502 and response.json_body["data"]["code"] == "UPSTREAM_UNAVAILABLE"


def test_batched_reads_against_anvil(local_chain):
    """rpc_batch and erc20.token_holding against a real node: one round trip, per-call errors in place."""
    from chalicelib.evm.rpc import RpcError, rpc_batch, rpc_call
    from chalicelib.platform import deadline

    network = networks.Network(
        name="local-a", chainId=31337, rpcUrls=("http://127.0.0.1:9", local_chain["rpc"]), nativeSymbol="ETH"
    )
    usdt = local_chain["tokens"]["usdt"]
    precompile = "0x" + "00" * 19 + "01"
    reverting = {"to": usdt, "data": "0xdeadbeef"}  # no such function: the token reverts
    chain_id, block, failed, decimals = rpc_batch(
        network,
        [
            ("eth_chainId", []),
            ("eth_blockNumber", []),
            ("eth_call", [reverting, "latest"]),
            ("eth_call", [{"to": usdt, "data": erc20.DECIMALS}, "latest"]),
        ],
    )
    assert chain_id == hex(31337) and int(block, 16) >= 1
    assert isinstance(failed, RpcError) and failed.reverted
    assert int(decimals, 16) == 6
    with pytest.raises(RpcError):
        rpc_call(network, "eth_call", [reverting, "latest"])

    erc20._info.clear()
    info, balance = erc20.token_holding(network, usdt, precompile)
    assert (info.symbol, info.decimals, balance) == ("USDT", 6, 0)
    with deadline.budget(30):
        assert erc20.balance_of(network, usdt, precompile) == 0
