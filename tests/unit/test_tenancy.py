"""Organizations, clients and apps: secrets are shown once and stored only hashed or encrypted."""

from __future__ import annotations

import json
import re

import pytest
from botocore.exceptions import ClientError

from chalicelib import operator as admin
from chalicelib.platform import aws, clock
from chalicelib.platform.settings import load_settings
from chalicelib.tenancy import service, store


def _dump() -> str:
    return json.dumps(aws.table("tenancy").scan()["Items"], default=lambda v: bytes(v).hex())


def test_admin_command_creates_a_tenant_and_prints_secrets_once(aws_env, capsys):
    assert admin.main(["create-tenant", "--name", "Acme"]) == 0
    issued = json.loads(capsys.readouterr().out)
    assert set(issued) == {"organizationId", "clientId", "clientSecret", "appId", "appSecret", "adminInvite"}
    invite = issued["adminInvite"]
    assert invite["role"] == "admin" and invite["email"] is None
    assert re.fullmatch(r"/console/invite/[A-Za-z0-9_-]{43}", invite["url"])  # DOMPET_CONSOLE_URL unset: the path
    assert service.client_for_secret(issued["clientSecret"]).clientId == issued["clientId"]
    found = service.app_with_secret(issued["appId"])
    assert found.secret == issued["appSecret"] and found.app.clientId == issued["clientId"]


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
    found = service.app_with_secret(issued["appId"])
    reads = []
    get_app = store.get_app_item
    monkeypatch.setattr(store, "get_app_item", lambda app_id: reads.append(app_id) or get_app(app_id))
    assert service.app_with_secret(issued["appId"]) == found
    assert reads == []  # no tenancy read while cached
    clock.travel(load_settings().app_secret_cache_s + 1)  # expired
    assert service.app_with_secret(issued["appId"]) == found
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


def test_admin_invites_a_console_member_once_and_logs_it(api, tenant, capsys, monkeypatch):
    from chalicelib.console import store as console_store
    from tests.support.console import PASSWORD, ConsoleClient

    monkeypatch.setenv("DOMPET_CONSOLE_URL", "https://console.example.com/")
    load_settings.cache_clear()
    try:
        assert (
            admin.main(["invite", "--org", tenant.organizationId, "--email", "Ops@Example.com", "--role", "viewer"])
            == 0
        )
    finally:
        monkeypatch.delenv("DOMPET_CONSOLE_URL")
        load_settings.cache_clear()
    made = json.loads(capsys.readouterr().out)
    assert made["email"] == "ops@example.com" and made["role"] == "viewer"
    assert made["url"].startswith("https://console.example.com/console/invite/")
    path = made["url"].removeprefix("https://console.example.com")
    ops = ConsoleClient(api)
    ops.get(path)
    assert ops.post(path, {"password": PASSWORD, "passwordConfirm": PASSWORD}).status_code == 303
    assert ConsoleClient(api).get(path).status_code == 410  # single use
    actions = [e["action"] for e in console_store.audit_list(tenant.organizationId).page(_first_page())[0]]
    assert actions == ["member.joined", "member.invited"]

    assert admin.main(["invite", "--org", tenant.organizationId, "--email", "not an email"]) == 1
    assert admin.main(["invite", "--org", "no-such-org", "--email", "a@example.com"]) == 1


def _first_page():
    from chalicelib.platform.pagination import PageQuery

    return PageQuery(page=1, limit=10)
