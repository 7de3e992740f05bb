"""Family W calls through the Chalice test client: login and session with a client secret."""

from __future__ import annotations

import json


def post(api, path, body, **headers):
    return api.post(path, body=json.dumps(body), headers={"Content-Type": "application/json", **headers})


def login(api, tenant, sub_id="user-1"):
    response = post(api, "/api/v1/auth/login", {"subId": sub_id}, **{"x-client-secret": tenant.clientSecret})
    assert response.status_code == 200, response.json_body
    return response.json_body


def session(api, token, client_secret):
    return api.get(
        "/api/v1/auth/session", headers={"Authorization": f"Bearer {token}", "x-client-secret": client_secret}
    )
