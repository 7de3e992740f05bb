"""A refresh token presented twice at once: whatever the interleaving, no token of the family survives."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from chalicelib.auth import refresh, service, users
from chalicelib.platform import clock
from chalicelib.platform.errors import ApiError
from tests.unit.test_family_w import login, post, session


def test_a_winner_minting_after_the_losers_clock_read_is_still_revoked(api, tenant, monkeypatch):
    """The old cut-off was the losing request's own start second + 1: a winner that minted its access token in
    the next second kept a valid token after the family was revoked."""
    first = login(api, tenant)["data"]
    grant = refresh.redeem(first["refreshToken"], tenant.clientId)  # the winner has marked the token used
    minted = {}
    real_revoke = refresh._revoke_family

    def winner_mints_meanwhile(family_id, until):
        clock.travel(1.0)  # the next second: the loser already read its clock before this in the old code
        user = users.get(grant.client_id, grant.sub_id)
        minted["pair"] = service._token_pair(user, refresh.issue(grant.client_id, grant.sub_id, grant.family_id))
        real_revoke(family_id, until)

    monkeypatch.setattr(refresh, "_revoke_family", winner_mints_meanwhile)
    try:
        with pytest.raises(ApiError) as reused:
            refresh.redeem(first["refreshToken"], tenant.clientId)  # the loser
        assert reused.value.code == "REFRESH_TOKEN_REUSED"
        with pytest.raises(ApiError):  # the winner sees the revocation before it answers
            refresh.ensure_family_alive(grant.family_id)
        revoked = session(api, minted["pair"].accessToken, tenant.clientSecret)
        assert revoked.status_code == 401 and revoked.json_body["data"]["code"] == "TOKEN_REVOKED"
    finally:
        clock.reset()


def test_parallel_refreshes_leave_no_valid_token(api, tenant):
    first = login(api, tenant, sub_id="racer")["data"]
    headers = {"x-client-secret": tenant.clientSecret}

    def refresh_once(_):
        return post(api, "/api/v1/auth/refresh", {"refreshToken": first["refreshToken"]}, **headers)

    with ThreadPoolExecutor(6) as pool:
        answers = list(pool.map(refresh_once, range(6)))
    winners = [a for a in answers if a.status_code == 200]
    assert len(winners) <= 1
    refused = {a.json_body["data"]["code"] for a in answers if a.status_code != 200}
    assert refused <= {"REFRESH_TOKEN_REUSED", "INVALID_REFRESH_TOKEN"} and "REFRESH_TOKEN_REUSED" in refused
    for winner in winners:  # a reuse happened: the winner's tokens are revoked too
        token = winner.json_body["data"]["accessToken"]
        assert session(api, token, tenant.clientSecret).status_code == 401
