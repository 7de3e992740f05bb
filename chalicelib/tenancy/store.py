"""DynamoDB storage of the tenancy table.

Items (pk / sk):
  ORG#<orgId>            / META                organization
  CLIENT#<clientId>      / META                client, with the hash of its secret (and of the one a rotation
                                               replaced, with the time it stops being accepted)
  CLIENTSECRET#<sha256>  / META                -> clientId (lookup by presented secret)
  APP#<appId>            / META                app with its KMS-encrypted secret (and the one a rotation replaced)
  ORG#<orgId>            / CLIENT#<clientId>   membership, for listing
  CLIENT#<clientId>      / APP#<appId>         membership, for listing

Every write takes `also`: records appended to lists in the same transaction (the console's audit log).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chalicelib.platform import aws, unit_of_work
from chalicelib.platform.pagination import AppendOnlyList
from chalicelib.platform.unit_of_work import Plan
from chalicelib.tenancy.models import App, Client, Organization

META_SK = "META"
TABLE = "tenancy"
Appended = tuple[AppendOnlyList, dict[str, Any]]


def _table() -> Any:
    return aws.table(TABLE)


def _get(pk: str) -> dict[str, Any] | None:
    item: dict[str, Any] | None = _table().get_item(Key={"pk": pk, "sk": META_SK}, ConsistentRead=True).get("Item")
    return item


def _commit(items: list[aws.TxItem], also: Sequence[Appended]) -> None:
    unit_of_work.commit(Plan(items=items, lists=list(also)))


def put_organization(org: Organization) -> None:
    aws.write(aws.put("organization", TABLE, {"pk": f"ORG#{org.organizationId}", "sk": META_SK, **org.model_dump()}))


def put_client(client: Client, secret_hash: str, also: Sequence[Appended] = ()) -> None:
    item = {"pk": f"CLIENT#{client.clientId}", "sk": META_SK, **client.model_dump(), "secretHash": secret_hash}
    _commit(
        [
            aws.put("client", TABLE, item),
            aws.put("secret-lookup", TABLE, _secret_lookup(secret_hash, client.clientId)),
            aws.put("membership", TABLE, {"pk": f"ORG#{client.organizationId}", "sk": f"CLIENT#{client.clientId}"}),
        ],
        also,
    )


def _secret_lookup(secret_hash: str, client_id: str) -> dict[str, str]:
    return {"pk": f"CLIENTSECRET#{secret_hash}", "sk": META_SK, "clientId": client_id}


def put_app(app: App, encrypted_secret: bytes, also: Sequence[Appended] = ()) -> None:
    item = {"pk": f"APP#{app.appId}", "sk": META_SK, **app.model_dump(), "encryptedSecret": encrypted_secret}
    _commit(
        [
            aws.put("app", TABLE, item),
            aws.put("membership", TABLE, {"pk": f"CLIENT#{app.clientId}", "sk": f"APP#{app.appId}"}),
        ],
        also,
    )


def get_organization(organization_id: str) -> Organization | None:
    item = _get(f"ORG#{organization_id}")
    return Organization.model_validate(_fields(item, Organization)) if item else None


def get_client(client_id: str) -> Client | None:
    item = _get(f"CLIENT#{client_id}")
    return Client.model_validate(_fields(item, Client)) if item else None


def get_client_item(client_id: str) -> dict[str, Any] | None:
    """The client's record with its secret hashes (what a presented secret is checked against)."""
    return _get(f"CLIENT#{client_id}")


def client_of(item: dict[str, Any]) -> Client:
    return Client.model_validate(_fields(item, Client))


def client_id_for_secret_hash(secret_hash: str) -> str | None:
    item = _get(f"CLIENTSECRET#{secret_hash}")
    return str(item["clientId"]) if item else None


def get_app(app_id: str) -> tuple[App, bytes] | None:
    item = _get(f"APP#{app_id}")
    if not item:
        return None
    return App.model_validate(_fields(item, App)), bytes(item["encryptedSecret"])


def get_app_item(app_id: str) -> dict[str, Any] | None:
    """The app's record with its encrypted secrets."""
    return _get(f"APP#{app_id}")


def app_of(item: dict[str, Any]) -> App:
    return App.model_validate(_fields(item, App))


def _members(pk: str, prefix: str) -> list[str]:
    from boto3.dynamodb.conditions import Key

    ids: list[str] = []
    query: dict[str, Any] = {
        "KeyConditionExpression": Key("pk").eq(pk) & Key("sk").begins_with(prefix),
        "ConsistentRead": True,
    }
    while True:
        page = _table().query(**query)
        ids += [str(item["sk"])[len(prefix) :] for item in page["Items"]]
        if "LastEvaluatedKey" not in page:
            return ids
        query["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def clients_of(organization_id: str) -> list[Client]:
    """The organization's clients, oldest first."""
    keys = [{"pk": f"CLIENT#{i}", "sk": META_SK} for i in _members(f"ORG#{organization_id}", "CLIENT#")]
    found = [client_of(item) for item in aws.batch_get(TABLE, keys)] if keys else []
    return sorted(found, key=lambda c: c.createdAt)


def apps_of(client_ids: Sequence[str]) -> list[App]:
    """The apps of these clients, oldest first."""
    keys = [{"pk": f"APP#{a}", "sk": META_SK} for c in client_ids for a in _members(f"CLIENT#{c}", "APP#")]
    found = [app_of(item) for item in aws.batch_get(TABLE, keys)] if keys else []
    return sorted(found, key=lambda a: a.createdAt)


def rotate_app_secret(
    app_id: str, replaced: bytes, encrypted_secret: bytes, replaced_until: int, at: str, also: Sequence[Appended] = ()
) -> None:
    """The new secret, keeping `replaced` until `replaced_until`; aws.TransactionCancelledError when the secret
    changed meanwhile (a concurrent rotation)."""
    changes = aws.Changes(
        set={
            "encryptedSecret": encrypted_secret,
            "previousEncryptedSecret": replaced,
            "previousUntil": replaced_until,
            "secretRotatedAt": at,
        }
    )
    seen = aws.Condition("encryptedSecret = :seen", values={":seen": replaced})
    _commit([aws.update("app", TABLE, {"pk": f"APP#{app_id}", "sk": META_SK}, changes, seen)], also)


def rotate_client_secret(
    item: dict[str, Any], secret_hash: str, replaced_until: int, at: str, also: Sequence[Appended] = ()
) -> None:
    """The client's new secret hash and its lookup; the hash it replaces stays accepted until `replaced_until`
    and one replaced earlier is dropped. aws.TransactionCancelledError when the client's secret changed
    meanwhile."""
    client_id = str(item["clientId"])
    replaced = item.get("secretHash")
    changes = aws.Changes(
        set={
            "secretHash": secret_hash,
            "previousSecretHash": replaced if replaced is not None else "",  # "": made before hashes were kept
            "previousUntil": replaced_until,
            "secretRotatedAt": at,
        }
    )
    seen = (
        aws.Condition("secretHash = :seen", values={":seen": replaced})
        if replaced is not None
        else aws.Condition("attribute_not_exists(secretHash)")
    )
    items = [
        aws.update("client", TABLE, {"pk": f"CLIENT#{client_id}", "sk": META_SK}, changes, seen),
        aws.put("secret-lookup", TABLE, _secret_lookup(secret_hash, client_id)),
    ]
    older = item.get("previousSecretHash")
    if older:
        items.append(aws.delete("older-lookup", TABLE, {"pk": f"CLIENTSECRET#{older}", "sk": META_SK}))
    _commit(items, also)


def set_app_disabled(app_id: str, disabled_at: str | None, also: Sequence[Appended] = ()) -> None:
    """Disable the app (`disabled_at`) or enable it again (None)."""
    changes = aws.Changes(set={"disabledAt": disabled_at}) if disabled_at else aws.Changes(remove=("disabledAt",))
    _commit([aws.update("app", TABLE, {"pk": f"APP#{app_id}", "sk": META_SK}, changes)], also)


def _fields(item: dict[str, Any], model: type[Organization | Client | App]) -> dict[str, Any]:
    return {k: item[k] for k in model.model_fields if k in item}
