"""Ids in paths (platform/path_ids.py): every route with a path parameter declares it, a route that forgets one does
not start, and an id that cannot be one (2 KB, characters outside RFC 3986's unreserved set) is the route's own
not-found answer before anything is read with it: never the 500 of DynamoDB refusing an oversized key (moto refuses
it on reads too here, as DynamoDB does: devtools/moto_patches.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from chalice import Blueprint

from chalicelib.console.web import page
from chalicelib.platform import path_ids
from chalicelib.platform.openapi import build
from chalicelib.platform.path_ids import PathId
from chalicelib.platform.router import ROUTES, document_route, route
from tests.support.console import member
from tests.support.family_s import call

# Too long for any id, or with a character no id has; each as the test client sends it (it does not decode).
TOO_LONG = "a" * 2048
BAD_IDS = [TOO_LONG, "a" * (path_ids.MAX_LENGTH + 1), "caf\u00e9", "a:b", "a%2Fb", "a'b", "a\\b"]


def _code(response: Any) -> tuple[int, str]:
    body = response.json_body
    assert body["status"] == response.status_code, body
    return response.status_code, body["data"]["code"]


def test_every_route_with_a_path_parameter_declares_each_one() -> None:
    """The app's whole routing table (API routes, console pages, documents and assets): a new route with an id in
    its path and no declaration is caught here even if it bypassed the router."""
    from app import app

    app.load_all()
    with_params = 0
    for path, methods in app.routes.items():
        for method in methods:
            params = path_ids.params_of(path)
            if not params:
                continue
            with_params += 1
            declared = path_ids.DECLARED.get((method, path))
            assert declared is not None, f"{method} {path} declares no PathId"
            assert set(declared) == set(params), f"{method} {path}"
            assert all(isinstance(d, PathId) for d in declared.values())
    assert with_params >= 35
    for spec in ROUTES:
        assert set(spec.path_ids) == set(path_ids.params_of(spec.path)), f"{spec.method} {spec.path}"


def test_a_route_that_forgets_a_path_id_does_not_start() -> None:
    bp = Blueprint("forgetful")
    some = PathId("THING_NOT_FOUND", "No such thing")
    with pytest.raises(TypeError, match=r"\{id\}|\['id'\]"):
        route(bp, "/api/v1/things/{id}", "GET", summary="x", tag="x")
    with pytest.raises(TypeError):
        route(bp, "/api/v1/things/{id}", "GET", summary="x", tag="x", ids={"thingId": some})
    with pytest.raises(TypeError):
        page(bp, "/console/things/{id}")
    with pytest.raises(TypeError):
        document_route(bp, "/things/{name}")
    assert ("GET", "/api/v1/things/{id}") not in path_ids.DECLARED
    assert all(spec.path != "/api/v1/things/{id}" for spec in ROUTES)


def test_the_check_takes_ids_and_refuses_the_rest() -> None:
    declared = {"id": PathId("THING_NOT_FOUND", "No such thing")}
    for good in ["6e1c3a5b-7d9f-4b2e-8a4c-6f8e0a2c4b6d", "0x" + "ab" * 32, "polygon-pos", "a" * 128, "A.b_c~d-1"]:
        assert path_ids.check(declared, {"id": good}) == {"id": good}
    for bad in [*BAD_IDS, "", "a b", "a\nb", "a\n", "a#b", "a/b", "\u0430"]:
        with pytest.raises(Exception) as raised:
            path_ids.check(declared, {"id": bad})
        assert (raised.value.status, raised.value.code) == (404, "THING_NOT_FOUND")  # type: ignore[attr-defined]


def test_the_document_states_the_pattern_and_the_answer() -> None:
    document = build(version="test")
    operation = document["paths"]["/api/v1/userOp/{id}"]["get"]
    [parameter] = [p for p in operation["parameters"] if p["in"] == "path"]
    assert parameter["schema"] == {"type": "string", "pattern": path_ids.PATTERN, "maxLength": path_ids.MAX_LENGTH}
    assert "USER_OP_NOT_FOUND" in operation["responses"]["404"]["x-error-codes"]
    watcher = document["paths"]["/api/v1/custody/networks/{network}/watcher"]["get"]
    assert "UNKNOWN_NETWORK" in watcher["responses"]["400"]["x-error-codes"]


@pytest.mark.parametrize("bad", BAD_IDS)
@pytest.mark.parametrize(
    ("method", "template", "expected"),
    [
        ("GET", "/api/v1/userOp/{}", (404, "USER_OP_NOT_FOUND")),
        ("POST", "/api/v1/webhooks/deliveries/{}/retry", (404, "DELIVERY_NOT_FOUND")),
        ("GET", "/api/v1/smart-account/{}", (404, "OWNER_NOT_FOUND")),
        ("GET", "/api/v1/userOp/owner/{}", (404, "OWNER_NOT_FOUND")),
        ("GET", "/api/v1/smart-account/{}/gasTank/settings", (404, "OWNER_NOT_FOUND")),
        ("GET", "/api/v1/custody/withdrawals/{}", (404, "WITHDRAWAL_NOT_FOUND")),
        ("GET", "/api/v1/custody/accounts/{}/balances", (404, "ACCOUNT_NOT_FOUND")),
        ("GET", "/api/v1/custody/networks/{}/watcher", (400, "UNKNOWN_NETWORK")),
    ],
)
def test_family_s_ids_that_cannot_be_ids_are_the_routes_answer(api, tenant, method, template, expected, bad) -> None:
    answer = call(api, tenant, method, template.format(bad))
    assert _code(answer) == expected


def test_a_wallet_transaction_by_a_hash_that_cannot_be_one_is_404(api, tenant, aux_sets) -> None:
    aux_sets(1)
    client = {"x-client-secret": tenant.clientSecret, "Content-Type": "application/json"}
    login = api.post("/api/v1/auth/login", body=json.dumps({"subId": "paths"}), headers=client)
    access = login.json_body["data"]["accessToken"]
    created = api.post("/api/v1/account/create", body="{}", headers={**client, "Authorization": f"Bearer {access}"})
    assert created.status_code == 200, created.json_body
    headers = {
        "x-client-secret": tenant.clientSecret,
        "Authorization": f"Bearer {created.json_body['data']['walletToken']}",
    }
    for bad in BAD_IDS:
        answer = api.get(f"/api/v1/wallet/transactions/{bad}", headers=headers)
        assert _code(answer) == (404, "TRANSACTION_NOT_FOUND"), bad
    unknown = api.get("/api/v1/wallet/transactions/0x" + "ab" * 32, headers=headers)
    assert _code(unknown) == (404, "TRANSACTION_NOT_FOUND")  # a well-formed hash is looked up


def test_console_pages_answer_their_not_found_page(api, tenant) -> None:
    ana = member(api, tenant.organizationId, "paths@example.com")
    ana.get("/console/apps")
    token = ana.csrf()
    for bad in BAD_IDS:
        delivery = ana.get(f"/console/apps/{tenant.appId}/webhooks/deliveries/{bad}")
        assert delivery.status_code == 404 and "DELIVERY_NOT_FOUND" in delivery.body.decode(), bad
        app = ana.get(f"/console/apps/{bad}/webhooks")
        assert app.status_code == 404 and "APP_NOT_FOUND" in app.body.decode(), bad
        role = ana.post(f"/console/team/{bad}/role", {"role": "viewer"}, csrf=token)
        assert role.status_code == 404 and "MEMBER_NOT_FOUND" in role.body.decode(), bad
        removed = ana.post(f"/console/team/{bad}/remove", csrf=token)
        assert removed.status_code == 404 and "MEMBER_NOT_FOUND" in removed.body.decode(), bad
        op = ana.get(f"/console/user-ops/{bad}")
        assert op.status_code == 404 and "USER_OP_NOT_FOUND" in op.body.decode(), bad
        invite = api.get(f"/console/invite/{bad}")
        assert invite.status_code == 404 and "INVITE_NOT_FOUND" in invite.body.decode(), bad


def test_an_asset_name_that_cannot_be_one_is_404(api) -> None:
    for prefix in ("/docs/assets/", "/console/assets/"):
        answer = api.get(prefix + TOO_LONG)
        assert _code(answer) == (404, "NOT_FOUND")
