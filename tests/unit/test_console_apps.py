"""The console's apps, secrets, webhooks and audit log (chalice's test client over moto): secrets shown once and
usable at once for signed calls, rotation with an overlap in which both secrets work, disabled apps refused,
webhook deliveries replayed and retried, every change in the audit log (also over the API), and no member
ever reaching another organization's apps."""

from __future__ import annotations

import html
import json
import uuid

from chalicelib.console import apps as console_apps
from chalicelib.console import store
from chalicelib.platform import aws, clock, unit_of_work
from chalicelib.platform.pagination import PageQuery
from chalicelib.platform.settings import load_settings
from chalicelib.platform.unit_of_work import Event, Plan
from chalicelib.tenancy import service as tenancy
from chalicelib.webhooks import attempts, deliveries
from tests.support.console import field_values, member
from tests.support.scripts import dompet_sign


def signed(api, app_id, secret, method, path, body=None):
    raw = json.dumps(body).encode() if body is not None else b""
    headers = dompet_sign.signed_headers(app_id, secret, method, f"http://x{path}", raw, timestamp=clock.iso_now())
    if body is not None:
        headers["Content-Type"] = "application/json"
    return getattr(api, method.lower())(path, headers=headers, **({"body": raw} if body is not None else {}))


def whoami(api, app_id, secret):
    return signed(api, app_id, secret, "GET", "/api/v1/auth/whoami")


def test_a_new_app_secret_is_shown_once_and_signs_at_once(api, tenant):
    ana = member(api, tenant.organizationId, "ana@example.com")
    ana.get("/console/apps")
    created = ana.post("/console/apps", {"name": "Shop", "clientId": tenant.clientId})
    assert created.status_code == 201
    [app_id], [secret] = field_values(ana.text(), "appId"), field_values(ana.text(), "appSecret")
    answer = whoami(api, app_id, secret)
    assert answer.status_code == 200 and answer.json_body["data"]["appId"] == app_id
    assert secret not in ana.get("/console/apps").body.decode()  # never shown again
    assert secret not in json.dumps(aws.table("tenancy").scan()["Items"], default=lambda v: bytes(v).hex())


def test_app_secret_rotation_overlaps_then_only_the_new_one_works(api, tenant):
    assert whoami(api, tenant.appId, tenant.appSecret).status_code == 200  # cached by this function
    ana = member(api, tenant.organizationId, "rot@example.com")
    ana.get("/console/apps")
    assert ana.post(f"/console/apps/{tenant.appId}/rotate-secret").status_code == 200
    [new] = field_values(ana.text(), "appSecret")
    assert whoami(api, tenant.appId, new).status_code == 200
    assert whoami(api, tenant.appId, tenant.appSecret).status_code == 200  # the overlap
    clock.travel(load_settings().secret_overlap_s + 1)
    assert whoami(api, tenant.appId, new).status_code == 200
    refused = whoami(api, tenant.appId, tenant.appSecret)
    assert refused.status_code == 401 and refused.json_body["data"]["code"] == "INVALID_SIGNATURE"


def test_a_rotation_made_by_another_function_is_seen_at_once(api, tenant):
    assert whoami(api, tenant.appId, tenant.appSecret).status_code == 200
    cached = tenancy.app_with_secret(tenant.appId)
    _, new = tenancy.rotate_app_secret(tenant.appId)
    tenancy._app_secret_cache.put(tenant.appId, cached)  # this function still holds the secret as it was
    assert whoami(api, tenant.appId, new).status_code == 200  # read again once, not after the cache time
    assert whoami(api, tenant.appId, "das_" + "x" * 43).status_code == 401
    assert whoami(api, tenant.appId, "das_" + "y" * 43).status_code == 401  # no second read within REREAD_S


def test_client_secret_rotation_overlaps(api, tenant):
    login = {"subId": "user-1"}
    ana = member(api, tenant.organizationId, "client@example.com")
    ana.get("/console/apps")
    assert ana.post(f"/console/clients/{tenant.clientId}/rotate-secret").status_code == 200
    [new] = field_values(ana.text(), "clientSecret")
    for secret in (new, tenant.clientSecret):
        answer = api.post(
            "/api/v1/auth/login",
            headers={"x-client-secret": secret, "Content-Type": "application/json"},
            body=json.dumps(login),
        )
        assert answer.status_code == 200, answer.json_body
    clock.travel(load_settings().secret_overlap_s + 1)
    old = api.post(
        "/api/v1/auth/login",
        headers={"x-client-secret": tenant.clientSecret, "Content-Type": "application/json"},
        body=json.dumps(login),
    )
    assert old.status_code == 401
    fresh = api.post(
        "/api/v1/auth/login",
        headers={"x-client-secret": new, "Content-Type": "application/json"},
        body=json.dumps(login),
    )
    assert fresh.status_code == 200
    # a second rotation drops the first secret's lookup entirely
    ana = member(api, tenant.organizationId, "client2@example.com")  # (the first session ended meanwhile)
    ana.get("/console/apps")
    ana.post(f"/console/clients/{tenant.clientId}/rotate-secret")
    assert len([i for i in aws.table("tenancy").scan()["Items"] if str(i["pk"]).startswith("CLIENTSECRET#")]) == 2


def test_a_disabled_app_is_refused_and_can_be_enabled_again(api, tenant):
    admin = member(api, tenant.organizationId, "dis@example.com")
    admin.get("/console/apps")
    assert admin.post(f"/console/apps/{tenant.appId}/disable").status_code == 303
    refused = whoami(api, tenant.appId, tenant.appSecret)
    assert refused.status_code == 403 and refused.json_body["data"]["code"] == "APP_DISABLED"
    admin.get("/console/apps")
    admin.post(f"/console/apps/{tenant.appId}/enable")
    assert whoami(api, tenant.appId, tenant.appSecret).status_code == 200


def test_members_never_reach_another_organizations_apps(api, tenant):
    other = tenancy.create_tenant("Other")
    mallory = member(api, other.organizationId, "mallory@example.com")
    mallory.get("/console/apps")
    assert tenant.appId not in mallory.text() and other.appId in mallory.text()
    for path in (f"/console/apps/{tenant.appId}/webhooks", f"/console/apps/{tenant.appId}/webhooks/deliveries"):
        assert mallory.get(path).status_code == 404 and "APP_NOT_FOUND" in mallory.text()
    for path in (
        f"/console/apps/{tenant.appId}/rotate-secret",
        f"/console/apps/{tenant.appId}/disable",
        f"/console/apps/{tenant.appId}/webhooks/test",
    ):
        mallory.get("/console/apps")
        assert mallory.post(path).status_code == 404, path
    mallory.get("/console/apps")
    assert mallory.post(f"/console/clients/{tenant.clientId}/rotate-secret").status_code == 404
    mallory.get("/console/apps")
    assert mallory.post("/console/apps", {"name": "Planted", "clientId": tenant.clientId}).status_code == 404
    assert whoami(api, tenant.appId, tenant.appSecret).status_code == 200  # untouched
    assert [a.name for a in console_apps.apps(tenant.organizationId)] == ["Acme app"]


def test_webhooks_test_delivery_replay_and_retry_failed(api, tenant, public_dns, monkeypatch):
    posted: list[tuple[str, bytes]] = []
    answers = iter([500, 200, 200, 200, 200])

    def post(url, body, headers, timeout_s, max_read):
        posted.append((url, body))
        return next(answers), None

    monkeypatch.setattr(attempts.pinned_http, "post", post)
    dev = member(api, tenant.organizationId, "hooks@example.com")
    page = f"/console/apps/{tenant.appId}/webhooks"
    dev.get(page)
    assert dev.post(page, {"url": "https://hooks.example.com/dompet"}).status_code == 303
    dev.get(page)
    assert field_values(dev.text(), "webhookState") == ["enabled"]
    dev.post(f"{page}/test")
    [listed] = deliveries.entries(tenant.appId).page(PageQuery(page=1, limit=10))[0]
    queued = listed["deliveryId"]
    attempts.deliver(queued)  # the receiver answers 500: retried later
    assert deliveries.get(queued)["status"] == "pending"
    _fail(queued)  # as when its attempts run out
    fragment = dev.get(f"{page}/deliveries", headers={"hx-request": "true"})
    assert "<html" not in fragment.body.decode() and field_values(dev.text(), "deliveryStatus") == ["failed"]

    dev.get(f"{page}/deliveries/{queued}")
    body = html.unescape(field_values(dev.text(), "body")[0])
    assert json.loads(body)["type"] == "webhook.test" and json.loads(body)["id"] == listed_event(queued)
    replayed = dev.post(f"{page}/deliveries/{queued}/replay")
    assert replayed.status_code == 303
    replay_id = replayed.headers["Location"].rsplit("/", 1)[1]
    copy = deliveries.get(replay_id)
    assert copy["eventId"] == deliveries.get(queued)["eventId"] and copy["replayOf"] == queued
    attempts.deliver(replay_id)
    assert deliveries.get(replay_id)["status"] == "delivered"

    dev.get(page)
    retried = dev.post(f"{page}/retry-failed", {"since": "2000-01-01T00:00"})
    assert retried.status_code == 200 and field_values(dev.text(), "retriedCount") == [
        "1 failed deliveries queued again."
    ]
    attempts.deliver(queued)
    assert deliveries.get(queued)["status"] == "delivered"
    assert len(posted) == 3

    dev.get(page)
    dev.post(f"{page}/disable")
    dev.get(page)
    assert field_values(dev.text(), "webhookState") == ["paused"]
    before = deliveries.entries(tenant.appId).count()
    paused = dev.post(f"{page}/test")
    assert paused.status_code == 409 and "WEBHOOK_PAUSED" in dev.text()
    test_over_api = signed(api, tenant.appId, tenant.appSecret, "POST", "/api/v1/webhooks/test")
    assert test_over_api.status_code == 409 and test_over_api.json_body["data"]["code"] == "WEBHOOK_PAUSED"
    unit_of_work.commit(Plan(event=Event(tenant.appId, "webhook.test", str(uuid.uuid4()), {})))  # any event
    assert deliveries.entries(tenant.appId).count() == before  # paused: recorded, not delivered
    dev.get(page)
    dev.post(f"{page}/enable")
    assert signed(api, tenant.appId, tenant.appSecret, "POST", "/api/v1/webhooks/test").status_code == 200


def listed_event(delivery_id):
    return deliveries.get(delivery_id)["eventId"]


def _fail(delivery_id):
    aws.table("webhooks").update_item(
        Key={"pk": f"DELIVERY#{delivery_id}", "sk": "DELIVERY"},
        UpdateExpression="SET #s = :f REMOVE duePk, dueAt",
        ExpressionAttributeNames={"#s": "status"},
        ExpressionAttributeValues={":f": "failed"},
    )


def test_every_change_is_in_the_audit_log_also_over_the_api(api, tenant, public_dns):
    ana = member(api, tenant.organizationId, "audit@example.com")
    ana.get("/console/apps")
    ana.post("/console/apps", {"name": "Audited", "clientId": tenant.clientId})
    ana.get("/console/apps")
    ana.post(f"/console/apps/{tenant.appId}/rotate-secret")
    [secret] = field_values(ana.text(), "appSecret")
    ana.get(f"/console/apps/{tenant.appId}/webhooks")
    ana.post(f"/console/apps/{tenant.appId}/webhooks", {"url": "https://hooks.example.com/x"})
    ana.get("/console/team")
    ana.post("/console/team/invites", {"email": "bo@example.com", "role": "viewer"})

    ana.get("/console/audit")
    actions = field_values(ana.text(), "action")
    assert len(actions) == 6  # operator's invite, joined, app, rotation, webhook, invite

    # Over the API, an app's secret reads the entries about its own app, without the members' personal data
    # (tests/unit/test_audit_log_api.py).
    listed = signed(api, tenant.appId, secret, "GET", "/api/v1/audit-log?page=1&limit=1")
    assert listed.status_code == 200, listed.json_body
    data = listed.json_body["data"]
    assert data["pagination"]["total"] == 2 and data["pagination"]["totalPages"] == 2
    everything = signed(api, tenant.appId, secret, "GET", "/api/v1/audit-log?limit=100").json_body["data"]["data"]
    assert [e["action"] for e in everything][::-1] == ["app.secret_rotated", "webhook.url_set"]
    assert everything[0]["details"] == {"url": "https://hooks.example.com/x"}

    other = tenancy.create_tenant("Elsewhere")
    theirs = signed(api, other.appId, other.appSecret, "GET", "/api/v1/audit-log")
    assert theirs.json_body["data"]["pagination"]["total"] == 0  # only the signing app's organization
    assert store.audit_list(tenant.organizationId).count() == 6


def test_a_retry_goes_to_the_current_url_and_not_while_paused(api, tenant, public_dns):
    dev = member(api, tenant.organizationId, "retry-url@example.com")
    page = f"/console/apps/{tenant.appId}/webhooks"
    dev.get(page)
    dev.post(page, {"url": "https://hooks.example.com/old"})
    dev.get(page)
    dev.post(f"{page}/test")
    [listed] = deliveries.entries(tenant.appId).page(PageQuery(page=1, limit=10))[0]
    failed = listed["deliveryId"]
    _fail(failed)
    dev.get(page)
    dev.post(page, {"url": "https://hooks.example.com/new"})  # the old endpoint was retired (or compromised)
    dev.get(page)
    dev.post(f"{page}/disable")
    dev.get(page)
    paused = dev.post(f"{page}/retry-failed", {"since": "2000-01-01T00:00"})
    assert paused.status_code == 409 and "WEBHOOK_PAUSED" in dev.text()
    over_api = signed(api, tenant.appId, tenant.appSecret, "POST", f"/api/v1/webhooks/deliveries/{failed}/retry")
    assert over_api.status_code == 409 and over_api.json_body["data"]["code"] == "WEBHOOK_PAUSED"
    assert deliveries.get(failed)["status"] == "failed"
    dev.get(page)
    dev.post(f"{page}/enable")
    again = signed(api, tenant.appId, tenant.appSecret, "POST", f"/api/v1/webhooks/deliveries/{failed}/retry")
    assert again.status_code == 200
    assert deliveries.get(failed)["url"] == "https://hooks.example.com/new"
