"""DynamoDB storage of the tenancy table.

Items (pk / sk):
  ORG#<orgId>            / META                organization
  CLIENT#<clientId>      / META                client
  CLIENTSECRET#<sha256>  / META                -> clientId (lookup by presented secret)
  APP#<appId>            / META                app with its KMS-encrypted secret
  ORG#<orgId>            / CLIENT#<clientId>   membership, for listing
  CLIENT#<clientId>      / APP#<appId>         membership, for listing
"""

from __future__ import annotations

from typing import Any

from chalicelib.platform import aws, unit_of_work
from chalicelib.platform.unit_of_work import Plan
from chalicelib.tenancy.models import App, Client, Organization

META_SK = "META"


def _table() -> Any:
    return aws.table("tenancy")


def _get(pk: str) -> dict[str, Any] | None:
    item: dict[str, Any] | None = _table().get_item(Key={"pk": pk, "sk": META_SK}).get("Item")
    return item


def put_organization(org: Organization) -> None:
    aws.write(
        aws.put("organization", "tenancy", {"pk": f"ORG#{org.organizationId}", "sk": META_SK, **org.model_dump()})
    )


def put_client(client: Client, secret_hash: str) -> None:
    unit_of_work.commit(
        Plan(
            items=[
                aws.put("client", "tenancy", {"pk": f"CLIENT#{client.clientId}", "sk": META_SK, **client.model_dump()}),
                aws.put(
                    "secret-lookup",
                    "tenancy",
                    {"pk": f"CLIENTSECRET#{secret_hash}", "sk": META_SK, "clientId": client.clientId},
                ),
                aws.put(
                    "membership", "tenancy", {"pk": f"ORG#{client.organizationId}", "sk": f"CLIENT#{client.clientId}"}
                ),
            ]
        )
    )


def put_app(app: App, encrypted_secret: bytes) -> None:
    item = {"pk": f"APP#{app.appId}", "sk": META_SK, **app.model_dump(), "encryptedSecret": encrypted_secret}
    unit_of_work.commit(
        Plan(
            items=[
                aws.put("app", "tenancy", item),
                aws.put("membership", "tenancy", {"pk": f"CLIENT#{app.clientId}", "sk": f"APP#{app.appId}"}),
            ]
        )
    )


def get_organization(organization_id: str) -> Organization | None:
    item = _get(f"ORG#{organization_id}")
    return Organization.model_validate(_fields(item, Organization)) if item else None


def get_client(client_id: str) -> Client | None:
    item = _get(f"CLIENT#{client_id}")
    return Client.model_validate(_fields(item, Client)) if item else None


def client_id_for_secret_hash(secret_hash: str) -> str | None:
    item = _get(f"CLIENTSECRET#{secret_hash}")
    return str(item["clientId"]) if item else None


def get_app(app_id: str) -> tuple[App, bytes] | None:
    item = _get(f"APP#{app_id}")
    if not item:
        return None
    return App.model_validate(_fields(item, App)), bytes(item["encryptedSecret"])


def _fields(item: dict[str, Any], model: type[Organization | Client | App]) -> dict[str, Any]:
    return {k: item[k] for k in model.model_fields if k in item}
