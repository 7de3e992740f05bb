"""Bodies are read only as what they declare: JSON in UTF-8, no repeated keys (docs/errors.md)."""

from __future__ import annotations

import pytest


def _login(api, tenant, body: bytes, content_type: str | None):
    headers = {"x-client-secret": tenant.clientSecret}
    if content_type is not None:
        headers["Content-Type"] = content_type
    return api.post("/api/v1/auth/login", headers=headers, body=body)


@pytest.mark.parametrize("content_type", [None, "*/*", "text/plain", "application/json; charset=utf-16"])
def test_a_body_that_is_not_declared_utf8_json_is_415(api, tenant, content_type):
    response = _login(api, tenant, b'{"subId": "u1"}', content_type)
    assert response.status_code == 415, (content_type, response.json_body)
    assert response.json_body["status"] == 415 and response.json_body["data"]["code"] == "UNSUPPORTED_MEDIA_TYPE"


@pytest.mark.parametrize(
    "content_type", ["application/json", "application/json; charset=utf-8", "Application/JSON; Charset=UTF-8"]
)
def test_utf8_json_is_read(api, tenant, content_type):
    assert _login(api, tenant, b'{"subId": "u1"}', content_type).status_code == 200


def test_a_repeated_key_is_refused(api, tenant):
    response = _login(api, tenant, b'{"subId": "u1", "subId": "u2"}', "application/json")
    assert response.status_code == 400 and response.json_body["data"]["code"] == "MALFORMED_JSON"
