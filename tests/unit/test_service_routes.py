"""/health, /openapi.json (valid OpenAPI 3.1) and the offline /docs page."""

from __future__ import annotations

import json

from openapi_spec_validator import validate

AUTH_ROUTES = {
    ("/api/v1/auth/login", "post"),
    ("/api/v1/auth/refresh", "post"),
    ("/api/v1/auth/session", "get"),
    ("/api/v1/auth/whoami", "get"),
}


def test_openapi_document_is_valid_3_1_and_lists_auth_routes(api):
    response = api.get("/openapi.json")
    assert response.status_code == 200
    doc = json.loads(response.body)
    assert doc["openapi"] == "3.1.0"
    validate(doc)
    listed = {(path, method) for path, methods in doc["paths"].items() for method in methods}
    assert listed >= AUTH_ROUTES
    login = doc["paths"]["/api/v1/auth/login"]["post"]
    assert login["security"] == [{"clientSecret": []}]
    assert login["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/LoginRequest"
    }
    assert "subId" in doc["components"]["schemas"]["LoginRequest"]["properties"]
    assert doc["paths"]["/api/v1/auth/whoami"]["get"]["security"] == [
        {"appId": [], "appTimestamp": [], "appSignature": []}
    ]
    session = doc["paths"]["/api/v1/auth/session"]["get"]["responses"]
    # Any token kind is accepted there: 401 for the token, never 403 for its kind.
    assert set(session) >= {"200", "401"} and "403" not in session


def _details(api, tenant):
    from tests.support.scripts import dompet_sign

    path = "/api/v1/health/details"
    headers = dompet_sign.signed_headers(tenant.appId, tenant.appSecret, "GET", f"http://x{path}", b"")
    return api.get(path, headers=headers)


def test_public_health_calls_nothing(api, monkeypatch):
    """On AWS the public /health described every table (503: no grant); now it calls no AWS API and no node."""
    import botocore.client

    def no_calls(*args, **kwargs):
        raise AssertionError("/health made an AWS call")

    monkeypatch.setattr(botocore.client.BaseClient, "_make_api_call", no_calls)
    response = api.get("/health")
    assert response.status_code == 200
    assert response.json_body["data"] == {"service": "dompet", "version": "0.1.0", "stage": "test"}


def test_health_details_need_a_signature(api):
    assert api.get("/api/v1/health/details").status_code == 401


def test_health_details_report_the_apis_tables_and_networks(api, tenant, use_networks):
    from chalicelib.system import routes

    use_networks([])  # no chain in this test: the tables only
    routes.details.clear()
    response = _details(api, tenant)
    assert response.status_code == 200, response.json_body
    data = response.json_body["data"]
    assert data["service"] == "dompet" and data["stage"] == "test"
    names = {c["name"] for c in data["components"]}
    assert names >= {"table:tenancy", "table:users", "table:auth-state"}
    assert "table:cosigner-shares" not in names  # not the API's to read
    assert all(c["ok"] for c in data["components"])


def test_health_is_503_when_a_network_is_unreachable(api, tenant, use_networks):
    from chalicelib.system import routes

    routes.details.clear()
    use_networks([{"name": "down", "chainId": 31399, "rpcUrls": ["http://127.0.0.1:9"], "nativeSymbol": "ETH"}])
    response = _details(api, tenant)
    assert response.status_code == 503
    body = response.json_body
    assert body["data"]["code"] == "NOT_READY"
    down = [c for c in body["data"]["components"] if not c["ok"]]
    assert [c["name"] for c in down] == ["network:down"]


def test_every_response_schema_lists_its_fields(api):
    doc = json.loads(api.get("/openapi.json").body)
    schemas = doc["components"]["schemas"]
    for path, methods in doc["paths"].items():
        for method, operation in methods.items():
            success = operation["responses"]["200"].get("content", {}).get("application/json", {}).get("schema", {})
            ref = success.get("properties", {}).get("data", {}).get("$ref")
            if ref:
                model = schemas[ref.rsplit("/", 1)[-1]]
                assert model.get("properties"), f"{method} {path}: response model without fields"
            assert "500" in operation["responses"] or path in ("/openapi.json", "/docs", "/.well-known/jwks.json")
    token_pair = schemas["TokenPair"]["properties"]
    assert {"isWalletCreated", "accessToken", "walletToken", "refreshToken", "expiresAt"} <= set(token_pair)
    assert "/.well-known/jwks.json" in doc["paths"]


def test_the_document_lists_only_routes_the_app_serves(api):
    from chalice import Blueprint

    from chalicelib.platform.router import Call, Reply, route
    from chalicelib.system import routes as system_routes

    unregistered = Blueprint("never-registered")

    @route(unregistered, "/api/v1/not-served", "GET", summary="declared, never registered", tag="Test")
    def not_served(call: Call) -> Reply:
        return Reply()

    system_routes.documents.clear()  # build the document again, now that the declaration exists
    doc = json.loads(api.get("/openapi.json").body)
    assert "/api/v1/not-served" not in doc["paths"]
    assert "/api/v1/auth/login" in doc["paths"]
