"""A signed policy document belongs to one app, over HTTP against the local stack (`make dev`): the operator registers
one integrator key for a staging app and a production app of the same client; the document signed for staging
(`default: allow`, a high version) is refused on production, and production's policy still governs its wallets."""

from __future__ import annotations

import base64
import json
import uuid
from datetime import UTC, datetime
from typing import Any

import pytest
import requests
import rfc8785
from nacl.signing import SigningKey

from tests.support.devstack import signed
from tests.support.operator import operator

pytestmark = pytest.mark.integration


def _call(stack: dict[str, Any], app: dict[str, str], method: str, path: str, body: Any = None) -> requests.Response:
    timestamp = datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")
    raw = json.dumps(body).encode() if body is not None else b""
    return signed(stack["info"], method, path, raw, timestamp, app_id=app["appId"], secret=app["appSecret"])


def _signature(key: SigningKey, app_id: str, policy: dict[str, Any]) -> str:
    """As docs/examples/sign_policy.py signs: Ed25519 over the RFC 8785 JSON of {appId, policy}."""
    return base64.b64encode(key.sign(rfc8785.dumps({"appId": app_id, "policy": policy})).signature).decode()


def test_a_document_signed_for_one_app_is_refused_on_another_app_with_the_same_key(stack) -> None:
    staging = json.loads(operator(stack, "create-tenant", "--name", f"binding-{uuid.uuid4().hex[:8]}"))
    production = json.loads(operator(stack, "create-app", "--client-id", staging["clientId"], "--name", "Production"))
    key = SigningKey.generate()
    public = base64.b64encode(bytes(key.verify_key)).decode()
    for app in (staging, production):
        operator(
            stack, "set-policy-key", "--app-id", app["appId"], "--client-id", app["clientId"], "--public-key", public
        )

    strict = {"version": 1, "default": "deny", "messages": {"personal": False}}
    answer = _call(
        stack,
        production,
        "PUT",
        "/api/v1/policies",
        {"policy": strict, "signature": _signature(key, production["appId"], strict)},
    )
    assert answer.status_code == 200, answer.text
    loose = {"version": 99, "default": "allow"}
    staging_body = {"policy": loose, "signature": _signature(key, staging["appId"], loose)}
    assert _call(stack, staging, "PUT", "/api/v1/policies", staging_body).status_code == 200

    replay = _call(stack, production, "PUT", "/api/v1/policies", staging_body)
    assert replay.status_code == 403, replay.text
    assert replay.json()["data"]["code"] == "POLICY_SIGNATURE_INVALID"
    current = _call(stack, production, "GET", "/api/v1/policies").json()["data"]
    assert current["policy"] == strict and current["version"] == 1
    # Production's strict document is the one the cosigner applies: a personal message is still refused.
    decision = _call(stack, production, "POST", "/api/v1/policies/evaluate", {"message": "hello"})
    assert decision.status_code == 200, decision.text
    assert decision.json()["data"]["allowed"] is False
    assert decision.json()["data"]["rule"] == "messages.personal"
