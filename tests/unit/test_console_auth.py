"""The console's sign-in, sessions, CSRF, throttling, second factor, roles and invites (chalice's test client over
moto)."""

from __future__ import annotations

import re
import threading

import pyotp
import pytest

from chalicelib.console import accounts, audit, passwords, store, throttle
from chalicelib.console import apps as console_apps
from chalicelib.console.models import Actor, Role
from chalicelib.operator import main as admin_main
from chalicelib.platform import clock
from chalicelib.platform.errors import ApiError
from chalicelib.platform.pagination import PageQuery
from chalicelib.platform.settings import load_settings
from tests.support.concurrency import race
from tests.support.console import PASSWORD, ConsoleClient, field_values, member, set_cookies


def test_passwords_are_argon2id_and_checked():
    stored = passwords.hash_password("a long enough password")
    assert stored.startswith("$argon2id$v=19$m=65536,t=3,p=1$")
    assert passwords.verify(stored, "a long enough password")
    assert not passwords.verify(stored, "a long enough passworD")
    assert not passwords.verify(None, "anything")  # an unknown account costs a check all the same
    assert not passwords.verify("not a hash", "x")


def test_invite_sets_the_password_signs_in_and_is_single_use(api, tenant):
    _, token = accounts.invite(audit.operator(tenant.organizationId), None, Role.ADMIN)
    ana = ConsoleClient(api)
    page = ana.get(f"/console/invite/{token}")
    assert page.status_code == 200 and 'name="email"' in ana.text()  # the operator's invite names no email
    joined = ana.post(
        f"/console/invite/{token}", {"email": "Ana@Example.com", "password": PASSWORD, "passwordConfirm": PASSWORD}
    )
    assert joined.status_code == 303 and joined.headers["Location"] == "/console/apps"
    assert ana.get("/console/apps").status_code == 200
    assert field_values(ana.text(), "currentUser") == ["ana@example.com"]

    again = ConsoleClient(api)
    assert again.get(f"/console/invite/{token}").status_code == 410
    assert "INVITE_USED" in again.text()
    assert ConsoleClient(api).get("/console/invite/not-a-real-invite-token-at-all").status_code == 404


def test_an_invite_expires(api, tenant):
    _, token = accounts.invite(audit.operator(tenant.organizationId), "late@example.com", Role.VIEWER)
    clock.travel(load_settings().console_invite_s + 1)
    late = ConsoleClient(api)
    assert late.get(f"/console/invite/{token}").status_code == 410 and "INVITE_EXPIRED" in late.text()


def test_passwords_must_match_and_be_long_enough(api, tenant):
    _, token = accounts.invite(audit.operator(tenant.organizationId), "bo@example.com", Role.VIEWER)
    bo = ConsoleClient(api)
    bo.get(f"/console/invite/{token}")
    short = bo.post(f"/console/invite/{token}", {"password": "short", "passwordConfirm": "short"})
    assert short.status_code == 400
    bo.get(f"/console/invite/{token}")
    differ = bo.post(f"/console/invite/{token}", {"password": PASSWORD, "passwordConfirm": PASSWORD + "x"})
    assert differ.status_code == 400 and "PASSWORDS_DIFFER" in bo.text()
    assert store.get_user_by_email("bo@example.com") is None  # nothing was created


def _login_form(client: ConsoleClient) -> None:
    assert client.get("/console/login").status_code == 200


def test_cookie_flags_and_security_headers(api, tenant):
    local = member(api, tenant.organizationId, "local@example.com")
    page = local.get("/console/apps")
    assert page.headers["X-Frame-Options"] == "DENY"
    policy = page.headers["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy and "frame-ancestors 'none'" in policy

    remote = ConsoleClient(api, host="console.example.com")
    _login_form(remote)
    [pre] = set_cookies(remote.last)
    assert "HttpOnly" in pre and "SameSite=Strict" in pre and "Secure" in pre
    signed = remote.post("/console/login", {"email": "local@example.com", "password": PASSWORD})
    session_cookie = next(c for c in set_cookies(signed) if c.startswith("dompet_console="))
    assert {"HttpOnly", "SameSite=Strict", "Secure", "Path=/"} <= {p.strip() for p in session_cookie.split(";")}

    on_loopback = ConsoleClient(api, host="127.0.0.1:8000")
    _login_form(on_loopback)
    assert "Secure" not in set_cookies(on_loopback.last)[0]  # plain http on localhost only


def test_session_fixation_a_planted_cookie_is_not_the_session(api, tenant):
    member(api, tenant.organizationId, "fix@example.com")
    victim = ConsoleClient(api)
    victim.cookies["dompet_console"] = "planted-by-an-attacker-0123456789abcdef"
    _login_form(victim)
    victim.post("/console/login", {"email": "fix@example.com", "password": PASSWORD})
    assert victim.cookies["dompet_console"] != "planted-by-an-attacker-0123456789abcdef"
    attacker = ConsoleClient(api, cookies={"dompet_console": "planted-by-an-attacker-0123456789abcdef"})
    assert attacker.get("/console/apps").status_code == 303  # to the sign-in page
    assert victim.get("/console/apps").status_code == 200


def test_sessions_end_when_idle_and_at_their_absolute_limit(api, tenant):
    ana = member(api, tenant.organizationId, "idle@example.com")
    clock.travel(load_settings().console_idle_s - 120)
    assert ana.get("/console/apps").status_code == 200  # use moves the idle clock
    clock.travel(load_settings().console_idle_s - 120)
    assert ana.get("/console/apps").status_code == 200
    clock.travel(load_settings().console_idle_s + 1)
    assert ana.get("/console/apps").status_code == 303

    bo = member(api, tenant.organizationId, "absolute@example.com")
    for _ in range(load_settings().console_session_s // (load_settings().console_idle_s - 60) + 1):
        clock.travel(load_settings().console_idle_s - 60)
        if bo.get("/console/apps").status_code != 200:
            break
    else:
        pytest.fail("a session used all the time never ended")
    assert bo.last.status_code == 303


def test_sign_out_ends_the_session(api, tenant):
    ana = member(api, tenant.organizationId, "out@example.com")
    ana.get("/console/apps")
    token = ana.cookies["dompet_console"]
    assert ana.post("/console/logout").status_code == 303
    assert "dompet_console" not in ana.cookies
    assert ConsoleClient(api, cookies={"dompet_console": token}).get("/console/apps").status_code == 303


def test_csrf_is_required_on_every_state_change(api, tenant):
    ana = member(api, tenant.organizationId, "csrf@example.com")
    ana.get("/console/apps")
    fields = {"name": "Shop", "clientId": tenant.clientId}
    assert ana.post("/console/apps", fields, csrf=False).status_code == 403
    assert "CSRF_FAILED" in ana.text()
    ana.get("/console/apps")
    assert ana.post("/console/apps", fields, csrf="x" * 43).status_code == 403
    ana.get("/console/apps")
    cross = ana.post("/console/apps", fields, headers={"sec-fetch-site": "cross-site"})
    assert cross.status_code == 403
    ana.get("/console/apps")
    assert ana.post("/console/apps", fields, headers={"origin": "https://evil.example"}).status_code == 403
    assert len(console_apps.apps(tenant.organizationId)) == 1  # nothing was created
    ana.get("/console/apps")
    assert ana.post("/console/apps", fields).status_code == 201
    # the sign-in form is protected too (login CSRF): its double-submit token must match the browser's cookie
    stranger = ConsoleClient(api)
    assert (
        stranger.post(
            "/console/login", {"email": "csrf@example.com", "password": PASSWORD}, csrf="forged" * 8
        ).status_code
        == 403
    )


def test_password_guessing_is_throttled_per_account_and_per_source(api, tenant):
    member(api, tenant.organizationId, "guess@example.com")
    guesser = ConsoleClient(api)
    for _ in range(throttle.ACCOUNT.attempts):
        _login_form(guesser)
        assert (
            guesser.post("/console/login", {"email": "guess@example.com", "password": "wrong password"}).status_code
            == 401
        )
    _login_form(guesser)
    locked = guesser.post("/console/login", {"email": "guess@example.com", "password": PASSWORD})
    assert locked.status_code == 429 and "TOO_MANY_ATTEMPTS" in guesser.text()  # even the right password
    clock.travel(throttle.WINDOW_S)
    _login_form(guesser)
    assert guesser.post("/console/login", {"email": "guess@example.com", "password": PASSWORD}).status_code == 303

    for n in range(throttle.SOURCE.attempts):  # one source, many accounts
        throttle.failed((throttle.SOURCE, "198.51.100.7"))
    with pytest.raises(Exception) as refused:
        accounts.login("guess@example.com", PASSWORD, "198.51.100.7")
    assert getattr(refused.value, "code", None) == throttle.TOO_MANY_ATTEMPTS
    assert accounts.login("guess@example.com", PASSWORD, "198.51.100.8").token  # another source is not affected


def test_totp_second_factor_is_required_throttled_and_single_use(api, tenant):
    ana = member(api, tenant.organizationId, "totp@example.com")
    ana.get("/console/account")
    ana.post("/console/account/totp")
    secret = field_values(ana.text(), "totpSecret")[0]
    code = pyotp.TOTP(secret).now()
    assert ana.post("/console/account/totp/confirm", {"code": code}).status_code == 303
    assert "On:" in ana.get("/console/account").body.decode()

    clock.travel(60)
    again = ConsoleClient(api)
    _login_form(again)
    owed = again.post("/console/login", {"email": "totp@example.com", "password": PASSWORD})
    assert owed.headers["Location"] == "/console/login/totp"
    assert again.get("/console/apps").status_code == 303  # nothing but the code is accepted yet
    assert again.get("/console/login/totp").status_code == 200
    pending = again.cookies["dompet_console"]
    for _ in range(throttle.TOTP.attempts):
        again.get("/console/login/totp")
        assert (
            again.post("/console/login/totp", {"code": "000000" if code != "000000" else "111111"}).status_code == 401
        )
    again.get("/console/login/totp")
    right_now = pyotp.TOTP(secret).now()
    assert again.post("/console/login/totp", {"code": right_now}).status_code == 429  # locked out
    clock.travel(throttle.WINDOW_S)
    again = ConsoleClient(api)
    _login_form(again)
    again.post("/console/login", {"email": "totp@example.com", "password": PASSWORD})
    again.get("/console/login/totp")
    code = pyotp.TOTP(secret).at(clock.now())
    assert again.post("/console/login/totp", {"code": code}).status_code == 303
    assert again.cookies["dompet_console"] != pending  # a new session after the second factor
    assert again.get("/console/apps").status_code == 200
    # the same code does not open a second session
    other = ConsoleClient(api)
    _login_form(other)
    other.post("/console/login", {"email": "totp@example.com", "password": PASSWORD})
    other.get("/console/login/totp")
    assert other.post("/console/login/totp", {"code": code}).status_code == 401


def test_roles_viewer_reads_developer_builds_admin_manages(api, tenant):
    admin = member(api, tenant.organizationId, "admin@example.com", Role.ADMIN)
    viewer = member(api, tenant.organizationId, "viewer@example.com", Role.VIEWER)
    developer = member(api, tenant.organizationId, "dev@example.com", Role.DEVELOPER)

    viewer.get("/console/apps")
    assert "Create app" not in viewer.text()
    refused = viewer.post("/console/apps", {"name": "Nope", "clientId": tenant.clientId})
    assert refused.status_code == 403 and "ROLE_REQUIRED" in viewer.text()
    developer.get("/console/apps")
    assert developer.post("/console/apps", {"name": "Yes", "clientId": tenant.clientId}).status_code == 201
    developer.get("/console/team")
    assert developer.post("/console/team/invites", {"email": "x@example.com", "role": "admin"}).status_code == 403
    assert developer.get("/console/audit").status_code == 403

    admin.get("/console/team")
    made = admin.post("/console/team/invites", {"email": "new@example.com", "role": "viewer"})
    assert made.status_code == 201
    link = field_values(admin.text(), "inviteLink")[0]
    assert re.fullmatch(r"http://127\.0\.0\.1:8000/console/invite/[A-Za-z0-9_-]{43}", link)

    viewer_id = store.get_user_by_email("viewer@example.com")["userId"]
    admin.get("/console/team")
    assert admin.post(f"/console/team/{viewer_id}/role", {"role": "developer"}).status_code == 303
    viewer.get("/console/apps")
    assert viewer.post("/console/apps", {"name": "Now yes", "clientId": tenant.clientId}).status_code == 201  # at once
    admin.get("/console/team")
    assert admin.post(f"/console/team/{viewer_id}/remove").status_code == 303
    assert viewer.get("/console/apps").status_code == 303  # removed: the session is worth nothing

    admin_id = store.get_user_by_email("admin@example.com")["userId"]
    admin.get("/console/team")
    last = admin.post(f"/console/team/{admin_id}/role", {"role": "viewer"})
    assert last.status_code == 409 and "LAST_ADMIN" in admin.text()


def test_a_form_shown_again_with_its_error_can_be_sent_again(api, tenant):
    member(api, tenant.organizationId, "retry@example.com")
    ana = ConsoleClient(api)
    _login_form(ana)
    wrong = ana.post("/console/login", {"email": "retry@example.com", "password": "not the password"})
    assert wrong.status_code == 401 and "INVALID_CREDENTIALS" in ana.text()
    assert ana.post("/console/login", {"email": "retry@example.com", "password": PASSWORD}).status_code == 303

    ana.get("/console/account")
    ana.post("/console/account/totp")
    secret = field_values(ana.text(), "totpSecret")[0]
    ana.post("/console/account/totp/confirm", {"code": pyotp.TOTP(secret).now()})
    clock.travel(60)
    again = ConsoleClient(api)
    _login_form(again)
    again.post("/console/login", {"email": "retry@example.com", "password": PASSWORD})
    again.get("/console/login/totp")
    assert again.post("/console/login/totp", {"code": "999999"}).status_code == 401
    assert "INVALID_TOTP_CODE" in again.text()
    assert again.post("/console/login/totp", {"code": pyotp.TOTP(secret).at(clock.now())}).status_code == 303


def test_sign_in_and_sign_out_are_in_the_audit_log(api, tenant):
    member(api, tenant.organizationId, "logged@example.com")
    ana = ConsoleClient(api)
    _login_form(ana)
    ana.post("/console/login", {"email": "logged@example.com", "password": PASSWORD}, headers={"user-agent": "UA/1"})
    ana.get("/console/apps")
    ana.post("/console/logout")
    entries = audit.page(tenant.organizationId, PageQuery(page=1, limit=10)).data
    signed_out, signed_in = entries[0], entries[1]
    assert (signed_out.action, signed_in.action) == ("member.signed_out", "member.signed_in")
    assert signed_in.actor.email == "logged@example.com" and signed_in.userAgent == "UA/1"
    assert signed_in.details == {"secondFactor": "false"}


def test_concurrent_acceptances_of_one_invite_make_one_member(aws_env, tenant):
    _, token = accounts.invite(audit.operator(tenant.organizationId), None, Role.DEVELOPER)

    def accept(i: int) -> str:
        try:
            accounts.accept_invite(token, f"racer{i}@example.com", PASSWORD, PASSWORD, None, None)
        except ApiError as exc:
            return exc.code
        return "joined"

    outcomes = race(accept, threads=6)
    assert outcomes.count("joined") == 1 and set(outcomes) <= {"joined", accounts.INVITE_USED}
    assert [m["role"] for m in accounts.members(tenant.organizationId)] == ["developer"]


def test_concurrent_guesses_cannot_pass_the_limit_together(aws_env, tenant):
    member_email = "racer-guess@example.com"
    _, token = accounts.invite(audit.operator(tenant.organizationId), member_email, Role.VIEWER)
    accounts.accept_invite(token, None, PASSWORD, PASSWORD, None, None)

    def guess(i: int) -> str:
        try:
            accounts.login(member_email, f"wrong password {i}", f"203.0.113.{i}")
        except ApiError as exc:
            return exc.code
        return "signed in"

    outcomes = race(guess, threads=12)
    assert outcomes.count(accounts.INVALID_CREDENTIALS) == throttle.ACCOUNT.attempts  # checked: five, not twelve
    assert outcomes.count(throttle.TOO_MANY_ATTEMPTS) == 12 - throttle.ACCOUNT.attempts


def test_a_right_password_gives_its_attempt_back(aws_env, tenant):
    _, token = accounts.invite(audit.operator(tenant.organizationId), "often@example.com", Role.VIEWER)
    accounts.accept_invite(token, None, PASSWORD, PASSWORD, None, None)
    for _ in range(throttle.ACCOUNT.attempts + 3):  # signing in often is not guessing
        assert accounts.login("often@example.com", PASSWORD, "198.51.100.9").token


def test_two_admins_demoting_each_other_at_once_leave_one_admin(aws_env, tenant, monkeypatch):
    emails = ["a1@example.com", "a2@example.com"]
    for email in emails:
        _, token = accounts.invite(audit.operator(tenant.organizationId), email, Role.ADMIN)
        accounts.accept_invite(token, None, PASSWORD, PASSWORD, None, None)
    users = [store.get_user_by_email(e) for e in emails]
    origins = [
        audit.Origin(tenant.organizationId, Actor(kind="console_user", userId=u["userId"], email=u["email"]))
        for u in users
    ]
    members = store.members
    barrier = threading.Barrier(2)

    def members_then_wait(organization_id: str) -> list[dict]:
        found = members(organization_id)
        barrier.wait(timeout=5)  # both have read two admins before either writes
        return found

    monkeypatch.setattr(store, "members", members_then_wait)

    def demote(i: int) -> str:
        try:
            accounts.set_role(origins[i], users[1 - i]["userId"], Role.VIEWER)
        except ApiError as exc:
            return exc.code
        return "ok"

    outcomes = race(demote, threads=2)
    assert sorted(outcomes) == [accounts.LAST_ADMIN, "ok"]
    monkeypatch.undo()
    assert [m["role"] for m in accounts.members(tenant.organizationId)].count("admin") == 1


def test_a_pages_automatic_refresh_does_not_keep_the_session_alive(api, tenant):
    ana = member(api, tenant.organizationId, "poll@example.com")
    fragment = f"/console/apps/{tenant.appId}/webhooks/deliveries"
    for _ in range(3):
        clock.travel(load_settings().console_idle_s // 2)
        assert ana.get(fragment, headers={"hx-request": "true", "x-console-poll": "1"}).status_code == 200
    assert ana.get("/console/apps").status_code == 303  # idle: the polls did not count as use

    bo = member(api, tenant.organizationId, "poll-admin@example.com")
    assert admin_main(["create-tenant", "--name", "X", "--admin-email", "Not An Email"]) == 1
    assert bo.get("/console/apps").status_code == 200
