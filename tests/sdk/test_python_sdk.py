"""The Python SDK (sdk/python, import `dompet`) without the local stack: its Family S signatures against the
documented vectors and the service's own verifier (the app in process, through an httpx transport), idempotency
keys, retries (which requests, how often, how long), typed errors, pages, self-refreshing user sessions, webhook
verification (deliveries signed by the service's own code), the asyncio variant, that the committed generated
code is current, and that `pip install ./sdk/python` works in a fresh virtual environment."""

from __future__ import annotations

import asyncio
import base64
import email.message
import json
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

ROOT = Path(__file__).resolve().parents[2]
SDK = ROOT / "sdk" / "python"
if str(SDK) not in sys.path:
    sys.path.insert(0, str(SDK))

import dompet  # noqa: E402
from dompet import webhooks  # noqa: E402
from dompet._signing import canonical_query, sign  # noqa: E402
from dompet._transport import RetryPolicy  # noqa: E402

BASE = "https://api.example.test"
APP_ID = "0b7d5f3e-5a8c-4c1e-9d1a-2f6b8e4c7a10"
APP_SECRET = "das_example-secret-do-not-use"
NO_WAIT = RetryPolicy(max_retries=3, base_delay_s=0.0, max_delay_s=0.0)


def envelope(data: Any, status: int = 200, message: str = "ok") -> dict[str, Any]:
    return {"status": status, "message": message, "data": data}


def error(status: int, code: str, message: str = "no") -> httpx.Response:
    return httpx.Response(status, json={"status": status, "message": message, "data": {"code": code}})


class Recorder:
    """An httpx mock transport answering from a list (or a function), keeping every request it saw."""

    def __init__(self, *answers: Any) -> None:
        self.answers = list(answers)
        self.seen: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        request.read()  # a copy: the transport reuses the request object for each attempt
        self.seen.append(
            httpx.Request(request.method, request.url, headers=request.headers.copy(), content=request.content)
        )
        answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        if callable(answer):
            answer = answer(request)
        if isinstance(answer, Exception):
            raise answer
        if isinstance(answer, httpx.Response):
            return answer
        return httpx.Response(200, json=envelope(answer))

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self)


def app_client(*answers: Any, retry: RetryPolicy = NO_WAIT) -> tuple[dompet.Dompet, Recorder]:
    recorder = Recorder(*answers)
    return dompet.Dompet(BASE, app_id=APP_ID, app_secret=APP_SECRET, retry=retry, transport=recorder.transport()), (
        recorder
    )


# ------------------------------------------------------------------------------------------------------ signatures


def test_signatures_match_the_documented_vectors():
    # docs/authentication.md, "Worked example".
    stamp = "2026-11-22T10:00:00Z"
    assert sign(APP_SECRET, stamp, "GET", "/api/v1/auth/whoami", b"") == (
        "b0c8caa60b57ad2e5120819c513ff4c175314beb35696f178acc76bad9d3ef52"
    )
    body = b'{"url":"https://example.com/hook"}'
    assert sign(APP_SECRET, stamp, "put", "/api/v1/webhooks/settings", body) == (
        "ef89b4e64578d6c74ec4a83818384bb1c4d5ab64bfb6e1db9cd9775abebdb473"
    )


def test_each_request_is_signed_over_what_is_sent_as_the_service_verifies_it():
    from chalicelib.auth import signing as server

    d, seen = app_client({"ok": True})
    d.request("GET", "/api/v1/userOp", params={"limit": 2, "b": "x y+z", "a": ["1", "2"]})
    d.request("PUT", "/api/v1/webhooks/settings", {"url": "https://example.com/hook"})
    for request in seen.seen:
        headers = request.headers
        assert headers["X-APP-ID"] == APP_ID and "x-client-secret" not in headers
        server.parse_timestamp(headers["X-TIMESTAMP"])  # RFC 3339 with offset, as the service reads it
        signed_path = request.url.raw_path.decode()
        expected = server.sign(APP_SECRET, headers["X-TIMESTAMP"], request.method, signed_path, request.content)
        assert headers["X-SIGNATURE"] == expected
    # The query is sent in canonical form (RFC 3986, names in order of first appearance), so signed == received.
    assert seen.seen[0].url.query.decode() == "limit=2&b=x%20y%2Bz&a=1&a=2"
    assert seen.seen[1].content == b'{"url":"https://example.com/hook"}'
    assert canonical_query("b=2&a=%7e&b=1&c") == "b=2&b=1&a=~&c="


def test_a_stage_prefix_in_the_base_url_is_not_signed():
    recorder = Recorder({"ok": True})
    d = dompet.Dompet(BASE + "/prod", app_id=APP_ID, app_secret=APP_SECRET, transport=recorder.transport())
    d.request("GET", "/api/v1/auth/whoami")
    request = recorder.seen[0]
    assert request.url.path == "/prod/api/v1/auth/whoami"
    assert request.headers["X-SIGNATURE"] == sign(
        APP_SECRET, request.headers["X-TIMESTAMP"], "GET", "/api/v1/auth/whoami", b""
    )


class ChaliceTransport(httpx.BaseTransport):
    """The app in process (chalice.test.Client) behind an httpx transport: the SDK against the real routes."""

    def __init__(self, http: Any) -> None:
        self.http = http

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        answer = self.http.request(
            request.method,
            request.url.raw_path.decode(),
            headers={k: v for k, v in request.headers.items() if k.lower() != "host"},
            body=request.read(),
        )
        return httpx.Response(answer.status_code, headers=dict(answer.headers), content=answer.body)


def test_the_service_accepts_the_sdks_signatures_and_sessions(api, tenant):
    signed = dompet.Dompet(BASE, app_id=tenant.appId, app_secret=tenant.appSecret, transport=ChaliceTransport(api))
    assert signed.request("GET", "/api/v1/auth/whoami")["appId"] == tenant.appId
    assert signed.call(dompet.api.get_auth_whoami).app_id == tenant.appId  # the generated, typed operation
    settings = dompet.api.get_webhooks_settings.sync(client=signed.client)
    assert settings.data.enabled is False
    with pytest.raises(dompet.ConflictError) as refused:  # a signed POST (replay-protected) reaches the route
        signed.request("POST", "/api/v1/webhooks/test")
    assert refused.value.status == 409 and refused.value.code == "WEBHOOK_NOT_CONFIGURED"
    pages = list(signed.pages("/api/v1/webhooks/deliveries", limit=5))
    assert [(p.page, p.total, p.has_next) for p in pages] == [(1, 0, False)]

    forged = dompet.Dompet(BASE, app_id=tenant.appId, app_secret="das_wrong", transport=ChaliceTransport(api))
    with pytest.raises(dompet.AuthenticationError) as denied:
        forged.request("GET", "/api/v1/auth/whoami")
    assert (denied.value.status, denied.value.code) == (401, "INVALID_SIGNATURE")

    family_w = dompet.Dompet(BASE, client_secret=tenant.clientSecret, transport=ChaliceTransport(api))
    alice = family_w.login("alice")
    assert not alice.is_wallet_created
    session = alice.request("GET", "/api/v1/auth/session")
    assert session["subId"] == "alice" and session["tokenType"] == "access"
    before = alice.token
    alice.refresh()
    assert alice.token != before and alice.request("GET", "/api/v1/auth/session")["subId"] == "alice"
    with pytest.raises(dompet.PermissionDeniedError) as wallet_needed:
        alice.request("POST", "/api/v1/wallet/balance-coin", {"network": "local-a"})
    assert wallet_needed.value.code == "WALLET_TOKEN_REQUIRED"


def test_policies_signed_by_the_sdk_are_set_for_their_app_only_and_rotations_accepted(api, tenant, use_networks):
    from chalicelib.policies.cosigner_check import register_policy_key
    from chalicelib.tenancy import service as tenancy
    from chalicelib.wiring import wire

    wire()
    use_networks([{"name": "local-a", "chainId": 31337, "rpcUrls": ["http://127.0.0.1:9"], "nativeSymbol": "ETH"}])
    key = dompet.policies.load_key(base64.b64encode(bytes(range(32))).decode())
    other_app, other_secret = tenancy.create_app(tenant.clientId, "Production")
    for app_id in (tenant.appId, other_app.appId):
        register_policy_key(app_id, dompet.policies.public_key(key), tenant.clientId)
    signed = dompet.Dompet(BASE, app_id=tenant.appId, app_secret=tenant.appSecret, transport=ChaliceTransport(api))
    other = dompet.Dompet(BASE, app_id=other_app.appId, app_secret=other_secret, transport=ChaliceTransport(api))

    # Key order and formatting are the SDK's business: the service verifies the canonical bytes.
    body = dompet.policies.sign_policy(tenant.appId, {"version": 2, "default": "deny", "networks": ["local-a"]}, key)
    assert signed.request("PUT", "/api/v1/policies", body)["version"] == 2
    with pytest.raises(dompet.PermissionDeniedError) as replayed:
        other.request("PUT", "/api/v1/policies", body)
    assert replayed.value.code == "POLICY_SIGNATURE_INVALID"
    assert other.request("GET", "/api/v1/policies")["policy"] is None

    new_key = Ed25519PrivateKey.generate()
    rotation = dompet.policies.sign_key_rotation(tenant.appId, dompet.policies.public_key(new_key), 2, key)
    assert signed.request("PUT", "/api/v1/policies/key", rotation)["sequence"] == 2
    newer = dompet.policies.sign_policy(tenant.appId, {"version": 3}, new_key)
    assert signed.request("PUT", "/api/v1/policies", newer)["version"] == 3


# ------------------------------------------------------------------------------------------ idempotency and retries


def test_posts_carry_an_idempotency_key_and_the_callers_is_kept():
    d, seen = app_client({"ok": True})
    d.request("POST", "/api/v1/smart-account", {"owner": {"id": "0x00", "provider": "wallet"}})
    d.request("POST", "/api/v1/smart-account", {}, idempotency_key="order-42")
    d.request("GET", "/api/v1/networks")
    first, second, get = seen.seen
    assert uuid.UUID(first.headers["Idempotency-Key"]).version == 4
    assert second.headers["Idempotency-Key"] == "order-42"
    assert "Idempotency-Key" not in get.headers


def test_idempotent_requests_are_retried_signed_afresh_and_keyed_posts_with_the_same_key():
    d, seen = app_client(error(503, "UNAVAILABLE"), httpx.ConnectError("refused"), error(429, "RATE_LIMITED"), "sent")
    assert d.request("POST", "/api/v1/wallet/send-coin", {"to": "0x00", "amount": "1"}) == "sent"
    assert len(seen.seen) == 4
    assert len({r.headers["Idempotency-Key"] for r in seen.seen}) == 1  # the service replays, never acts twice
    assert len({r.headers["X-SIGNATURE"] for r in seen.seen}) == 4  # a new timestamp each: never a replay

    for method in ("GET", "PUT", "DELETE"):
        d, seen = app_client(error(500, "INTERNAL_ERROR"), error(502, "BAD_GATEWAY"), {"ok": True})
        assert d.request(method, "/api/v1/webhooks/settings") == {"ok": True}
        assert len(seen.seen) == 3


def test_other_posts_are_never_retried():
    d, seen = app_client(error(503, "SIGNER_UNAVAILABLE"), {"never": "sent"})
    with pytest.raises(dompet.ServerError) as failed:
        d.request("POST", "/api/v1/smart-account", {})
    assert (failed.value.status, failed.value.code, len(seen.seen)) == (503, "SIGNER_UNAVAILABLE", 1)
    d, seen = app_client(httpx.ReadTimeout("slow"), {"never": "sent"})
    with pytest.raises(dompet.APIConnectionError):
        d.request("POST", "/api/v1/auth/login", {"subId": "a"})
    assert len(seen.seen) == 1


def test_retries_stop_after_max_retries_with_the_typed_error():
    d, seen = app_client(error(429, "RATE_LIMITED"), retry=RetryPolicy(max_retries=2, base_delay_s=0, max_delay_s=0))
    with pytest.raises(dompet.RateLimitError) as limited:
        d.request("GET", "/api/v1/networks")
    assert (limited.value.status, limited.value.code, len(seen.seen)) == (429, "RATE_LIMITED", 3)
    d, seen = app_client(httpx.ConnectError("down"))
    with pytest.raises(dompet.APIConnectionError):
        d.request("GET", "/api/v1/networks")
    assert len(seen.seen) == 4


def test_a_keyed_post_still_in_progress_is_asked_again_and_4xx_are_final():
    d, seen = app_client(error(409, "IDEMPOTENCY_IN_PROGRESS"), "replayed")
    assert d.request("POST", "/api/v1/wallet/send-token", {}) == "replayed" and len(seen.seen) == 2
    d, seen = app_client(error(409, "IDEMPOTENCY_OUTCOME_UNKNOWN"), "never")
    with pytest.raises(dompet.ConflictError) as unknown:
        d.request("POST", "/api/v1/wallet/send-token", {})
    assert unknown.value.code == "IDEMPOTENCY_OUTCOME_UNKNOWN" and len(seen.seen) == 1
    d, seen = app_client(error(400, "VALIDATION_ERROR"), "never")
    with pytest.raises(dompet.BadRequestError):
        d.request("GET", "/api/v1/userOp")
    assert len(seen.seen) == 1


def test_backoff_grows_with_jitter_up_to_its_cap_and_honours_retry_after():
    policy = RetryPolicy(max_retries=5, base_delay_s=0.5, max_delay_s=4.0)
    for attempt, cap in enumerate([0.5, 1.0, 2.0, 4.0, 4.0]):
        delays = {policy.delay(attempt) for _ in range(50)}
        assert all(cap / 2 <= d <= cap for d in delays) and len(delays) > 1  # jittered
    assert policy.delay(0, "3") == 3.0 and policy.delay(0, "120") == 4.0 and 0.25 <= policy.delay(0, "soon") <= 0.5
    slept: list[float] = []
    from dompet._transport import AppSignature, Transport

    recorder = Recorder(error(503, "X"), error(503, "X"), httpx.Response(503, headers={"Retry-After": "2"}), "ok")
    transport = Transport(AppSignature(APP_ID, APP_SECRET), policy, inner=recorder.transport(), sleep=slept.append)
    with httpx.Client(base_url=BASE, transport=transport) as http:
        assert http.get("/api/v1/networks").json()["data"] == "ok"
    assert 0.25 <= slept[0] <= 0.5 and 0.5 <= slept[1] <= 1.0 and slept[2] == 2.0


# ------------------------------------------------------------------------------------------------ errors and pages


def test_errors_carry_status_code_message_and_data_for_generated_operations_too():
    d, _ = app_client(
        httpx.Response(
            404, json={"status": 404, "message": "no such op", "data": {"code": "USER_OP_NOT_FOUND", "id": "x"}}
        )
    )
    with pytest.raises(dompet.NotFoundError) as missing:
        dompet.api.get_user_op_by_id.sync(client=d.client, id="x")
    e = missing.value
    assert (e.status, e.code, e.message, e.data["id"]) == (404, "USER_OP_NOT_FOUND", "no such op", "x")
    assert isinstance(e, dompet.APIError) and e.method == "GET" and e.url.endswith("/api/v1/userOp/x")
    d, _ = app_client(httpx.Response(502, text="<html>bad gateway</html>"), retry=RetryPolicy(max_retries=0))
    with pytest.raises(dompet.ServerError) as proxy:
        d.request("GET", "/api/v1/networks")
    assert proxy.value.status == 502 and proxy.value.code is None and "bad gateway" in proxy.value.message


def delivery(n: int) -> dict[str, Any]:
    return {
        "id": f"d{n}",
        "eventId": f"e{n}",
        "eventType": "webhook.test",
        "url": "https://example.com/hook",
        "status": "delivered",
        "attempts": 1,
        "createdAt": "2026-11-22T10:00:00Z",
    }


def paged(total: int) -> Any:
    def answer(request: httpx.Request) -> httpx.Response:
        page, limit = int(request.url.params["page"]), int(request.url.params.get("limit", 20))
        items = [delivery(n) for n in range(total)][(page - 1) * limit : page * limit]
        pages = -(-total // limit)
        pagination = {
            "total": total,
            "page": page,
            "limit": limit,
            "totalPages": pages,
            "hasNext": page < pages,
            "hasPrev": page > 1,
        }
        return httpx.Response(200, json=envelope({"data": items, "pagination": pagination}))

    return answer


def test_pages_follow_has_next_by_path_and_by_generated_operation():
    d, seen = app_client(paged(5))
    pages = list(d.pages("/api/v1/webhooks/deliveries", limit=2))
    assert [(p.page, len(p.items), p.has_next, p.has_prev) for p in pages] == [
        (1, 2, True, False),
        (2, 2, True, True),
        (3, 1, False, True),
    ]
    assert [i["id"] for i in d.items("/api/v1/webhooks/deliveries", limit=2)] == ["d0", "d1", "d2", "d3", "d4"]
    typed = list(d.items(dompet.api.get_webhooks_deliveries, limit=3))
    assert [t.id for t in typed] == ["d0", "d1", "d2", "d3", "d4"] and typed[0].event_type == "webhook.test"
    assert [r.url.params["page"] for r in seen.seen[-2:]] == ["1", "2"]
    assert next(iter(d.pages("/api/v1/webhooks/deliveries", start=3, limit=2))).items[0]["id"] == "d4"


# -------------------------------------------------------------------------------------------------- user sessions


def jwt(exp: float, kind: str = "access") -> str:
    def part(value: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")

    return f"{part({'alg': 'EdDSA'})}.{part({'exp': int(exp), 'kind': kind, 'jti': uuid.uuid4().hex})}.sig"


class FakeAuthService:
    """Login, refresh (single use), a session route that answers 401 TOKEN_EXPIRED to tokens it expired."""

    def __init__(self, lifetime_s: float = 900) -> None:
        self.lifetime_s = lifetime_s
        self.expired: set[str] = set()
        self.refreshes = 0
        self.valid_refresh = "drt_0"

    def pair(self, wallet: bool = False) -> dict[str, Any]:
        self.valid_refresh = f"drt_{uuid.uuid4().hex}"
        kind = "walletToken" if wallet else "accessToken"
        return {"isWalletCreated": wallet, kind: jwt(time.time() + self.lifetime_s), "refreshToken": self.valid_refresh}

    def __call__(self, request: httpx.Request) -> httpx.Response:
        request.read()
        path = request.url.path
        assert request.headers["x-client-secret"] == "dcs_secret"
        if path == "/api/v1/auth/login":
            return httpx.Response(200, json=envelope(self.pair()))
        if path == "/api/v1/auth/refresh":
            assert json.loads(request.content)["refreshToken"] == self.valid_refresh
            self.refreshes += 1
            return httpx.Response(200, json=envelope(self.pair()))
        token = request.headers["Authorization"].removeprefix("Bearer ")
        if token in self.expired:
            return error(401, "TOKEN_EXPIRED")
        if path == "/api/v1/account/create":
            created = {**self.pair(wallet=True), "secret0": "s", "secret0Link": "l", "address": "0xA"}
            created.pop("isWalletCreated")
            return httpx.Response(200, json=envelope(created))
        return httpx.Response(200, json=envelope({"token": token}))


def test_a_session_refreshes_on_token_expired_and_before_expiry_and_adopts_the_wallet_token():
    service = FakeAuthService()
    w = dompet.Dompet(BASE, client_secret="dcs_secret", transport=httpx.MockTransport(service))
    alice = w.login("alice")
    first = alice.token
    assert alice.request("GET", "/api/v1/auth/session") == {"token": first}
    service.expired.add(first)
    assert alice.request("GET", "/api/v1/auth/session") == {"token": alice.token} and alice.token != first
    assert service.refreshes == 1
    created = alice.request("POST", "/api/v1/account/create", {})
    assert alice.token == created["walletToken"] and alice.is_wallet_created
    assert alice.request("GET", "/api/v1/wallet/transactions") == {"token": created["walletToken"]}

    soon = FakeAuthService(lifetime_s=30)  # within the refresh margin: refreshed before the request
    bob = dompet.Dompet(BASE, client_secret="dcs_secret", transport=httpx.MockTransport(soon)).login("bob")
    old = bob.token
    assert bob.request("GET", "/api/v1/auth/session") == {"token": bob.token} != {"token": old}
    assert soon.refreshes == 1


def test_constructor_arguments():
    with pytest.raises(ValueError):
        dompet.Dompet(BASE, app_id=APP_ID, app_secret=APP_SECRET, client_secret="dcs")
    with pytest.raises(ValueError):
        dompet.Dompet(BASE, app_id=APP_ID)
    with pytest.raises(ValueError):
        dompet.Dompet(BASE, app_id=APP_ID, app_secret=APP_SECRET).login("x")


# ------------------------------------------------------------------------------------------------------- webhooks


def ed25519() -> tuple[Ed25519PrivateKey, str]:
    key = Ed25519PrivateKey.generate()
    raw = key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    return key, base64.b64encode(raw).decode()


def delivery_of(key: Ed25519PrivateKey, event: dict[str, Any], at: int | None = None, key_id: str = "k1"):
    body = json.dumps(event).encode()
    at = int(time.time()) if at is None else at
    signature = key.sign(f"{event['id']}.{at}.".encode() + body)
    headers = {
        "Content-Type": "application/json",
        "X-Service-Event-Id": event["id"],
        "X-Service-Timestamp": str(at),
        "X-Service-Signature": base64.b64encode(signature).decode(),
        "X-Service-Key-Id": key_id,
    }
    return body, headers


def body_id_differs(key: Ed25519PrivateKey, event: dict[str, Any]) -> tuple[bytes, dict[str, str]]:
    """Signed right, over a body whose `id` is not the header's."""
    body, headers = delivery_of(key, {**event, "id": "another"})
    stamp = headers["X-Service-Timestamp"]
    signature = key.sign(f"{event['id']}.{stamp}.".encode() + body)
    return body, {
        **headers,
        "X-Service-Event-Id": event["id"],
        "X-Service-Signature": base64.b64encode(signature).decode(),
    }


def test_webhook_verify_accepts_a_genuine_delivery_and_refuses_every_forgery():
    key, public = ed25519()
    event = {"apiVersion": "2025-06-22", "id": str(uuid.uuid4()), "type": "webhook.test", "data": {"message": "hi"}}
    body, headers = delivery_of(key, event)
    assert webhooks.verify(body, headers, public) == event
    lower = {k.lower(): v for k, v in headers.items()}
    assert webhooks.verify(body, lower, base64.b64decode(public))["id"] == event["id"]  # raw key, any header case
    message = email.message.Message()  # http.server's headers
    for k, v in headers.items():
        message[k] = v
    assert webhooks.is_valid(body, message, public)

    other_key, other_public = ed25519()
    refused = {
        "tampered body": (body.replace(b"hi", b"ho"), headers, public),
        "another key": (body, headers, other_public),
        "signed by another key": (*delivery_of(other_key, event), public),
        "stale": (*delivery_of(key, event, at=int(time.time()) - 301), public),
        "from the future": (*delivery_of(key, event, at=int(time.time()) + 301), public),
        "id swapped": (body, {**headers, "X-Service-Event-Id": "other"}, public),
        "body id differs": (*body_id_differs(key, event), public),
        "no signature": (body, {k: v for k, v in headers.items() if k != "X-Service-Signature"}, public),
        "signature not base64": (body, {**headers, "X-Service-Signature": "***"}, public),
        "timestamp not seconds": (body, {**headers, "X-Service-Timestamp": "2026-01-01T00:00:00Z"}, public),
    }
    reasons = {}
    for name, (b, h, k) in refused.items():
        with pytest.raises(dompet.WebhookVerificationError, match=r".") as why:
            webhooks.verify(b, h, k)
        assert not webhooks.is_valid(b, h, k), name
        reasons[name] = str(why.value)
    assert reasons["body id differs"] == "the body's id is not X-Service-Event-Id"
    assert reasons["stale"] == reasons["from the future"] == "X-Service-Timestamp is more than 300 s from now"
    assert webhooks.is_valid(*delivery_of(key, event, at=int(time.time()) - 301), public, tolerance_s=600)
    with pytest.raises(TypeError):
        webhooks.verify(body.decode(), headers, public)  # type: ignore[arg-type]


def test_webhook_verify_picks_the_key_by_id_from_the_public_key_answer():
    old, old_public = ed25519()
    new, new_public = ed25519()
    answer = {"publicKey": new_public, "keyId": "k2", "previous": [{"publicKey": old_public, "keyId": "k1"}]}
    event = {"id": "evt", "type": "webhook.test"}
    assert webhooks.verify(*delivery_of(old, event, key_id="k1"), answer)["id"] == "evt"  # signed before rotation
    assert webhooks.verify(*delivery_of(new, event, key_id="k2"), answer)["id"] == "evt"
    assert not webhooks.is_valid(*delivery_of(old, event, key_id="k2"), answer)
    with pytest.raises(dompet.WebhookVerificationError, match="unknown key id"):
        webhooks.verify(*delivery_of(new, event, key_id="k3"), answer)
    assert webhooks.verify(*delivery_of(new, event, key_id="k2"), {"k2": new_public})["id"] == "evt"


def test_webhook_verify_accepts_what_the_service_signs(aws_env, tenant):
    from chalicelib.webhooks import attempts, signing_keys

    event = {"apiVersion": "2025-06-22", "id": str(uuid.uuid4()), "type": "webhook.test", "data": {}}
    body = json.dumps(event).encode()
    headers = attempts.sign_headers(tenant.appId, event["id"], body)
    key = signing_keys.app_key(tenant.appId)
    assert headers["X-Service-Key-Id"] == key.key_id
    public = base64.b64encode(key.public_key()).decode()
    assert webhooks.verify(body, headers, public) == event
    assert not webhooks.is_valid(body + b" ", headers, public)


# -------------------------------------------------------------------------------------------------------- asyncio


def test_the_asyncio_variant_signs_retries_pages_and_raises_alike():
    async def scenario() -> None:
        recorder = Recorder(error(503, "X"), paged(3))
        async with dompet.AsyncDompet(
            BASE, app_id=APP_ID, app_secret=APP_SECRET, retry=NO_WAIT, transport=recorder.transport()
        ) as d:
            pages = [p async for p in d.pages("/api/v1/webhooks/deliveries", limit=2)]
            assert [len(p.items) for p in pages] == [2, 1] and len(recorder.seen) == 3
            typed = [t.id async for t in d.items(dompet.api.get_webhooks_deliveries, limit=2)]
            assert typed == ["d0", "d1", "d2"]
            request = recorder.seen[0]
            assert request.headers["X-SIGNATURE"] == sign(
                APP_SECRET, request.headers["X-TIMESTAMP"], "GET", request.url.raw_path.decode(), b""
            )
        failing = Recorder(error(404, "USER_OP_NOT_FOUND"))
        async with dompet.AsyncDompet(BASE, app_id=APP_ID, app_secret=APP_SECRET, transport=failing.transport()) as d:
            with pytest.raises(dompet.NotFoundError):
                await dompet.api.get_user_op_by_id.asyncio(client=d.client, id="x")
        service = FakeAuthService()
        async with dompet.AsyncDompet(BASE, client_secret="dcs_secret", transport=httpx.MockTransport(service)) as w:
            alice = await w.login("alice")
            service.expired.add(alice.token)
            assert (await alice.request("GET", "/api/v1/auth/session")) == {"token": alice.token}
            assert service.refreshes == 1
            await alice.aclose()

    asyncio.run(scenario())


# ------------------------------------------------------------------------------------------ generated and packaged


def test_the_committed_generated_code_is_current():
    from devtools import sdk

    doc = sdk.document()
    assert sdk.check_python(doc) == [], "run `python -m devtools.sdk generate` (make sdk) and commit"
    assert dompet.API_VERSION == dompet.__version__ == doc["info"]["version"]
    ids = {op["operationId"] for item in doc["paths"].values() for op in item.values() if "operationId" in op}
    assert set(dompet.api.OPERATIONS) == ids


def test_pip_install_works_in_a_fresh_virtual_environment(tmp_path):
    # `pip install ./sdk/python` on a copy of the directory as committed: setuptools' in-tree build/ would
    # otherwise stay in the checkout (and can carry modules a regeneration removed into the next wheel).
    shutil.copytree(
        SDK, tmp_path / "sdk" / "python", ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__")
    )
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    install = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "./sdk/python"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert install.returncode == 0, install.stdout + install.stderr
    probe = (
        "import dompet, dompet.api, dompet.models, dompet.webhooks; "
        "d = dompet.Dompet('http://127.0.0.1:1', app_id='a', app_secret='s'); "
        "print(dompet.__version__, len(dompet.api.OPERATIONS), dompet.__file__)"
    )
    ran = subprocess.run([str(python), "-c", probe], capture_output=True, text=True, cwd=tmp_path, check=True)
    version, count, location = ran.stdout.split()
    assert version == dompet.__version__ and int(count) == len(dompet.api.OPERATIONS)
    assert location.startswith(str(venv)) and "_generated" not in location
    assert (Path(location).parent / "_generated" / "py.typed").exists() or (Path(location).parent / "py.typed").exists()
