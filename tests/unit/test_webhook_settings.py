"""Webhook settings (Family S): PUT/GET/DELETE, and the SSRF checks on the URL."""

from __future__ import annotations

import json

import pytest

from chalicelib.platform import egress, settings
from tests.support.scripts import dompet_sign

PATH = "/api/v1/webhooks/settings"


def signed(api, tenant, method, body=None):
    raw = json.dumps(body).encode() if body is not None else b""
    headers = dompet_sign.signed_headers(tenant.appId, tenant.appSecret, method, f"http://x{PATH}", raw)
    if body is not None:
        headers["Content-Type"] = "application/json"
    return getattr(api, method.lower())(PATH, headers=headers, **({"body": raw} if body is not None else {}))


def test_put_get_delete(api, tenant, public_dns):
    empty = signed(api, tenant, "GET")
    assert empty.status_code == 200
    assert empty.json_body["data"] == {"url": None, "enabled": False, "updatedAt": None}

    url = "https://hooks.example.com/dompet?x=1"
    saved = signed(api, tenant, "PUT", {"url": url})
    assert saved.status_code == 200, saved.json_body
    data = signed(api, tenant, "GET").json_body["data"]
    assert data["url"] == url and data["enabled"] is True and data["updatedAt"].endswith("Z")

    deleted = signed(api, tenant, "DELETE")
    assert deleted.status_code == 200 and deleted.json_body["data"] == {"status": "ok"}
    assert signed(api, tenant, "GET").json_body["data"]["url"] is None


@pytest.mark.parametrize(
    ("url", "code"),
    [
        ("https://10.0.0.1/hook", "WEBHOOK_URL_FORBIDDEN_ADDRESS"),
        ("https://169.254.169.254/latest/meta-data", "WEBHOOK_URL_FORBIDDEN_ADDRESS"),
        ("https://127.0.0.1/hook", "WEBHOOK_URL_FORBIDDEN_ADDRESS"),
        ("https://[::1]/hook", "WEBHOOK_URL_FORBIDDEN_ADDRESS"),
        ("https://[::ffff:10.0.0.1]/hook", "WEBHOOK_URL_FORBIDDEN_ADDRESS"),
        ("https://[::7f00:1]/hook", "WEBHOOK_URL_FORBIDDEN_ADDRESS"),  # IPv4-compatible 127.0.0.1
        ("https://[64:ff9b::a9fe:a9fe]/hook", "WEBHOOK_URL_FORBIDDEN_ADDRESS"),  # NAT64 of the metadata address
        ("https://[2002:a9fe:a9fe::1]/hook", "WEBHOOK_URL_FORBIDDEN_ADDRESS"),  # 6to4 of the metadata address
        ("https://[fec0::1]/hook", "WEBHOOK_URL_FORBIDDEN_ADDRESS"),  # site-local
        ("https://[fe80::1]/hook", "WEBHOOK_URL_FORBIDDEN_ADDRESS"),
        ("https://224.0.0.1/hook", "WEBHOOK_URL_FORBIDDEN_ADDRESS"),
        ("https://100.64.0.1/hook", "WEBHOOK_URL_FORBIDDEN_ADDRESS"),
        ("https://0.0.0.0/hook", "WEBHOOK_URL_FORBIDDEN_ADDRESS"),
        ("https://rebind.example.com/hook", "WEBHOOK_URL_FORBIDDEN_ADDRESS"),
        ("https://mixed.example.com/hook", "WEBHOOK_URL_FORBIDDEN_ADDRESS"),
        ("http://example.com/hook", "WEBHOOK_URL_NOT_HTTPS"),
        ("http://hooks.example.com/hook", "WEBHOOK_URL_NOT_HTTPS"),
        ("not a url", "INVALID_WEBHOOK_URL"),
        ("ftp://hooks.example.com/x", "INVALID_WEBHOOK_URL"),
        ("https://user:pw@hooks.example.com/x", "INVALID_WEBHOOK_URL"),
        ("https://hooks.example.com:99999/x", "INVALID_WEBHOOK_URL"),
        ("https://nowhere.invalid/x", "WEBHOOK_HOST_UNRESOLVABLE"),
        # Saved (200) before, then failed or silently altered at delivery:
        ("https://hooks.example.com/x\r\nX-Injected: 1", "INVALID_WEBHOOK_URL"),
        ("https://hooks.example.com/x\x00", "INVALID_WEBHOOK_URL"),
        ("https://hooks.example.com/a\tb", "INVALID_WEBHOOK_URL"),
        ("https://hooks.example.com/a b", "INVALID_WEBHOOK_URL"),
        (" https://hooks.example.com/x", "INVALID_WEBHOOK_URL"),
        ("https://hooks.example.com/\x7f", "INVALID_WEBHOOK_URL"),
        ("https://hooks.example.com/caf\u00e9", "INVALID_WEBHOOK_URL"),
        ("https://hooks.example.com:0/x", "INVALID_WEBHOOK_URL"),
        ("https://hooks.example.com/x#frag", "INVALID_WEBHOOK_URL"),
        ("https://hooks.example.com/x#", "INVALID_WEBHOOK_URL"),
        # Empty credentials still put an "@" in the authority; a backslash is "/" to WHATWG parsers, not to ours.
        ("https://@hooks.example.com/x", "INVALID_WEBHOOK_URL"),
        ("https://:@hooks.example.com/x", "INVALID_WEBHOOK_URL"),
        ("https://hooks.example.com\\@evil.example/x", "INVALID_WEBHOOK_URL"),
        ("https://hooks.example.com/a\\b", "INVALID_WEBHOOK_URL"),
    ],
)
def test_refused_urls_change_nothing(api, tenant, public_dns, url, code):
    response = signed(api, tenant, "PUT", {"url": url})
    assert response.status_code == 400 and response.json_body["data"]["code"] == code, response.json_body
    assert signed(api, tenant, "GET").json_body["data"]["url"] is None


def test_the_allowlist_admits_local_receivers_for_development(monkeypatch):
    with pytest.raises(egress.UrlRefused):
        egress.allowed_target("http://127.0.0.1:8080/hook")
    monkeypatch.setenv("DOMPET_WEBHOOK_ALLOWLIST", "127.0.0.1/32")
    settings.load_settings.cache_clear()
    try:
        target = egress.allowed_target("http://127.0.0.1:8080/hook?a=b")
        assert (target.host, target.port, target.path) == ("127.0.0.1", 8080, "/hook?a=b")
        with pytest.raises(egress.UrlRefused):
            egress.allowed_target("http://10.0.0.1/hook")  # only what is listed
    finally:
        monkeypatch.delenv("DOMPET_WEBHOOK_ALLOWLIST")
        settings.load_settings.cache_clear()


def test_replayed_put_is_refused(api, tenant, public_dns):
    raw = json.dumps({"url": "https://hooks.example.com/a"}).encode()
    headers = dompet_sign.signed_headers(tenant.appId, tenant.appSecret, "PUT", f"http://x{PATH}", raw)
    headers["Content-Type"] = "application/json"
    assert api.put(PATH, headers=headers, body=raw).status_code == 200
    again = api.put(PATH, headers=headers, body=raw)
    assert again.status_code == 401 and again.json_body["data"]["code"] == "REPLAYED_REQUEST"
