"""Organizations, clients and apps: secrets are shown once and stored only hashed or encrypted."""

from __future__ import annotations

import json

import pytest
from botocore.exceptions import ClientError

from chalicelib.platform import aws, clock
from chalicelib.platform.settings import load_settings
from chalicelib.tenancy import admin, service, store


def _dump() -> str:
    return json.dumps(aws.table("tenancy").scan()["Items"], default=lambda v: bytes(v).hex())


def test_admin_command_creates_a_tenant_and_prints_secrets_once(aws_env, capsys):
    assert admin.main(["create-tenant", "--name", "Acme"]) == 0
    issued = json.loads(capsys.readouterr().out)
    assert set(issued) == {"organizationId", "clientId", "clientSecret", "appId", "appSecret"}
    assert service.client_for_secret(issued["clientSecret"]).clientId == issued["clientId"]
    app, secret = service.app_with_secret(issued["appId"])
    assert secret == issued["appSecret"] and app.clientId == issued["clientId"]


def test_admin_command_builds_a_tenant_step_by_step(aws_env, capsys):
    admin.main(["create-organization", "--name", "Org"])
    org = json.loads(capsys.readouterr().out)["organizationId"]
    admin.main(["create-client", "--organization-id", org, "--name", "Backend"])
    client = json.loads(capsys.readouterr().out)
    admin.main(["create-app", "--client-id", client["clientId"], "--name", "Shop"])
    app = json.loads(capsys.readouterr().out)
    assert app["organizationId"] == org and app["clientId"] == client["clientId"]


def test_admin_command_refuses_unknown_parents(aws_env, capsys):
    assert admin.main(["create-client", "--organization-id", "nope", "--name", "x"]) == 1
    assert "does not exist" in capsys.readouterr().err


def test_secrets_are_never_stored_in_plaintext(tenant):
    dump = _dump()
    assert tenant.clientSecret not in dump
    assert tenant.appSecret not in dump
    assert tenant.appSecret.encode().hex() not in dump


def test_app_secret_ciphertext_is_bound_to_its_app(tenant):
    other = service.create_tenant("Other")
    _, ciphertext = store.get_app(tenant.appId)
    with pytest.raises(ClientError):
        aws.client("kms").decrypt(
            CiphertextBlob=ciphertext,
            EncryptionContext={"appId": other.appId, "purpose": "app-request-signing"},
        )


def test_a_known_app_is_served_from_memory_until_its_cache_time_ends(aws_env, monkeypatch):
    issued = service.create_tenant("Cached").model_dump()
    app, secret = service.app_with_secret(issued["appId"])
    reads = []
    get_app = store.get_app
    monkeypatch.setattr(store, "get_app", lambda app_id: reads.append(app_id) or get_app(app_id))
    assert service.app_with_secret(issued["appId"]) == (app, secret)
    assert reads == []  # no tenancy read while cached
    clock.travel(load_settings().app_secret_cache_s + 1)  # expired
    assert service.app_with_secret(issued["appId"]) == (app, secret)
    assert reads == [issued["appId"]]


def test_unknown_app_ids_are_not_cached(aws_env):
    assert service.app_with_secret("00000000-0000-4000-8000-000000000000") is None
    assert "00000000-0000-4000-8000-000000000000" not in service._app_secret_cache


def test_a_client_found_by_its_secret_is_served_from_memory(aws_env, monkeypatch):
    issued = service.create_tenant("Cached client").model_dump()
    client = service.client_for_secret(issued["clientSecret"])
    assert client is not None and client.clientId == issued["clientId"]
    monkeypatch.setattr(store, "client_id_for_secret_hash", lambda h: (_ for _ in ()).throw(AssertionError("read")))
    assert service.client_for_secret(issued["clientSecret"]) == client  # no tenancy read
    monkeypatch.undo()
    assert service.client_for_secret("dcs_not-a-secret") is None
    assert len(service._client_cache) == 1  # unknown secrets are not cached
