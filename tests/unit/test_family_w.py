"""Family W: login, refresh, session; client secret and token checks."""

from __future__ import annotations

import base64
import json

import jwt
import pytest

from chalicelib.auth import tokens, users
from chalicelib.auth.tokens import TokenKind
from chalicelib.platform import aws, clock
from chalicelib.tenancy import service as tenancy
from tests.support.family_w import login, post, session


def test_login_gives_access_and_refresh_tokens(api, tenant):
    body = login(api, tenant)
    assert body["status"] == 200 and body["message"] == "login successfully"
    data = body["data"]
    assert data["isWalletCreated"] is False
    assert set(data) == {"isWalletCreated", "accessToken", "refreshToken", "expiresAt"}

    info = session(api, data["accessToken"], tenant.clientSecret)
    assert info.status_code == 200
    assert info.json_body["data"]["subId"] == "user-1"
    assert info.json_body["data"]["tokenType"] == "access"
    assert info.json_body["data"]["clientId"] == tenant.clientId
    assert info.json_body["data"]["address"] is None


def test_second_login_is_the_same_user(api, tenant):
    first = session(api, login(api, tenant)["data"]["accessToken"], tenant.clientSecret).json_body["data"]
    second = session(api, login(api, tenant)["data"]["accessToken"], tenant.clientSecret).json_body["data"]
    assert first["userId"] == second["userId"]


def test_user_with_wallet_gets_a_wallet_token(api, tenant):
    user = users.get_or_create(tenant.clientId, "has-wallet")
    aws.table("users").update_item(
        Key={"pk": f"CLIENT#{tenant.clientId}", "sk": "SUB#has-wallet"},
        UpdateExpression="SET walletAddress = :a",
        ExpressionAttributeValues={":a": "0x19E7E376E7C213B7E7e7e46cc70A5dD086DAff2A"},
    )
    data = login(api, tenant, "has-wallet")["data"]
    assert data["isWalletCreated"] is True
    assert "walletToken" in data and "accessToken" not in data
    info = session(api, data["walletToken"], tenant.clientSecret).json_body["data"]
    assert info["tokenType"] == "wallet" and info["userId"] == user.userId
    assert info["address"] == "0x19E7E376E7C213B7E7e7e46cc70A5dD086DAff2A"


@pytest.mark.parametrize(
    ("headers", "code"),
    [
        ({}, "MISSING_CLIENT_SECRET"),
        ({"x-client-secret": "dcs_wrong"}, "INVALID_CLIENT_SECRET"),
    ],
)
def test_login_refuses_bad_client_secret(api, tenant, headers, code):
    response = post(api, "/api/v1/auth/login", {"subId": "u"}, **headers)
    assert response.status_code == 401
    assert response.json_body["status"] == 401
    assert response.json_body["data"]["code"] == code


def test_session_with_wrong_client_secret_is_401(api, tenant):
    token = login(api, tenant)["data"]["accessToken"]
    response = session(api, token, "dcs_not-the-secret")
    assert response.status_code == 401
    assert response.json_body["data"]["code"] == "INVALID_CLIENT_SECRET"


def test_token_of_another_client_is_refused(api, tenant):
    other = tenancy.create_tenant("Other")
    token = login(api, tenant)["data"]["accessToken"]
    response = session(api, token, other.clientSecret)
    assert response.status_code == 401
    assert response.json_body["data"]["code"] == "TOKEN_CLIENT_MISMATCH"


def _tamper(token: str) -> str:
    header, payload, signature = token.split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    claims["sid"] = "someone-else"
    forged = base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b"=").decode()
    return f"{header}.{forged}.{signature}"


@pytest.mark.parametrize(
    ("mangle", "code"),
    [
        (_tamper, "INVALID_TOKEN"),
        (lambda t: t[:-4] + ("AAAA" if not t.endswith("AAAA") else "BBBB"), "INVALID_TOKEN"),
        (lambda t: "not-a-jwt", "INVALID_TOKEN"),
    ],
)
def test_tampered_tokens_are_401(api, tenant, mangle, code):
    token = login(api, tenant)["data"]["accessToken"]
    response = session(api, mangle(token), tenant.clientSecret)
    assert response.status_code == 401
    assert response.json_body["data"]["code"] == code


def test_token_signed_with_a_foreign_key_is_401(api, tenant):
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    good = jwt.decode(login(api, tenant)["data"]["accessToken"], options={"verify_signature": False})
    kid = jwt.get_unverified_header(login(api, tenant)["data"]["accessToken"])["kid"]
    forged = jwt.encode(good, Ed25519PrivateKey.generate(), algorithm="EdDSA", headers={"kid": kid})
    response = session(api, forged, tenant.clientSecret)
    assert response.status_code == 401 and response.json_body["data"]["code"] == "INVALID_TOKEN"


def test_expired_token_is_401(api, tenant, monkeypatch):
    user = users.get_or_create(tenant.clientId, "old")
    monkeypatch.setattr(tokens, "epoch", lambda: 1_000_000)
    old = tokens.issue(TokenKind.ACCESS, user_id=user.userId, client_id=tenant.clientId, sub_id="old", ttl_s=60)
    monkeypatch.undo()
    response = session(api, old.token, tenant.clientSecret)
    assert response.status_code == 401 and response.json_body["data"]["code"] == "TOKEN_EXPIRED"


def test_missing_bearer_token_is_401(api, tenant):
    response = api.get("/api/v1/auth/session", headers={"x-client-secret": tenant.clientSecret})
    assert response.status_code == 401 and response.json_body["data"]["code"] == "MISSING_TOKEN"


def test_refresh_rotates_and_detects_reuse(api, tenant):
    first = login(api, tenant)["data"]
    headers = {"x-client-secret": tenant.clientSecret}
    second = post(api, "/api/v1/auth/refresh", {"refreshToken": first["refreshToken"]}, **headers)
    assert second.status_code == 200
    second_data = second.json_body["data"]
    assert second_data["refreshToken"] != first["refreshToken"]
    assert session(api, second_data["accessToken"], tenant.clientSecret).status_code == 200

    clock.travel(21)  # past the reuse interval, in which a repeat would return the same pair
    try:
        reused = post(api, "/api/v1/auth/refresh", {"refreshToken": first["refreshToken"]}, **headers)
        assert reused.status_code == 401 and reused.json_body["data"]["code"] == "REFRESH_TOKEN_REUSED"
        # ...and every JWT issued so far is revoked with it, the thief's and the user's alike.
        for token in (first["accessToken"], second_data["accessToken"]):
            revoked = session(api, token, tenant.clientSecret)
            assert revoked.status_code == 401 and revoked.json_body["data"]["code"] == "TOKEN_REVOKED"
        # Logging in again (a second later: revocation is by whole seconds of `iat`) works.
        clock.travel(2)
        fresh = login(api, tenant)["data"]["accessToken"]
        assert session(api, fresh, tenant.clientSecret).status_code == 200

        # The reuse revoked the whole login: the newer refresh token is dead too.
        after = post(api, "/api/v1/auth/refresh", {"refreshToken": second_data["refreshToken"]}, **headers)
        assert after.status_code == 401 and after.json_body["data"]["code"] == "INVALID_REFRESH_TOKEN"
    finally:
        clock.reset()


def test_refresh_token_of_another_client_is_refused(api, tenant):
    other = tenancy.create_tenant("Other")
    refresh_token = login(api, tenant)["data"]["refreshToken"]
    response = post(
        api, "/api/v1/auth/refresh", {"refreshToken": refresh_token}, **{"x-client-secret": other.clientSecret}
    )
    assert response.status_code == 401 and response.json_body["data"]["code"] == "INVALID_REFRESH_TOKEN"


def test_unknown_refresh_token_is_refused(api, tenant):
    response = post(
        api, "/api/v1/auth/refresh", {"refreshToken": "drt_nope"}, **{"x-client-secret": tenant.clientSecret}
    )
    assert response.status_code == 401 and response.json_body["data"]["code"] == "INVALID_REFRESH_TOKEN"


def test_refresh_tokens_are_stored_only_as_hashes(api, tenant):
    refresh_token = login(api, tenant)["data"]["refreshToken"]
    items = aws.table("auth-state").scan()["Items"]
    assert items and refresh_token not in json.dumps(items, default=str)
