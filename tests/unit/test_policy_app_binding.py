"""A signed policy document belongs to one app: the policy key signs `{"appId", "policy"}`, and the cosigner verifies
the signature over the app the document is being set on. One key registered for two apps (a staging app and a
production app) cannot carry a document from one to the other, whether the API route or a compromised API function
(which calls the cosigner's `policy-set` action with any app id it likes) brings it."""

from __future__ import annotations

import base64
from types import SimpleNamespace
from typing import Any

import pytest
from nacl.signing import SigningKey

from chalicelib.mpc import parties
from chalicelib.policies import signed
from chalicelib.policies.cosigner_check import register_policy_key
from chalicelib.tenancy import service as tenancy
from chalicelib.wiring import wire
from tests.support.family_s import call

LOOSE = {"version": 99, "default": "allow"}  # what staging runs
STRICT = {"version": 1, "default": "deny", "messages": {"personal": False}}  # what production runs


@pytest.fixture
def two_apps(tenant: Any, use_networks: Any) -> tuple[Any, Any, SigningKey]:
    """Staging (the tenant's app) and production (a second app of the same client), one policy key for both; each
    as Family S signs its calls (appId, appSecret)."""
    wire()
    use_networks([{"name": "local-a", "chainId": 31337, "rpcUrls": ["http://127.0.0.1:9"], "nativeSymbol": "ETH"}])
    app, secret = tenancy.create_app(tenant.clientId, "Production")
    production = SimpleNamespace(appId=app.appId, appSecret=secret)
    key = SigningKey.generate()
    public = base64.b64encode(bytes(key.verify_key)).decode()
    register_policy_key(tenant.appId, public, tenant.clientId)
    register_policy_key(production.appId, public, tenant.clientId)
    return tenant, production, key


def _signature(key: SigningKey, app_id: str, policy: dict[str, Any]) -> str:
    return base64.b64encode(key.sign(signed.policy_message(app_id, policy)).signature).decode()


def _policy_set(app_id: str, policy: dict[str, Any], signature: str) -> dict[str, Any]:
    return parties.cosigner({"action": "policy-set", "appId": app_id, "policy": policy, "signature": signature})


def _document(app_id: str) -> Any:
    return parties.cosigner({"action": "policy-get", "appId": app_id})["policy"]


def test_the_signed_message_names_the_app() -> None:
    policy = {"version": 1, "default": "deny"}
    assert signed.policy_message("app_1", policy) == b'{"appId":"app_1","policy":{"default":"deny","version":1}}'
    key = SigningKey(bytes(range(32)))
    signature = key.sign(signed.policy_message("app_1", policy)).signature
    public = bytes(key.verify_key)
    assert signed.verify(public, signed.policy_message("app_1", policy), signature)
    assert not signed.verify(public, signed.policy_message("app_2", policy), signature)
    assert not signed.verify(public, signed.canonical(policy), signature)  # the bare document is not what is signed


def test_a_compromised_api_function_cannot_install_one_app_s_document_on_another(two_apps) -> None:
    staging, production, key = two_apps
    answer = _policy_set(production.appId, STRICT, _signature(key, production.appId, STRICT))
    assert answer["ok"], answer
    staging_body = {"policy": LOOSE, "signature": _signature(key, staging.appId, LOOSE)}
    assert _policy_set(staging.appId, **staging_body)["ok"]

    # The API function forwards staging's signed body as production's: the signature does not cover production.
    refused = _policy_set(production.appId, **staging_body)
    assert refused["ok"] is False and refused["code"] == "POLICY_SIGNATURE_INVALID"
    assert _document(production.appId) == STRICT and _document(staging.appId) == LOOSE


def test_a_replay_of_another_app_s_signed_body_is_403_and_changes_nothing(two_apps, api) -> None:
    staging, production, key = two_apps
    strict = {"policy": STRICT, "signature": _signature(key, production.appId, STRICT)}
    assert call(api, production, "PUT", "/api/v1/policies", strict).status_code == 200
    staging_body = {"policy": LOOSE, "signature": _signature(key, staging.appId, LOOSE)}
    assert call(api, staging, "PUT", "/api/v1/policies", staging_body).status_code == 200

    replay = call(api, production, "PUT", "/api/v1/policies", staging_body)
    assert replay.status_code == 403 and replay.json_body["data"]["code"] == "POLICY_SIGNATURE_INVALID"
    assert call(api, production, "GET", "/api/v1/policies").json_body["data"]["policy"] == STRICT
