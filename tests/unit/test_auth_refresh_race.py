"""A refresh token presented more than once: a retry within the reuse interval gets the same pair; a reuse
beyond it revokes every token of the family, whatever the interleaving."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import jwt
import pytest

from chalicelib.auth import refresh, service, users
from chalicelib.platform import aws, clock, settings
from chalicelib.platform.errors import ApiError
from tests.support.family_w import login, post, session

INTERVAL_S = 20  # the default refresh_reuse_interval_s


def refresh_with(api, tenant, token):
    return post(api, "/api/v1/auth/refresh", {"refreshToken": token}, **{"x-client-secret": tenant.clientSecret})


def test_parallel_refreshes_within_the_interval_all_get_the_same_pair(api, tenant):
    first = login(api, tenant, sub_id="racer")["data"]

    with ThreadPoolExecutor(6) as pool:
        answers = list(pool.map(lambda _: refresh_with(api, tenant, first["refreshToken"]), range(6)))
    assert [a.status_code for a in answers] == [200] * 6
    pairs = {json.dumps(a.json_body["data"], sort_keys=True) for a in answers}
    assert len(pairs) == 1  # one rotation, answered to every caller
    pair = answers[0].json_body["data"]
    assert session(api, pair["accessToken"], tenant.clientSecret).status_code == 200
    assert refresh_with(api, tenant, pair["refreshToken"]).status_code == 200  # the family lives on


def test_a_retry_within_the_interval_returns_the_same_pair_and_beyond_it_revokes(api, tenant):
    first = login(api, tenant)["data"]
    second = refresh_with(api, tenant, first["refreshToken"]).json_body["data"]
    try:
        clock.travel(INTERVAL_S - 1)
        again = refresh_with(api, tenant, first["refreshToken"])
        assert again.status_code == 200 and again.json_body["data"] == second
        clock.travel(2)  # past the interval: a leaked token
        reused = refresh_with(api, tenant, first["refreshToken"])
        assert reused.status_code == 401 and reused.json_body["data"]["code"] == "REFRESH_TOKEN_REUSED"
        assert session(api, second["accessToken"], tenant.clientSecret).status_code == 401
        after = refresh_with(api, tenant, second["refreshToken"])
        assert after.status_code == 401 and after.json_body["data"]["code"] == "INVALID_REFRESH_TOKEN"
        # and the repeat that used to work no longer does: the family is gone
        assert refresh_with(api, tenant, first["refreshToken"]).status_code == 401
    finally:
        clock.reset()


def test_the_kept_pair_is_sealed(api, tenant):
    first = login(api, tenant)["data"]
    second = refresh_with(api, tenant, first["refreshToken"]).json_body["data"]
    items = aws.table("auth-state").scan()["Items"]
    stored = json.dumps(items, default=repr)
    assert second["refreshToken"] not in stored and second["accessToken"] not in stored
    assert any("successor" in item for item in items)


def test_a_zero_interval_turns_repeats_into_reuse(api, tenant, monkeypatch):
    monkeypatch.setenv("DOMPET_REFRESH_REUSE_INTERVAL_S", "0")
    settings.load_settings.cache_clear()
    try:
        first = login(api, tenant)["data"]
        assert refresh_with(api, tenant, first["refreshToken"]).status_code == 200
        reused = refresh_with(api, tenant, first["refreshToken"])
        assert reused.status_code == 401 and reused.json_body["data"]["code"] == "REFRESH_TOKEN_REUSED"
    finally:
        monkeypatch.delenv("DOMPET_REFRESH_REUSE_INTERVAL_S")
        settings.load_settings.cache_clear()


def test_a_family_member_minting_while_a_reuse_revokes_is_still_revoked(api, tenant, monkeypatch):
    """The old cut-off was the revoking request's own start second + 1: a refresh of the family that minted
    its tokens in the next second kept a valid token after the family was revoked."""
    first = login(api, tenant)["data"]
    second = refresh_with(api, tenant, first["refreshToken"]).json_body["data"]
    minted = {}
    real_revoke = refresh._revoke_family

    def family_refreshes_meanwhile(family_id, until):
        clock.travel(1.0)  # the next second: the reuse already read its clock before this in the old code
        minted["pair"] = service.refresh_tokens(tenant, second["refreshToken"])
        real_revoke(family_id, until)

    monkeypatch.setattr(refresh, "_revoke_family", family_refreshes_meanwhile)
    try:
        clock.travel(INTERVAL_S + 1)
        with pytest.raises(ApiError) as reused:
            service.refresh_tokens(tenant, first["refreshToken"])  # the leaked token, beyond the interval
        assert reused.value.code == "REFRESH_TOKEN_REUSED"
        # The JWT library checks `iat` against the real clock, which this test moved past: compare directly.
        issued_at = jwt.decode(minted["pair"].accessToken, options={"verify_signature": False})["iat"]
        user = users.get(tenant.clientId, "user-1")
        assert user is not None and user.tokensValidAfter is not None and issued_at < user.tokensValidAfter
    finally:
        clock.reset()


def test_a_refresh_that_wins_while_the_family_is_revoked_answers_nothing(api, tenant, monkeypatch):
    """The family is revoked between minting and answering: the pair is never handed out."""
    first = login(api, tenant)["data"]
    real_seal = refresh.kms_envelope.seal

    def revoked_meanwhile(*args, **kwargs):
        refresh._revoke_family(refresh_family(first["refreshToken"]), clock.epoch() + 3600)
        return real_seal(*args, **kwargs)

    monkeypatch.setattr(refresh.kms_envelope, "seal", revoked_meanwhile)
    with pytest.raises(ApiError) as refused:
        service.refresh_tokens(tenant, first["refreshToken"])
    assert refused.value.code == "REFRESH_TOKEN_REUSED"


def refresh_family(token: str) -> str:
    item = aws.table("auth-state").get_item(Key=refresh._key(token))["Item"]
    return str(item["familyId"])
