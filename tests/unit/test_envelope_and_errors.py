"""The envelope on every response; validation errors name fields; nothing leaks on a 500."""

from __future__ import annotations

import json
import logging

import pytest
from chalice.app import Request

from chalicelib.auth import guards, service, users
from chalicelib.auth.tokens import TokenKind, issue
from chalicelib.platform.errors import ApiError


def login(api, tenant, body: bytes, content_type: str = "application/json"):
    return api.post(
        "/api/v1/auth/login", body=body, headers={"Content-Type": content_type, "x-client-secret": tenant.clientSecret}
    )


@pytest.mark.parametrize("body", [b"{not json", b'{"subId": "a",}', b"\xff\xfe"])
def test_malformed_json_is_400(api, tenant, body):
    response = login(api, tenant, body)
    assert response.status_code == 400
    assert response.json_body == {
        "status": 400,
        "message": "Request body is not valid JSON",
        "data": {"code": "MALFORMED_JSON"},
    }


@pytest.mark.parametrize("body", [b"[]", b'"x"', b"42"])
def test_non_object_json_is_400(api, tenant, body):
    response = login(api, tenant, body)
    assert response.status_code == 400 and response.json_body["data"]["code"] == "MALFORMED_JSON"


def test_wrong_field_type_names_the_field(api, tenant):
    response = login(api, tenant, json.dumps({"subId": 123}).encode())
    assert response.status_code == 400
    data = response.json_body["data"]
    assert data["code"] == "VALIDATION_ERROR"
    assert [e["field"] for e in data["errors"]] == ["subId"]
    assert data["errors"][0]["message"]


def test_every_bad_field_is_listed(api, tenant):
    response = login(api, tenant, json.dumps({"subId": "has space", "extra": 1}).encode())
    fields = sorted(e["field"] for e in response.json_body["data"]["errors"])
    assert fields == ["extra", "subId"]


def test_missing_field_is_named(api, tenant):
    response = login(api, tenant, b"{}")
    assert response.status_code == 400
    assert response.json_body["data"]["errors"][0]["field"] == "subId"


def test_bad_input_changes_nothing(api, tenant):
    from chalicelib.platform import aws

    before = aws.table("users").scan()["Count"]
    login(api, tenant, json.dumps({"subId": 123}).encode())
    assert aws.table("users").scan()["Count"] == before


def test_wrong_content_type_is_415_in_the_envelope(api, tenant):
    response = login(api, tenant, b"subId=x", content_type="application/x-www-form-urlencoded")
    assert response.status_code == 415
    assert response.json_body["status"] == 415
    assert response.json_body["data"]["code"] == "UNSUPPORTED_MEDIA_TYPE"


def test_wrong_method_is_405_in_the_envelope(api, tenant):
    response = api.delete("/api/v1/auth/login", headers={"x-client-secret": tenant.clientSecret})
    assert response.status_code == 405
    assert response.json_body["data"]["code"] == "METHOD_NOT_ALLOWED"
    assert "POST" in response.headers["Allow"]


def test_unexpected_failure_is_a_500_without_details(api, tenant, monkeypatch, caplog):
    def explode(*args, **kwargs):
        raise RuntimeError("database password is hunter2")

    monkeypatch.setattr(service.users, "get_or_create", explode)
    caplog.set_level(logging.DEBUG, logger="dompet")
    response = login(api, tenant, json.dumps({"subId": "x"}).encode())
    assert response.status_code == 500
    body = response.json_body
    assert body["status"] == 500 and body["message"] == "Internal server error"
    assert body["data"]["code"] == "INTERNAL_ERROR" and body["data"]["requestId"]
    logged = caplog.text + repr([record.__dict__ for record in caplog.records])
    assert "RuntimeError" in logged
    for secret in ("hunter2", "Traceback", tenant.clientSecret):
        assert secret not in logged and secret not in json.dumps(body)


def test_responses_carry_a_request_id(api, tenant):
    response = login(api, tenant, json.dumps({"subId": "x"}).encode())
    assert response.headers["X-Request-Id"]


def _request(headers: dict[str, str]) -> Request:
    return Request(
        {
            "headers": {k.lower(): v for k, v in headers.items()},
            "multiValueQueryStringParameters": None,
            "pathParameters": None,
            "stageVariables": None,
            "requestContext": {"httpMethod": "POST", "resourcePath": "/api/v1/wallet/send-coin", "path": "/x"},
            "body": None,
        }
    )


def test_access_token_is_refused_where_a_wallet_token_is_required(tenant):
    user = users.get_or_create(tenant.clientId, "no-wallet")
    token = issue(TokenKind.ACCESS, user_id=user.userId, client_id=tenant.clientId, sub_id="no-wallet", ttl_s=600)
    request = _request({"Authorization": f"Bearer {token.token}", "x-client-secret": tenant.clientSecret})
    with pytest.raises(ApiError) as refused:
        guards.wallet_token(request)
    assert (refused.value.status, refused.value.code) == (403, "WALLET_TOKEN_REQUIRED")
    assert guards.access_token(request).claims.kind is TokenKind.ACCESS


def test_wallet_token_is_refused_where_an_access_token_is_required(tenant):
    user = users.get_or_create(tenant.clientId, "with-wallet")
    token = issue(TokenKind.WALLET, user_id=user.userId, client_id=tenant.clientId, sub_id="with-wallet", ttl_s=600)
    request = _request({"Authorization": f"Bearer {token.token}", "x-client-secret": tenant.clientSecret})
    with pytest.raises(ApiError) as refused:
        guards.access_token(request)
    assert (refused.value.status, refused.value.code) == (403, "ACCESS_TOKEN_REQUIRED")
    assert guards.wallet_token(request).claims.kind is TokenKind.WALLET


def test_a_flood_of_bad_fields_gets_a_bounded_answer(api, tenant):
    body = json.dumps({f"field{i}": i for i in range(5000)}).encode()
    response = login(api, tenant, body)
    assert response.status_code == 400
    data = response.json_body["data"]
    assert len(data["errors"]) == 50 and data["truncated"] is True
    assert len(response.body) < 20_000


def test_get_routes_accept_any_content_type(api):
    assert api.get("/health", headers={"Content-Type": "text/plain"}).status_code == 200


def test_a_retry_later_error_answers_a_retry_after_header_and_field():
    from chalicelib.platform.envelope import error_envelope
    from chalicelib.platform.errors import RetryLaterError

    response = error_envelope(RetryLaterError("SIGNER_BUSY", "busy", 2.2))
    assert response.status_code == 503 and response.headers["Retry-After"] == "3"  # whole seconds, rounded up
    assert json.loads(response.body)["data"] == {"code": "SIGNER_BUSY", "retryAfter": 3}
    assert "Retry-After" not in error_envelope(ApiError(503, "LIST_BUSY", "busy")).headers


def test_a_request_out_of_time_answers_503_with_retry_after(api, tenant, monkeypatch):
    from chalicelib.platform import deadline

    monkeypatch.setattr(deadline, "from_lambda_context", lambda context, fallback_s: 0.5)  # less than RESERVE_S
    response = login(api, tenant, json.dumps({"subId": "alice"}).encode())
    assert response.status_code == 503 and response.json_body["data"]["code"] == "DEADLINE_EXCEEDED"
    assert response.headers["Retry-After"] == "1"


def test_holding_back_ends_the_body_early_and_gives_the_time_back_after_it():
    from chalicelib.platform import deadline

    with deadline.holding_back(2.0):
        assert deadline.remaining_s() is None  # outside a budget nothing changes
    with deadline.budget(10.0):
        full = deadline.remaining_s()
        assert full is not None
        with deadline.holding_back(2.0):
            held = deadline.remaining_s()
            assert held is not None and 1.9 < full - held < 2.1
            with pytest.raises(deadline.DeadlineExceededError), deadline.holding_back(held):
                deadline.require("a call in the body")  # the body's budget is spent...
        after = deadline.remaining_s()
        assert after is not None and after > held + 1.9  # ...what follows it still has its time
        deadline.require("giving back")
