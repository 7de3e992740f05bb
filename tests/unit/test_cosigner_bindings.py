"""An app's client, for its signing policies, is the operator's word, not `tenancy`'s (policies/store.py,
`register_policy_key`; the operator's `set-policy-key`).

The API function writes `tenancy` (the console makes and changes apps there), so a compromised one can move an app
to another client before the operator registers the app's first policy key: the documents the integrator then
signs would govern that other client's wallets, and none of the app's own. The operator names the app's client
with its first key; `tenancy` must agree, and a replacement keeps the client recorded with the first key.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from nacl.signing import SigningKey

from chalicelib import operator as admin
from chalicelib.mpc import cosigner_checks as signing_policies
from chalicelib.platform import aws, resources
from chalicelib.platform.invocation import running_as
from chalicelib.policies import store
from chalicelib.tenancy import service as tenancy


def _public(key: SigningKey) -> str:
    return base64.b64encode(bytes(key.verify_key)).decode()


def _move_app(app_id: str, client_id: str, organization_id: str) -> None:
    """What a compromised API function can write, with its own grants: the app's record, in another client."""
    grants = {(g.kind, g.name): g.access for g in resources.function("api_handler").grants}
    assert grants[("table", "tenancy")] == "read_write"
    with running_as("api_handler"):
        aws.table("tenancy").update_item(
            Key={"pk": f"APP#{app_id}", "sk": "META"},
            UpdateExpression="SET clientId = :c, organizationId = :o",
            ExpressionAttributeValues={":c": client_id, ":o": organization_id},
        )


def _cosigner_table() -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = aws.table(signing_policies.COSIGNER_POLICY_TABLE).scan(ConsistentRead=True)["Items"]
    return items


@pytest.fixture
def attacker(aws_env: None) -> Any:
    return tenancy.create_tenant("Mallory")


def test_a_first_key_binds_the_app_to_the_client_the_operator_names_and_tenancy_must_agree(
    tenant: Any, attacker: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    key = _public(SigningKey.generate())
    _move_app(tenant.appId, attacker.clientId, attacker.organizationId)
    # The operator names the app's client as its integrator gave it: tenancy (moved) disagrees, nothing is recorded.
    with pytest.raises(store.AppClientError):
        store.register_policy_key(tenant.appId, key, tenant.clientId)
    assert admin.main(["set-policy-key", "--app-id", tenant.appId, "--client-id", tenant.clientId, "--public-key", key])
    assert f"tenancy does not put app {tenant.appId} in client {tenant.clientId}" in capsys.readouterr().err
    # Without a client named, the command does not take tenancy's (the attacker's) either.
    assert admin.main(["set-policy-key", "--app-id", tenant.appId, "--public-key", key]) == 1
    assert "--client-id" in capsys.readouterr().err
    with pytest.raises(store.AppClientError):
        store.register_policy_key(tenant.appId, key)
    assert _cosigner_table() == []

    # Back where it belongs: registered for the named client, which tenancy now agrees with.
    _move_app(tenant.appId, tenant.clientId, tenant.organizationId)
    assert (
        admin.main(["set-policy-key", "--app-id", tenant.appId, "--client-id", tenant.clientId, "--public-key", key])
        == 0
    )
    record = json.loads(capsys.readouterr().out)
    assert record["clientId"] == tenant.clientId and record["sequence"] == 1
    assert store.app_client(tenant.appId) == tenant.clientId


def test_a_replacement_keeps_the_client_recorded_with_the_first_key(tenant: Any, attacker: Any) -> None:
    store.register_policy_key(tenant.appId, _public(SigningKey.generate()), tenant.clientId)
    _move_app(tenant.appId, attacker.clientId, attacker.organizationId)
    # The operator replaces a lost key: the app stays bound to its client, whatever tenancy says now.
    replaced = store.register_policy_key(tenant.appId, _public(SigningKey.generate()))
    assert replaced["clientId"] == tenant.clientId and replaced["sequence"] == 2 and replaced["replaced"]
    # Naming the client tenancy now gives is refused: the key is registered for the app's own client.
    with pytest.raises(store.AppClientError):
        store.register_policy_key(tenant.appId, _public(SigningKey.generate()), attacker.clientId)
    current = store.get_key(tenant.appId)
    assert current is not None and current.client_id == tenant.clientId and current.sequence == 2
