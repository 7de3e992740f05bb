"""The organization whose allowlists bind a custody key's withdrawals is the cosigner's own record, made at the
key's generation, and the operator's allowlist items: never `tenancy`, which the API function writes (the
console). On anvil, with the real custody key and the in-process cosigner.

A compromised API function moves apps between organizations in `tenancy` with its own grants, then has the
worker send withdrawals (forged or accepted by itself): the cosigner refuses them, and nothing leaves the pool.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import pytest
from eth_account import Account

from chalicelib import operator as admin
from chalicelib.custody.store import get
from chalicelib.custody.withdrawals import lifecycle as withdrawals
from chalicelib.custody.withdrawals import operator_policy, sending
from chalicelib.mpc.cosigner_checks import COSIGNER_POLICY_TABLE
from chalicelib.platform import aws, resources
from chalicelib.platform.invocation import running_as
from chalicelib.tenancy import service as tenancy
from tests.support.custody import funded_account, request_withdrawal, run_withdrawal, token_balance

pytestmark = pytest.mark.integration


def as_api_function(table: str, write: Callable[[Any], object]) -> None:
    """A write the API function's own grants allow (resources.py; the IAM test checks the call too)."""
    grants = {(g.kind, g.name): g.access for g in resources.function("api_handler").grants}
    assert grants.get(("table", table)) == "read_write", f"the API function cannot write {table}"
    with running_as("api_handler"):
        write(aws.table(table))


def move_app(app_id: str, organization_id: str, client_id: str | None = None) -> None:
    names = {"organizationId": organization_id, **({"clientId": client_id} if client_id else {})}
    expression = "SET " + ", ".join(f"{name} = :{name}" for name in names)
    as_api_function(
        "tenancy",
        lambda table: table.update_item(
            Key={"pk": f"APP#{app_id}", "sk": "META"},
            UpdateExpression=expression,
            ExpressionAttributeValues={f":{name}": value for name, value in names.items()},
        ),
    )


def allowlist(app_id: str, organization_id: str, *addresses: str, off: bool = False) -> int:
    """The operator's command: the only writer of the allowlists (no function may write `custody-policy`); the
    operator names the app's organization."""
    assert ("table", "custody-policy", "read") in {
        (g.kind, g.name, g.access) for g in resources.function("api_handler").grants
    }
    args = [
        "set-withdrawal-allowlist",
        "--app-id",
        app_id,
        "--organization-id",
        organization_id,
        *(a for address in addresses for a in ("--address", address)),
    ]
    return admin.main(args + (["--off"] if off else []))


def key_record(key_id: str) -> dict[str, Any]:
    item: dict[str, Any] = aws.table(COSIGNER_POLICY_TABLE).get_item(
        Key={"pk": f"CUSTODYKEY#{key_id}", "sk": "KEY"}, ConsistentRead=True
    )["Item"]
    return item


def test_an_app_moved_into_an_organization_does_not_bring_its_allowlist_into_the_organizations_pool(custody):
    """Another organization's app has the operator's allowlist (its own addresses), or `--off`. The API function moves
    it into this organization and forges a withdrawal of it from this organization's funded pool, within every
    limit: the allowlist was set for the other organization, so the cosigner reads it as on and empty."""
    home = custody["tenant"]
    account = funded_account(custody, usdt=5_000_000, sub_id="org-pool", pool_type="organization_owned")
    address = account["wallets"][0]["address"]
    account_item = get(f"ACCOUNT#{account['id']}", "ACCOUNT")
    assert key_record(account_item["mpcSubId"])["organizationId"] == home.organizationId
    paid = request_withdrawal(custody, account, "1").json_body["data"]
    record = get(**withdrawals.key(paid["id"]))
    assert allowlist(home.appId, home.organizationId, record["to"]) == 0  # this organization's allowlists are on
    assert run_withdrawal(paid["id"], custody)["status"] == "success"  # the honest flow pays

    stranger = tenancy.create_tenant("Other")
    thief = Account.create().address
    for own in ({"addresses": [thief]}, {"off": True}):
        move_app(stranger.appId, stranger.organizationId, stranger.clientId)  # where the operator knows it
        assert (
            allowlist(stranger.appId, stranger.organizationId, *own.get("addresses", []), off=bool(own.get("off"))) == 0
        )
        move_app(stranger.appId, home.organizationId, home.clientId)
        forged_account = {**account_item, "appId": stranger.appId}
        as_api_function("custody", lambda table, item=forged_account: table.put_item(Item=item))
        fake = {**record, "id": str(uuid.uuid4()), "appId": stranger.appId, "to": thief, "amountInDecimals": "500000"}
        fake.update(withdrawals.key(fake["id"]))
        as_api_function("custody", lambda table, item=fake: table.put_item(Item=item))
        sending.process(fake["id"])
        assert get(**withdrawals.key(fake["id"]))["failedReason"] == "policy_refused", own
        assert token_balance(custody, 31337, "usdt", thief) == 0, own
    assert token_balance(custody, 31337, "usdt", address) == 4_000_000


def test_a_dedicated_key_keeps_the_organization_it_was_made_in(custody):
    """An app with its own (dedicated) pool, in an organization where another app's allowlist is on: it may send
    nowhere. The API function moves it into an organization without allowlists and forges a withdrawal of it to
    its own address, within every limit: the cosigner judges it under the organization it recorded with the key."""
    home = custody["tenant"]
    account = funded_account(custody, usdt=5_000_000, sub_id="dedicated")
    address = account["wallets"][0]["address"]
    key_id = get(f"ACCOUNT#{account['id']}", "ACCOUNT")["mpcSubId"]
    assert key_record(key_id)["scope"] == f"app:{home.appId}"
    assert key_record(key_id)["organizationId"] == home.organizationId
    template = get(**withdrawals.key(request_withdrawal(custody, account, "1").json_body["data"]["id"]))
    sibling, _ = tenancy.create_app(home.clientId, "Sibling")
    assert allowlist(sibling.appId, home.organizationId, Account.create().address) == 0
    refused = request_withdrawal(custody, account, "1")  # the honest API refuses it too
    assert refused.status_code == 422 and refused.json_body["data"]["code"] == "DESTINATION_NOT_ALLOWED"

    elsewhere = tenancy.create_tenant("Elsewhere")
    move_app(home.appId, elsewhere.organizationId)
    thief = Account.create().address
    fake = {**template, "id": str(uuid.uuid4()), "to": thief}
    fake.update(withdrawals.key(fake["id"]))
    as_api_function("custody", lambda table: table.put_item(Item=fake))
    sending.process(fake["id"])
    assert get(**withdrawals.key(fake["id"]))["failedReason"] == "policy_refused"
    assert token_balance(custody, 31337, "usdt", thief) == 0
    assert token_balance(custody, 31337, "usdt", address) == 5_000_000


def test_a_key_whose_organization_is_not_recorded_signs_nothing(custody):
    """A dedicated key whose record names no organization (every key is recorded with one at its generation): the
    cosigner signs none of its withdrawals, even with the operator's allowlist set for its app."""
    home = custody["tenant"]
    account = funded_account(custody, usdt=3_000_000, sub_id="unrecorded")
    key_id = get(f"ACCOUNT#{account['id']}", "ACCOUNT")["mpcSubId"]
    item = key_record(key_id)
    aws.table(COSIGNER_POLICY_TABLE).put_item(Item={name: item[name] for name in ("pk", "sk", "scope", "address")})
    recipient = Account.create().address
    assert allowlist(home.appId, home.organizationId, recipient) == 0
    paid = request_withdrawal(custody, account, "1", to=recipient).json_body["data"]
    record = run_withdrawal(paid["id"], custody)
    assert record["status"] == "failed" and record["failedReason"] == "policy_refused"
    assert token_balance(custody, 31337, "usdt", recipient) == 0


def test_the_operator_names_the_organization_an_allowlist_is_set_for(tenant, capsys):
    """`set-withdrawal-allowlist` takes the app's organization from the operator, not from `tenancy` (which the
    API function writes): `tenancy` must agree, and an allowlist recorded for one organization is never set for
    another, even when `tenancy` has moved the app there."""
    address = Account.create().address
    with pytest.raises(SystemExit):  # not named
        admin.main(["set-withdrawal-allowlist", "--app-id", tenant.appId, "--address", address])
    elsewhere = tenancy.create_tenant("Elsewhere")
    capsys.readouterr()
    assert allowlist(tenant.appId, elsewhere.organizationId, address) == 1
    assert f"tenancy does not put app {tenant.appId} in organization" in capsys.readouterr().err
    item = {"pk": f"ALLOWLIST#{tenant.appId}", "sk": "ALLOWLIST"}
    assert "Item" not in aws.table(operator_policy.CUSTODY_POLICY_TABLE).get_item(Key=item, ConsistentRead=True)

    assert allowlist(tenant.appId, tenant.organizationId, address) == 0
    before = aws.table(operator_policy.CUSTODY_POLICY_TABLE).get_item(Key=item, ConsistentRead=True)["Item"]
    assert before["organizationId"] == tenant.organizationId
    move_app(tenant.appId, elsewhere.organizationId, elsewhere.clientId)
    for own in ({"addresses": [address]}, {"off": True}):
        capsys.readouterr()
        assert allowlist(tenant.appId, elsewhere.organizationId, *own.get("addresses", []), off="off" in own) == 1
        assert f"set for organization {tenant.organizationId}" in capsys.readouterr().err
    after = aws.table(operator_policy.CUSTODY_POLICY_TABLE).get_item(Key=item, ConsistentRead=True)["Item"]
    assert after == before
    assert operator_policy.allowlist(tenant.appId, elsewhere.organizationId)["inherited"] is False
    assert (
        operator_policy.allowlist("another-app", elsewhere.organizationId)["enabled"] is False
    )  # no apps listed there
