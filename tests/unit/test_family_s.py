"""Family S: HMAC request signatures, timestamps, unknown apps, replay."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from chalice.app import Request

from chalicelib.auth import signing
from chalicelib.platform import aws
from chalicelib.platform.errors import ApiError
from tests.support.scripts import dompet_sign


def now_rfc3339(delta: timedelta = timedelta()) -> str:
    return (datetime.now(UTC) + delta).isoformat(timespec="seconds").replace("+00:00", "Z")


def whoami(api, headers):
    return api.get("/api/v1/auth/whoami", headers=headers)


def test_signed_whoami_with_the_shipped_helper(api, tenant):
    headers = dompet_sign.signed_headers(tenant.appId, tenant.appSecret, "GET", "http://x/api/v1/auth/whoami", b"")
    response = whoami(api, headers)
    assert response.status_code == 200, response.json_body
    assert response.json_body["data"] == {
        "appId": tenant.appId,
        "clientId": tenant.clientId,
        "organizationId": tenant.organizationId,
    }


def test_a_get_may_be_repeated(api, tenant):
    headers = dompet_sign.signed_headers(tenant.appId, tenant.appSecret, "GET", "http://x/api/v1/auth/whoami", b"")
    assert whoami(api, headers).status_code == 200
    assert whoami(api, headers).status_code == 200


@pytest.mark.parametrize(
    ("change", "code"),
    [
        (lambda h: h.pop("X-SIGNATURE"), "MISSING_SIGNATURE_HEADERS"),
        (lambda h: h.clear(), "MISSING_SIGNATURE_HEADERS"),
        (lambda h: h.update({"X-SIGNATURE": "00" * 32}), "INVALID_SIGNATURE"),
        (lambda h: h.update({"X-APP-ID": "4b1c7f55-0000-4000-8000-000000000000"}), "UNKNOWN_APP"),
        (lambda h: h.update({"X-TIMESTAMP": "yesterday"}), "INVALID_TIMESTAMP"),
        (lambda h: h.update({"X-TIMESTAMP": "2026-01-01T00:00:00"}), "INVALID_TIMESTAMP"),
        # Not RFC 3339, although Python's fromisoformat took them before:
        (lambda h: h.update({"X-TIMESTAMP": now_rfc3339()[:10]}), "INVALID_TIMESTAMP"),
        (lambda h: h.update({"X-TIMESTAMP": now_rfc3339().replace("T", " ")}), "INVALID_TIMESTAMP"),
        (lambda h: h.update({"X-TIMESTAMP": now_rfc3339().replace("-", "").replace(":", "")}), "INVALID_TIMESTAMP"),
        (lambda h: h.update({"X-TIMESTAMP": now_rfc3339()[:16] + "Z"}), "INVALID_TIMESTAMP"),
    ],
)
def test_bad_signed_requests_are_401_with_a_code(api, tenant, change, code):
    headers = dompet_sign.signed_headers(tenant.appId, tenant.appSecret, "GET", "http://x/api/v1/auth/whoami", b"")
    change(headers)
    response = whoami(api, headers)
    assert response.status_code == 401
    assert response.json_body["status"] == 401
    assert response.json_body["data"]["code"] == code


def test_missing_headers_are_named(api, tenant):
    response = whoami(api, {"X-APP-ID": tenant.appId})
    assert response.json_body["data"]["missing"] == ["X-TIMESTAMP", "X-SIGNATURE"]


@pytest.mark.parametrize("delta", [timedelta(minutes=-15), timedelta(minutes=6)])
def test_stale_timestamp_is_distinguishable_from_bad_signature(api, tenant, delta):
    stamp = now_rfc3339(delta)
    headers = dompet_sign.signed_headers(
        tenant.appId, tenant.appSecret, "GET", "http://x/api/v1/auth/whoami", b"", timestamp=stamp
    )
    response = whoami(api, headers)
    assert response.status_code == 401 and response.json_body["data"]["code"] == "STALE_TIMESTAMP"


def test_signature_with_another_apps_secret_is_invalid(api, tenant):
    headers = dompet_sign.signed_headers(tenant.appId, "das_other", "GET", "http://x/api/v1/auth/whoami", b"")
    assert whoami(api, headers).json_body["data"]["code"] == "INVALID_SIGNATURE"


def test_timestamp_with_offset_is_accepted(api, tenant):
    stamp = (
        datetime.now(UTC).astimezone(__import__("datetime").timezone(timedelta(hours=7))).isoformat(timespec="seconds")
    )
    headers = dompet_sign.signed_headers(
        tenant.appId, tenant.appSecret, "GET", "http://x/api/v1/auth/whoami", b"", timestamp=stamp
    )
    assert whoami(api, headers).status_code == 200


def _event(
    method: str,
    path: str,
    query: dict[str, list[str]] | None,
    headers: dict[str, str],
    body: bytes,
    stage_path: bool = False,
) -> dict:
    """An API Gateway REST proxy event as Lambda receives it."""
    return {
        "resource": path,
        "path": path,
        "httpMethod": method,
        "headers": {k.lower(): v for k, v in headers.items()},
        "multiValueQueryStringParameters": query,
        "pathParameters": None,
        "stageVariables": None,
        "requestContext": {
            "httpMethod": method,
            "resourcePath": path,
            "path": f"/api{path}" if stage_path else path,
            "identity": {"sourceIp": "203.0.113.9"},
        },
        "body": body.decode() if body else None,
        "isBase64Encoded": False,
    }


def test_post_signature_cannot_be_replayed(tenant):
    body = json.dumps({"url": "https://example.com/hook"}).encode()
    url = "https://api.example.com/api/v1/webhooks/settings"
    headers = dompet_sign.signed_headers(tenant.appId, tenant.appSecret, "POST", url, body)
    event = _event("POST", "/api/v1/webhooks/settings", None, headers, body, stage_path=True)
    assert signing.verify(Request(event)).appId == tenant.appId
    with pytest.raises(ApiError) as replay:
        signing.verify(Request(event))
    assert replay.value.status == 401 and replay.value.code == "REPLAYED_REQUEST"
    markers = [i for i in aws.table("auth-state").scan()["Items"] if i["pk"].startswith("SIG#")]
    assert len(markers) == 1 and int(markers[0]["expiresAt"]) > 0


def test_body_and_query_are_covered_by_the_signature(tenant):
    url = "https://api.example.com/api/v1/webhooks/deliveries?page=2&limit=20&note=a%20b"
    headers = dompet_sign.signed_headers(tenant.appId, tenant.appSecret, "GET", url, b"")
    query = {"page": ["2"], "limit": ["20"], "note": ["a b"]}
    assert (
        signing.verify(Request(_event("GET", "/api/v1/webhooks/deliveries", query, headers, b""))).appId == tenant.appId
    )
    tampered = {**query, "page": ["3"]}
    with pytest.raises(ApiError) as bad_query:
        signing.verify(Request(_event("GET", "/api/v1/webhooks/deliveries", tampered, headers, b"")))
    assert bad_query.value.code == "INVALID_SIGNATURE"

    body = b'{"url":"https://example.com/a"}'
    put_url = "https://api.example.com/api/v1/webhooks/settings"
    post_headers = dompet_sign.signed_headers(tenant.appId, tenant.appSecret, "PUT", put_url, body)
    assert (
        signing.verify(Request(_event("PUT", "/api/v1/webhooks/settings", None, post_headers, body))).appId
        == tenant.appId
    )
    post_headers = dompet_sign.signed_headers(tenant.appId, tenant.appSecret, "PUT", put_url, body)
    with pytest.raises(ApiError) as bad_body:
        signing.verify(
            Request(_event("PUT", "/api/v1/webhooks/settings", None, post_headers, b'{"url":"https://evil.example/a"}'))
        )
    assert bad_body.value.code == "INVALID_SIGNATURE"


@pytest.mark.parametrize(
    "query",
    ["email=a@b.com", "a=1&b=2&a=3", "flag", "x=%7E", "note=a+b", "q=%E2%82%AC%20x&z=", "page=1&limit=20"],
)
def test_the_helper_and_the_server_agree_on_queries(api, tenant, query):
    """Whatever query an integrator writes, the helper signs exactly what the service rebuilds."""
    url = dompet_sign.canonical_url(f"http://x/api/v1/auth/whoami?{query}")
    headers = dompet_sign.signed_headers(tenant.appId, tenant.appSecret, "GET", url, b"")
    path = url.removeprefix("http://x")
    # API Gateway reads the query without turning '+' into a space.
    from urllib.parse import unquote

    grouped: dict[str, list[str]] = {}
    for pair in filter(None, path.split("?", 1)[1].split("&")):
        name, _, value = pair.partition("=")
        grouped.setdefault(unquote(name), []).append(unquote(value))
    event = _event("GET", "/api/v1/auth/whoami", grouped, headers, b"")
    assert signing.verify(Request(event)).appId == tenant.appId
    assert api.get(path, headers=headers).status_code == 200  # and through chalice's local gateway


@pytest.mark.parametrize(
    ("header", "value", "code"),
    [
        ("X-SIGNATURE", "é" * 64, "INVALID_SIGNATURE"),
        ("X-SIGNATURE", "zz" * 32, "INVALID_SIGNATURE"),
        ("X-TIMESTAMP", "0001-01-01T00:00:00+01:00", "INVALID_TIMESTAMP"),
        ("X-TIMESTAMP", "9999-12-31T23:59:59-01:00", "INVALID_TIMESTAMP"),
        ("X-APP-ID", "a" * 3000, "UNKNOWN_APP"),
        ("X-APP-ID", "APP#x", "UNKNOWN_APP"),
    ],
)
def test_odd_headers_are_401_not_500(tenant, header, value, code):
    headers = dompet_sign.signed_headers(tenant.appId, tenant.appSecret, "GET", "http://x/api/v1/auth/whoami", b"")
    headers[header] = value
    with pytest.raises(ApiError) as error:
        signing.verify(Request(_event("GET", "/api/v1/auth/whoami", None, headers, b"")))
    assert (error.value.status, error.value.code) == (401, code)


@pytest.mark.parametrize(("seconds", "accepted"), [(-299, True), (299, True), (-301, False), (301, False)])
def test_the_window_is_300_seconds(api, tenant, seconds, accepted):
    stamp = now_rfc3339(timedelta(seconds=seconds))
    headers = dompet_sign.signed_headers(
        tenant.appId, tenant.appSecret, "GET", "http://x/api/v1/auth/whoami", b"", timestamp=stamp
    )
    response = whoami(api, headers)
    assert (response.status_code == 200) is accepted, response.json_body


@pytest.mark.parametrize("form", ["lower", "millis", "nanos"])
def test_every_rfc3339_form_is_accepted(api, tenant, form):
    stamp = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    stamp = {"lower": stamp.replace("T", "t").replace("Z", "z"), "millis": stamp, "nanos": stamp[:-1] + "123456Z"}[form]
    headers = dompet_sign.signed_headers(
        tenant.appId, tenant.appSecret, "GET", "http://x/api/v1/auth/whoami", b"", timestamp=stamp
    )
    assert whoami(api, headers).status_code == 200, form


def test_two_identical_writes_in_one_second_are_not_a_replay(tenant):
    """With millisecond timestamps (what the helper sends) two equal requests sign differently."""
    body = b""
    url = "https://api.example.com/api/v1/webhooks/settings"
    second = datetime.now(UTC).replace(microsecond=0)
    for millis in (100, 900):
        stamp = (second + timedelta(milliseconds=millis)).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        headers = dompet_sign.signed_headers(tenant.appId, tenant.appSecret, "DELETE", url, body, timestamp=stamp)
        event = _event("DELETE", "/api/v1/webhooks/settings", None, headers, body, stage_path=True)
        assert signing.verify(Request(event)).appId == tenant.appId
    default = dompet_sign.signed_headers(tenant.appId, tenant.appSecret, "DELETE", url, body)
    assert "." in default["X-TIMESTAMP"]  # the helper uses milliseconds
