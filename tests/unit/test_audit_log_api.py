"""`GET /api/v1/audit-log` with an app's secret (Family S): the entries about the signing app only (its secret, its
webhooks, its deliveries), never another app's, a client's or the members', and without the members' personal data
(email, source address, browser), which stay with the admins in the console (docs/console.md, "The audit log")."""

from __future__ import annotations

import json

from chalicelib.console import audit
from chalicelib.console.models import Actor
from chalicelib.platform import unit_of_work
from chalicelib.platform.pagination import PageQuery
from chalicelib.platform.unit_of_work import Plan
from tests.support.console import field_values, member
from tests.unit.test_console_apps import signed

UA = "Mozilla/5.0 (X11; Linux x86_64) AuditTest/1"


def _api_log(api, app_id, secret):
    answer = signed(api, app_id, secret, "GET", "/api/v1/audit-log?limit=100")
    assert answer.status_code == 200, answer.json_body
    return answer.json_body["data"]


def test_an_app_secret_reads_its_apps_entries_without_personal_data(api, tenant, public_dns):
    ana = member(api, tenant.organizationId, "ana@example.com")
    hdr = {"user-agent": UA}
    ana.get("/console/apps", headers=hdr)
    ana.post("/console/apps", {"name": "Second", "clientId": tenant.clientId}, headers=hdr)
    [second_id], [second_secret] = field_values(ana.text(), "appId"), field_values(ana.text(), "appSecret")
    ana.get("/console/apps", headers=hdr)
    ana.post(f"/console/apps/{tenant.appId}/rotate-secret", headers=hdr)
    [secret] = field_values(ana.text(), "appSecret")
    ana.get("/console/apps", headers=hdr)
    ana.post(f"/console/clients/{tenant.clientId}/rotate-secret", headers=hdr)
    page = f"/console/apps/{tenant.appId}/webhooks"
    ana.get(page, headers=hdr)
    ana.post(page, {"url": "https://hooks.example.com/audit"}, headers=hdr)
    ana.get(page, headers=hdr)
    ana.post(f"{page}/disable", headers=hdr)
    ana.get("/console/team", headers=hdr)
    ana.post("/console/team/invites", {"email": "bo@example.com", "role": "viewer"}, headers=hdr)

    # The admin's view: everything, with who and from where.
    whole = audit.page(tenant.organizationId, PageQuery(page=1, limit=100)).data
    assert {e.action for e in whole} >= {"app.created", "client.secret_rotated", "member.invited", "member.joined"}
    assert any(e.actor.email == "ana@example.com" and e.userAgent == UA for e in whole)

    ours = _api_log(api, tenant.appId, secret)
    assert [e["action"] for e in ours["data"]] == ["webhook.disabled", "webhook.url_set", "app.secret_rotated"]
    assert ours["pagination"]["total"] == 3
    for entry in ours["data"]:
        assert entry["target"] == {"type": "app", "id": tenant.appId}
        assert entry["actor"]["kind"] == "console_user" and entry["actor"]["userId"]
        assert entry["actor"]["email"] is None and entry["sourceIp"] is None and entry["userAgent"] is None
    text = json.dumps(ours)
    assert "ana@example.com" not in text and "bo@example.com" not in text and UA not in text

    theirs = _api_log(api, second_id, second_secret)  # the same organization's other app: its own creation only
    assert [e["action"] for e in theirs["data"]] == ["app.created"]
    assert theirs["data"][0]["details"] == {"name": "Second", "clientId": tenant.clientId}


def test_replays_and_retries_of_an_apps_deliveries_are_its_entries(aws_env, tenant):
    origin = audit.Origin(
        tenant.organizationId,
        Actor(kind="console_user", userId="u-1", email="eve@example.com"),
        "203.0.113.9",
        UA,
    )
    logged = audit.app_entries(origin, tenant.appId, "webhook.delivery_replayed", "delivery", "d-1", email="x@y.z")
    unit_of_work.commit(Plan(lists=logged))
    unit_of_work.commit(Plan(lists=[audit.entry(origin, "member.removed", "member", "u-2", email="x@y.z")]))
    [entry] = audit.app_page(tenant.organizationId, tenant.appId, PageQuery(page=1, limit=10)).data
    assert entry.action == "webhook.delivery_replayed" and entry.target == {"type": "delivery", "id": "d-1"}
    assert entry.actor == Actor(kind="console_user", userId="u-1") and entry.details == {}
    assert entry.sourceIp is None and entry.userAgent is None
    full = audit.page(tenant.organizationId, PageQuery(page=1, limit=10)).data
    assert [e.action for e in full] == ["member.removed", "webhook.delivery_replayed"]
    assert full[1].sourceIp == "203.0.113.9" and full[1].details == {"email": "x@y.z"}
