"""Smart-account owners (Family S) on moto: counterfactual accounts per network, idempotent creation, lookups,
networks listing and the registry's all-or-none smart-account fields. Chain effects: tests/integration."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from chalicelib.evm.aa import counterfactual
from chalicelib.platform import aws, networks, settings
from chalicelib.tenancy import service as tenancy
from tests.support.family_s import OWNER, call, create
from tests.support.networks import FACTORY, aa_network


@pytest.fixture
def two_networks(use_networks):
    return use_networks([aa_network("local-a", 31337), aa_network("local-b", 31338)])


def test_creation_gives_one_counterfactual_account_per_network_and_a_tank(api, tenant, two_networks):
    answer = create(api, tenant)
    assert answer.status_code == 200, answer.json_body
    assert answer.json_body["message"] == "account created successfully"
    record = answer.json_body["data"]
    assert set(record) == {
        "id",
        "createdAt",
        "updatedAt",
        "ownerId",
        "provider",
        "clientId",
        "appId",
        "gasTanks",
        "accounts",
    }
    assert record["ownerId"] == OWNER and record["provider"] == "wallet" and record["appId"] == tenant.appId
    [tank] = record["gasTanks"]
    assert (
        tank["balance"] == "0"
        and tank["type"] == "token"
        and tank["tokenName"] == "USDT"
        and tank["ownerId"] == record["id"]
    )
    assert [(a["network"], a["chainId"], a["status"]) for a in record["accounts"]] == [
        ("local-a", 31337, "not_deployed"),
        ("local-b", 31338, "not_deployed"),
    ]
    expected = counterfactual.account_address(FACTORY, OWNER)
    assert {a["aaAddress"] for a in record["accounts"]} == {expected}
    assert set(record["accounts"][0]) == {
        "id",
        "createdAt",
        "updatedAt",
        "ownerId",
        "status",
        "aaAddress",
        "chainId",
        "network",
        "clientId",
        "appId",
        "version",
    }


def test_creation_is_idempotent_by_address_in_any_letter_case(api, tenant, two_networks):
    first = create(api, tenant).json_body["data"]
    for spelling in (OWNER, OWNER.lower(), "0x" + OWNER[2:].upper()):
        again = create(api, tenant, spelling)
        assert again.status_code == 200 and again.json_body["data"] == first


def test_concurrent_creations_make_one_record(api, tenant, two_networks):
    with ThreadPoolExecutor(10) as pool:
        answers = list(pool.map(lambda _: create(api, tenant), range(10)))
    assert {a.status_code for a in answers} == {200}
    assert len({a.json_body["data"]["id"] for a in answers}) == 1
    owners = [
        i for i in aws.table("smart-accounts").scan()["Items"] if i["sk"] == "OWNER" and i["pk"].startswith("OWNER#")
    ]
    assert len(owners) == 1
    tanks = [i for i in aws.table("gas-tanks").scan()["Items"] if i["sk"] == "TANK" and i["pk"].startswith("TANK#")]
    assert len(tanks) == 1


def test_a_network_added_later_gets_its_account_on_the_next_call(api, tenant, use_networks):
    use_networks([aa_network("local-a", 31337)])
    first = create(api, tenant).json_body["data"]
    assert len(first["accounts"]) == 1
    use_networks([aa_network("local-a", 31337), aa_network("local-b", 31338)])
    second = create(api, tenant).json_body["data"]
    assert second["id"] == first["id"] and [a["chainId"] for a in second["accounts"]] == [31337, 31338]
    assert second["accounts"][0] == first["accounts"][0]


def test_owners_are_per_app_and_found_by_id_or_address(api, tenant, two_networks):
    record = create(api, tenant).json_body["data"]
    for key in (record["id"], OWNER, OWNER.lower()):
        found = call(api, tenant, "GET", f"/api/v1/smart-account/{key}")
        assert found.status_code == 200 and found.json_body["data"] == record
    other = tenancy.create_tenant("Other")
    for key in (record["id"], OWNER):
        hidden = call(api, other, "GET", f"/api/v1/smart-account/{key}")
        assert hidden.status_code == 404 and hidden.json_body["data"]["code"] == "OWNER_NOT_FOUND"
    theirs = create(api, other).json_body["data"]
    assert theirs["id"] != record["id"] and theirs["accounts"][0]["aaAddress"] == record["accounts"][0]["aaAddress"]


@pytest.mark.parametrize(
    ("owner", "code"),
    [
        ({"id": OWNER, "provider": "google"}, "UNSUPPORTED_PROVIDER"),
        ({"id": "0x1234", "provider": "wallet"}, "INVALID_ADDRESS"),
        ({"id": OWNER[:-1] + OWNER[-1].swapcase(), "provider": "wallet"}, "INVALID_ADDRESS"),  # wrong checksum
        ({"id": OWNER}, "VALIDATION_ERROR"),
        ({"id": OWNER, "provider": "wallet", "extra": 1}, "VALIDATION_ERROR"),
    ],
)
def test_bad_owners_are_400_and_change_nothing(api, tenant, two_networks, owner, code):
    answer = call(api, tenant, "POST", "/api/v1/smart-account", {"owner": owner})
    assert answer.status_code == 400 and answer.json_body["data"]["code"] == code
    assert aws.table("smart-accounts").scan()["Items"] == []


def test_networks_lists_only_networks_with_smart_accounts(api, tenant, use_networks):
    plain = {"name": "plain", "chainId": 5, "rpcUrls": ["http://127.0.0.1:9"], "nativeSymbol": "ETH"}
    use_networks([aa_network("local-a", 31337), plain])
    answer = call(api, tenant, "GET", "/api/v1/networks")
    assert answer.status_code == 200
    [network] = answer.json_body["data"]["networks"]
    assert network["name"] == "local-a" and network["usdt"] == {"address": "0x" + "12" * 20, "decimals": 6}
    assert network["bundlerVersion"] == "0.7" and network["accountVersion"] == counterfactual.ACCOUNT_VERSION
    assert network["poolAddress"] == "0x" + "56" * 20


@pytest.mark.parametrize(
    "missing",
    ["entryPoint", "accountFactory", "paymaster", "bundlerUrls", "poolAddress", "usdtDecimals", "nativeToGasTankRate"],
)
def test_a_half_configured_network_stops_start_up_naming_the_field(use_networks, missing):
    entry = aa_network("local-a", 31337)
    del entry[missing]
    use_networks([entry])
    with pytest.raises(settings.SettingsError, match=missing):
        networks.registry()


def test_a_usdt_token_alone_is_not_a_half_configured_network(use_networks):
    """Wallets use tokens.usdt without smart accounts; only the smart-account fields require the rest."""
    plain = {"name": "plain", "chainId": 5, "rpcUrls": ["http://127.0.0.1:9"], "nativeSymbol": "ETH"}
    use_networks([{**plain, "tokens": {"usdt": "0x" + "12" * 20}}])
    assert not networks.registry().networks[0].supports_smart_accounts
    entry = aa_network("local-a", 31337)
    del entry["tokens"]
    use_networks([entry])
    with pytest.raises(settings.SettingsError, match=r"tokens\.usdt"):
        networks.registry()


@pytest.mark.parametrize("rate", ["0", "-1", "abc", "1e5", "NaN"])
def test_a_bad_rate_stops_start_up(use_networks, rate):
    use_networks([aa_network("local-a", 31337, nativeToGasTankRate=rate)])
    with pytest.raises(settings.SettingsError, match="nativeToGasTankRate"):
        networks.registry()


EIP7702 = {
    "entryPointV08": "0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108",
    "eip7702Account": "0xe6Cae83BdE06E4c305530e199D7217f42808555B",
    "paymasterV08": "0x" + "9a" * 20,
}


def test_eip7702_accounts_are_the_owners_own_address_on_the_networks_that_have_them(api, tenant, use_networks):
    """`accountType: "eip7702"`: one account per network with EIP-7702 accounts, at the owner's address, beside the
    owner's simple accounts in one record; simple accounts keep the reference API's shape (no `accountType`)."""
    use_networks([aa_network("local-a", 31337, **EIP7702), aa_network("local-b", 31338)])
    body = {"owner": {"id": OWNER, "provider": "wallet"}, "accountType": "eip7702"}
    first = call(api, tenant, "POST", "/api/v1/smart-account", body).json_body["data"]
    [account] = first["accounts"]
    assert (account["aaAddress"], account["network"], account["accountType"], account["version"]) == (
        OWNER,
        "local-a",
        "eip7702",
        "simple7702-0.8",
    )
    both = create(api, tenant).json_body["data"]  # the same owner, simple accounts: added to the record
    assert both["id"] == first["id"]
    assert [(a["network"], a.get("accountType")) for a in both["accounts"]] == [
        ("local-a", "eip7702"),
        ("local-a", None),
        ("local-b", None),
    ]
    assert call(api, tenant, "POST", "/api/v1/smart-account", body).json_body["data"] == both  # idempotent
    listed = {n["name"]: n for n in call(api, tenant, "GET", "/api/v1/networks").json_body["data"]["networks"]}
    assert listed["local-a"]["eip7702Account"] == EIP7702["eip7702Account"] and "entryPointV08" not in listed["local-b"]


def test_eip7702_accounts_need_a_network_that_has_them(api, tenant, two_networks):
    body = {"owner": {"id": OWNER, "provider": "wallet"}, "accountType": "eip7702"}
    answer = call(api, tenant, "POST", "/api/v1/smart-account", body)
    assert (answer.status_code, answer.json_body["data"]["code"]) == (422, "NO_EIP7702_NETWORK")
    assert create(api, tenant).json_body["data"]["accounts"]  # nothing was stored: the owner is new here


@pytest.mark.parametrize("missing", ["entryPointV08", "eip7702Account", "paymasterV08"])
def test_half_configured_eip7702_accounts_stop_start_up(use_networks, missing):
    use_networks([aa_network("local-a", 31337, **{k: v for k, v in EIP7702.items() if k != missing})])
    with pytest.raises(settings.SettingsError, match=missing):
        networks.registry()
