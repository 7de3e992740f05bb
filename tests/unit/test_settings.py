"""A bad setting stops start-up with a message naming it (and never its value)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from chalicelib.platform import networks, settings


def test_bad_setting_names_the_variable(monkeypatch, clean_registry):
    monkeypatch.setenv("DOMPET_ACCESS_TOKEN_TTL_S", "forever")
    settings.load_settings.cache_clear()
    with pytest.raises(settings.SettingsError) as error:
        settings.load_settings()
    assert "DOMPET_ACCESS_TOKEN_TTL_S" in str(error.value)
    assert "forever" not in str(error.value)  # values may be secrets


def test_app_refuses_to_start_with_a_bad_setting(tmp_path):
    result = subprocess.run(
        [sys.executable, "-c", "import app"],
        env={"DOMPET_STAGE": "Bad Stage!", "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        cwd=settings.PROJECT_ROOT,
    )
    assert result.returncode != 0
    assert "DOMPET_STAGE" in result.stderr


@pytest.fixture
def clean_registry():
    yield
    settings.load_settings.cache_clear()
    networks.registry.cache_clear()


def test_networks_registry_loads(use_networks):
    use_networks([{"name": "local-a", "chainId": 31337, "rpcUrls": ["http://127.0.0.1:8545"], "nativeSymbol": "ETH"}])
    assert networks.registry().by_name("local-a").chainId == 31337
    assert networks.registry().by_chain_id(31337).confirmations == 1


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("{oops", "not valid JSON"),
        (
            json.dumps(
                {"networks": [{"name": "x", "chainId": 1, "rpcUrls": ["http://rpc.example.com"], "nativeSymbol": "E"}]}
            ),
            "https",
        ),
        (
            json.dumps({"networks": [{"name": "x", "chainId": 1, "rpcUrls": ["ftp://x"], "nativeSymbol": "ETH"}]}),
            "rpcUrls",
        ),
        (
            json.dumps({"networks": [{"name": "x", "chainId": "one", "rpcUrls": ["https://x"], "nativeSymbol": "E"}]}),
            "chainId",
        ),
        (
            json.dumps(
                {
                    "networks": [
                        {"name": "a", "chainId": 1, "rpcUrls": ["https://x"], "nativeSymbol": "E"},
                        {"name": "b", "chainId": 1, "rpcUrls": ["https://y"], "nativeSymbol": "E"},
                    ]
                }
            ),
            "duplicate network chainId",
        ),
        (
            json.dumps(
                {
                    "networks": [
                        {
                            "name": "x",
                            "chainId": 1,
                            "rpcUrls": ["https://x"],
                            "nativeSymbol": "E",
                            "tokens": {"usdt": "0x12"},
                        }
                    ]
                }
            ),
            "tokens.usdt",
        ),
    ],
)
def test_bad_networks_registry_names_the_problem(use_networks, content, expected):
    use_networks(content)
    with pytest.raises(settings.SettingsError) as error:
        networks.registry()
    assert "DOMPET_NETWORKS_FILE" in str(error.value) and expected in str(error.value)


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("DOMPET_NETWORKS_FILE", "/nonexistent/networks.json"),  # missing file
        ("DOMPET_LOG_LEVEL", "TRACE"),  # validated before the logger uses it
        ("DOMPET_SIGNATURE_WINDOW", "600"),  # misspelt: no such setting
    ],
)
def test_each_bad_setting_is_named(monkeypatch, clean_registry, variable, value):
    monkeypatch.setenv(variable, value)
    settings.load_settings.cache_clear()
    with pytest.raises(settings.SettingsError) as error:
        settings.load_settings()
    assert variable in str(error.value)


def test_tooling_variables_are_not_settings(monkeypatch, clean_registry):
    monkeypatch.setenv("DOMPET_DEV_API_PORT", "9000")
    settings.load_settings.cache_clear()
    assert settings.load_settings().stage == "test"


BTC = {
    "kind": "bitcoin",
    "name": "bitcoin-regtest",
    "chainId": 18443,
    "chain": "regtest",
    "rpcUrls": ["http://127.0.0.1:18443"],
    "rpcUser": "dompet",
    "rpcPassword": "local",
    "custodyTokens": [{"tokenCode": "btc", "symbol": "BTC", "decimals": 8}],
}
EVM = {"name": "local-a", "chainId": 31337, "rpcUrls": ["http://127.0.0.1:8545"], "nativeSymbol": "ETH"}


def test_a_bitcoin_network_is_custody_s_only(use_networks):
    from chalicelib.custody import tokens
    from chalicelib.platform.errors import ApiError

    use_networks([EVM, BTC])
    registry = networks.registry()
    assert [n.name for n in registry.networks] == ["local-a"]  # what every EVM feature works on
    assert [n.name for n in registry.bitcoin] == ["bitcoin-regtest"]
    with pytest.raises(ApiError) as refused:  # an EVM endpoint named a Bitcoin network
        networks.resolve("bitcoin-regtest", None)
    assert (refused.value.code, "bitcoin network") == ("UNKNOWN_NETWORK", "bitcoin network")
    assert "is a bitcoin network" in refused.value.message
    listed = {(t.network.name, t.token.tokenCode, t.blockchain_type) for t in tokens.all_accepted()}
    assert listed == {("bitcoin-regtest", "btc", "bitcoin")}  # local-a has no custody tokens here
    assert tokens.accepted("bitcoin-regtest", "btc").token.decimals == 8
    authorization = registry.bitcoin[0].rpc_headers()["Authorization"]
    assert authorization == "Basic ZG9tcGV0OmxvY2Fs"  # dompet:local


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"rpcUrls": ["https://node.example.com"]}, "only for a node on this machine"),
        ({"rpcPassword": None}, "rpcPassword"),
        ({"rpcPasswordSecret": "btc-rpc"}, "one of them"),
        ({"chain": "signet"}, "chain"),
        ({"chainId": 31337}, "duplicate network chainId"),
        (
            {"custodyTokens": [{"tokenCode": "btc", "symbol": "BTC", "decimals": 8, "tokenAddress": "0x" + "1" * 40}]},
            "one coin",
        ),
        ({"feeRateBounds": {"min": 10, "max": 5}}, "min is above max"),
    ],
)
def test_a_bad_bitcoin_network_names_the_problem(use_networks, change, expected):
    use_networks([EVM, {**BTC, **change}])
    with pytest.raises(settings.SettingsError) as error:
        networks.registry()
    assert expected in str(error.value)


def test_a_deployed_bitcoin_node_s_password_comes_from_the_node_credentials_secret(use_networks, aws_env):
    """The functions that talk to Bitcoin nodes read it (their calls are checked against their grants by the IAM
    test, tests/iam_recorder.py)."""
    from chalicelib.platform import aws
    from chalicelib.platform.invocation import running_as

    remote = {**BTC, "rpcUrls": ["https://btc.example.com"], "rpcPassword": None, "rpcPasswordSecret": "btc-main"}
    use_networks([EVM, remote])
    aws.client("secretsmanager").put_secret_value(
        SecretId=aws.secret_id(networks.NODE_CREDENTIALS), SecretString=json.dumps({"btc-main": "s3cret"})
    )
    network = networks.registry().bitcoin[0]
    for function in ("api_handler", "watch_deposits", "send_withdrawals"):
        networks._PASSWORDS.clear()
        with running_as(function):
            assert network.rpc_headers() == {"Authorization": "Basic ZG9tcGV0OnMzY3JldA=="}  # dompet:s3cret
    use_networks([EVM, {**remote, "rpcPasswordSecret": "btc-other"}])
    networks._PASSWORDS.clear()
    with pytest.raises(settings.SettingsError, match="no password 'btc-other'"):
        networks.registry().bitcoin[0].rpc_headers()
