"""JWT signing keys: rotation with a grace period, and the JWKS an independent verifier can use."""

from __future__ import annotations

import json

import jwt

from chalicelib.auth import jwt_keys as keys
from chalicelib.auth import tokens, users
from chalicelib.auth.tokens import TokenKind
from chalicelib.platform.settings import load_settings

DAY = 86_400


def test_jwks_lets_a_third_party_verify_tokens(api, tenant):
    token = api.post(
        "/api/v1/auth/login",
        body=json.dumps({"subId": "u1"}),
        headers={"Content-Type": "application/json", "x-client-secret": tenant.clientSecret},
    ).json_body["data"]["accessToken"]
    response = api.get("/.well-known/jwks.json")
    assert response.status_code == 200
    jwks = json.loads(response.body)
    kid = jwt.get_unverified_header(token)["kid"]
    jwk = next(k for k in jwks["keys"] if k["kid"] == kid)
    assert jwk["kty"] == "OKP" and jwk["crv"] == "Ed25519" and "d" not in jwk
    claims = jwt.decode(token, jwt.PyJWK(jwk).key, algorithms=["EdDSA"], audience=tokens.AUDIENCE)
    assert claims["cid"] == tenant.clientId and claims["sid"] == "u1" and claims["kind"] == "access"


def test_rotation_keeps_old_keys_for_their_tokens_lifetime(aws_env, tenant):
    start = keys.load().current()
    period = load_settings().signing_key_rotation_days * DAY

    assert keys.rotate(now=start.created_at + 60).current().kid == start.kid  # too early: nothing changes

    user = users.get_or_create(tenant.clientId, "u")
    old_token = tokens.issue(TokenKind.WALLET, user_id=user.userId, client_id=tenant.clientId, sub_id="u", ttl_s=3600)

    rotated = keys.rotate(now=start.created_at + period)
    assert rotated.current().kid != start.kid
    assert [k.kid for k in rotated.keys] == [rotated.current().kid, start.kid]
    assert tokens.verify(old_token.token).user_id == user.userId  # still published: tokens stay valid
    assert (
        tokens.issue(
            TokenKind.ACCESS, user_id=user.userId, client_id=tenant.clientId, sub_id="u", ttl_s=60
        ).token.count(".")
        == 2
    )

    later = keys.rotate(now=rotated.current().created_at + keys.MAX_TOKEN_LIFETIME_S)
    assert start.kid not in [k.kid for k in later.keys]  # past its grace period: retired


def test_private_keys_never_reach_the_jwks(api, aws_env):
    body = api.get("/.well-known/jwks.json").body
    key = keys.load().current()
    import base64

    assert base64.urlsafe_b64encode(key.private_bytes).rstrip(b"=").decode() not in body.decode()
