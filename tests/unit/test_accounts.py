"""Account routes: create, recover (JSON and multipart) and import, through the API with the real MPC core.

AWS is moto in process; the cosigner and user party run as in-process parties (same JSON
payloads as Lambda Invoke) exchanging messages through the DynamoDB mailbox.
"""

from __future__ import annotations

import json
import time
import uuid
from urllib.parse import parse_qs, urlparse

import jwt
import pytest
import requests
from eth_utils import is_checksum_address

from chalicelib.auth import users
from chalicelib.mpc import aux_pool
from chalicelib.platform import aws, clock
from chalicelib.tenancy import service as tenancy

KEY_0X11 = "0x" + "11" * 32
KEY_0X11_ADDRESS = "0x19E7E376E7C213B7E7e7e46cc70A5dD086DAff2A"
CREATE = "/api/v1/account/create"
RECOVER = "/api/v1/account/recover"
IMPORT = "/api/v1/account/import"


def post(api, path, body, token, client_secret, content_type="application/json"):
    raw = body if isinstance(body, (str, bytes)) else json.dumps(body)
    return api.post(
        path,
        body=raw,
        headers={"Content-Type": content_type, "Authorization": f"Bearer {token}", "x-client-secret": client_secret},
    )


def login(api, client_secret, sub_id):
    response = api.post(
        "/api/v1/auth/login",
        body=json.dumps({"subId": sub_id}),
        headers={"Content-Type": "application/json", "x-client-secret": client_secret},
    )
    assert response.status_code == 200, response.json_body
    return response.json_body["data"]


def create(api, tenant, sub_id="alice", body=None):
    token = login(api, tenant.clientSecret, sub_id)["accessToken"]
    return token, post(api, CREATE, body or {}, token, tenant.clientSecret)


def code(response):
    return response.json_body["data"]["code"]


def test_create_then_second_create_then_login(api, tenant, aux_sets):
    aux_sets(1)
    token, response = create(api, tenant)

    assert response.status_code == 200, response.json_body
    body = response.json_body
    assert body["status"] == 200 and body["message"] == "create wallet successfully"
    data = body["data"]
    assert set(data) == {"walletToken", "refreshToken", "secret0", "secret0Link", "address"}
    assert is_checksum_address(data["address"])
    claims = jwt.decode(data["walletToken"], options={"verify_signature": False})
    assert claims["kind"] == "wallet"

    # The link serves exactly secret0 as `<address>.service` and expires 300 s after creation.
    link = urlparse(data["secret0Link"])
    assert parse_qs(link.query)["X-Amz-Expires"] == ["300"]
    download = requests.get(data["secret0Link"], timeout=10)
    assert download.status_code == 200
    assert download.content == data["secret0"].encode()
    assert link.path.endswith(f"/{data['address']}.service")
    assert f'filename="{data["address"]}.service"' in download.headers["Content-Disposition"]

    again = post(api, CREATE, {}, token, tenant.clientSecret)
    assert again.status_code == 409 and code(again) == "WALLET_EXISTS"
    with_wallet_token = post(api, CREATE, {}, data["walletToken"], tenant.clientSecret)
    assert with_wallet_token.status_code == 409 and code(with_wallet_token) == "WALLET_EXISTS"

    relogin = login(api, tenant.clientSecret, "alice")
    assert relogin["isWalletCreated"] is True and "walletToken" in relogin
    session = api.get(
        "/api/v1/auth/session",
        headers={"Authorization": f"Bearer {relogin['walletToken']}", "x-client-secret": tenant.clientSecret},
    )
    assert session.json_body["data"]["address"] == data["address"]


def test_recover_moves_the_wallet_to_the_presenting_user(api, tenant, aux_sets):
    aux_sets(1)
    _, created = create(api, tenant, "alice")
    data = created.json_body["data"]
    alice_wallet_token = data["walletToken"]

    bob = login(api, tenant.clientSecret, "bob")["accessToken"]
    recovered = post(api, RECOVER, {"secret0": data["secret0"]}, bob, tenant.clientSecret)
    assert recovered.status_code == 200, recovered.json_body
    assert recovered.json_body["message"] == "recover wallet successfully"
    got = recovered.json_body["data"]
    assert set(got) == {"walletToken", "refreshToken", "secret0", "secret0Link", "address"}
    assert got["address"] == data["address"] and got["secret0"] == data["secret0"]
    assert requests.get(got["secret0Link"], timeout=10).content == data["secret0"].encode()

    assert users.get(tenant.clientId, "bob").walletAddress == data["address"]
    assert users.get(tenant.clientId, "alice").walletAddress is None
    # Alice's tokens stop working; her next login is that of a user without a wallet.
    revoked = api.post(
        "/api/v1/wallet/balance-coin",
        body=json.dumps({"network": "nowhere"}),
        headers={
            "Content-Type": "application/json",
            "Authorization": f"Bearer {alice_wallet_token}",
            "x-client-secret": tenant.clientSecret,
        },
    )
    assert revoked.status_code == 401 and code(revoked) == "TOKEN_REVOKED"
    clock.travel(1.1)  # tokens issued in the revoking second are revoked too
    assert login(api, tenant.clientSecret, "alice")["isWalletCreated"] is False

    # Recovering again as the holder is idempotent; as a user who has another wallet it is a conflict.
    again = post(api, RECOVER, {"secret0": data["secret0"]}, got["walletToken"], tenant.clientSecret)
    assert again.status_code == 200 and again.json_body["data"]["address"] == data["address"]
    aux_sets(1)
    carol_token, carol = create(api, tenant, "carol")
    assert carol.status_code == 200
    taken = post(api, RECOVER, {"secret0": data["secret0"]}, carol_token, tenant.clientSecret)
    assert taken.status_code == 409 and code(taken) == "WALLET_EXISTS"
    assert users.get(tenant.clientId, "bob").walletAddress == data["address"]


def test_recover_with_the_file_as_multipart(api, tenant, aux_sets):
    aux_sets(1)
    _, created = create(api, tenant, "alice")
    data = created.json_body["data"]
    file_content = requests.get(data["secret0Link"], timeout=10).content + b"\n"  # saved by an editor
    boundary = uuid.uuid4().hex
    body = (
        (
            f"--{boundary}\r\n"
            f'Content-Disposition: form-data; name="file"; filename="{data["address"]}.service"\r\n'
            "Content-Type: application/octet-stream\r\n\r\n"
        ).encode()
        + file_content
        + f"\r\n--{boundary}--\r\n".encode()
    )
    carol = login(api, tenant.clientSecret, "carol")["accessToken"]
    response = post(api, RECOVER, body, carol, tenant.clientSecret, f"multipart/form-data; boundary={boundary}")
    assert response.status_code == 200, response.json_body
    assert response.json_body["data"]["address"] == data["address"]


def test_garbled_or_foreign_secret0_is_refused_with_a_code(api, tenant, aux_sets):
    aux_sets(1)
    _, created = create(api, tenant, "alice")
    secret0 = created.json_body["data"]["secret0"]
    bob = login(api, tenant.clientSecret, "bob")["accessToken"]

    def recover(value):
        return post(api, RECOVER, {"secret0": value}, bob, tenant.clientSecret)

    flipped = secret0[:-5] + ("A" if secret0[-5] != "A" else "B") + secret0[-4:]
    other_wallet = secret0.replace(secret0.split(".")[2], "0" * 32)
    for value, status, expected in [
        ("garbage", 400, "MALFORMED_SECRET0"),
        ("", 400, "MISSING_SECRET0"),
        (secret0[:100], 400, "MALFORMED_SECRET0"),
        ("dompet-s0.1." + "x" * 32 + ".a.b.c", 400, "MALFORMED_SECRET0"),
        (flipped, 422, "UNKNOWN_SECRET0"),
        (other_wallet, 422, "UNKNOWN_SECRET0"),
    ]:
        response = recover(value)
        assert (response.status_code, code(response)) == (status, expected), value[:40]
    missing = post(api, RECOVER, {}, bob, tenant.clientSecret)
    assert missing.status_code == 400 and code(missing) == "MISSING_SECRET0"

    # A wallet of another client is unknown to this one.
    other = tenancy.create_tenant("Other")
    mallory = login(api, other.clientSecret, "mallory")["accessToken"]
    foreign = post(api, RECOVER, {"secret0": secret0}, mallory, other.clientSecret)
    assert foreign.status_code == 422 and code(foreign) == "UNKNOWN_SECRET0"
    assert users.get(tenant.clientId, "alice").walletAddress == created.json_body["data"]["address"]
    assert users.get(tenant.clientId, "bob").walletAddress is None


def test_import_of_a_known_key_yields_its_address(api, tenant, aux_sets):
    aux_sets(2)
    token = login(api, tenant.clientSecret, "importer")["accessToken"]
    response = post(api, IMPORT, {"privateKey": KEY_0X11}, token, tenant.clientSecret)
    assert response.status_code == 200, response.json_body
    assert response.json_body["message"] == "import wallet successfully"
    data = response.json_body["data"]
    assert data["address"] == KEY_0X11_ADDRESS
    assert set(data) == {"walletToken", "refreshToken", "secret0", "secret0Link", "address"}

    # The same key again (another user) is refused; so is a second wallet for the importer.
    other = login(api, tenant.clientSecret, "other")["accessToken"]
    again = post(api, IMPORT, {"privateKey": KEY_0X11[2:]}, other, tenant.clientSecret)
    assert again.status_code == 409 and code(again) == "KEY_ALREADY_IMPORTED"
    second = post(api, IMPORT, {"privateKey": "0x" + "22" * 32}, token, tenant.clientSecret)
    assert second.status_code == 409 and code(second) == "WALLET_EXISTS"
    assert aux_pool.ready_count() == 1, "refused imports must not use up key material"


def test_a_key_imported_concurrently_is_refused_by_the_binding_transaction(api, tenant, aux_sets, monkeypatch):
    aux_sets(2)
    first = login(api, tenant.clientSecret, "first")["accessToken"]
    assert post(api, IMPORT, {"privateKey": KEY_0X11}, first, tenant.clientSecret).status_code == 200
    # The second import passes the early check, as if both ran at once; the transaction still refuses it.
    from chalicelib.wallets import store

    monkeypatch.setattr(store, "address_taken", lambda address: False)
    second = login(api, tenant.clientSecret, "second")["accessToken"]
    response = post(api, IMPORT, {"privateKey": KEY_0X11}, second, tenant.clientSecret)
    assert response.status_code == 409 and code(response) == "KEY_ALREADY_IMPORTED"
    assert users.get(tenant.clientId, "second").walletId is None
    assert aux_pool.ready_count() == 0, "a set the parties have seen is never handed out again"


def test_a_failed_run_leaves_no_wallet_and_the_user_can_retry(api, tenant, aux_sets):
    first, spare = aux_sets(2)
    # The cosigner cannot open its aux part, so it fails after key generation.
    aws.table("aux-pool").update_item(Key={"pk": "POOL", "sk": f"AUX#{first}"}, UpdateExpression="REMOVE part1")
    aws.table("aux-pool").update_item(  # make sure this set is the one claimed first
        Key={"pk": "POOL", "sk": f"AUX#{spare}"},
        UpdateExpression="SET #s = :c, claimedBy = :w, claimedAt = :t",
        ExpressionAttributeNames={"#s": "state"},
        ExpressionAttributeValues={":c": "claimed", ":w": "x", ":t": 2**31},
    )
    token, response = create(api, tenant)
    assert response.status_code == 503 and code(response) == "SIGNER_UNAVAILABLE"
    item = aws.table("users").get_item(Key=users.key(tenant.clientId, "alice"))["Item"]
    assert "walletId" not in item and "walletPending" not in item
    assert "Item" not in aws.table("aux-pool").get_item(Key={"pk": "POOL", "sk": f"AUX#{first}"})
    assert aws.table("wallets").scan()["Items"] == []

    aux_sets(1)  # the spare stays claimed by "x" for good: the retry takes a fresh set
    retry = post(api, CREATE, {}, token, tenant.clientSecret)
    assert retry.status_code == 200, retry.json_body


def test_a_create_while_another_runs_is_409(api, tenant, aux_sets):
    from chalicelib.wallets import store

    aux_sets(1)
    token = login(api, tenant.clientSecret, "alice")["accessToken"]
    store.reserve_user(users.get(tenant.clientId, "alice"), "f" * 32)  # another request is creating
    response = post(api, CREATE, {}, token, tenant.clientSecret)
    assert response.status_code == 409 and code(response) == "WALLET_CREATION_IN_PROGRESS"
    assert aux_pool.ready_count() == 1


@pytest.mark.parametrize(
    "key", ["0x" + "00" * 32, "0x" + "ff" * 32, "0x1234", "zz" * 32, "0x" + "11" * 33, "0x" + "1" * 63]
)
def test_bad_private_keys_are_refused(api, tenant, aux_sets, key):
    aux_sets(1)
    token = login(api, tenant.clientSecret, "importer")["accessToken"]
    response = post(api, IMPORT, {"privateKey": key}, token, tenant.clientSecret)
    assert response.status_code == 400
    assert code(response) in {"INVALID_PRIVATE_KEY", "VALIDATION_ERROR"}
    assert key not in json.dumps(response.json_body)
    assert aux_pool.ready_count() == 1 and users.get(tenant.clientId, "importer").walletId is None


def test_empty_pool_is_503_and_changes_nothing(api, tenant):
    _, response = create(api, tenant)
    assert response.status_code == 503 and code(response) == "WALLET_POOL_EMPTY"
    user = users.get(tenant.clientId, "alice")
    assert user.walletId is None
    item = aws.table("users").get_item(Key=users.key(tenant.clientId, "alice"))["Item"]
    assert "walletPending" not in item, "a failed creation must not block the next one"


def test_expire_date(api, tenant, aux_sets):
    aux_sets(1)
    token = login(api, tenant.clientSecret, "alice")["accessToken"]
    for bad in ["tomorrow", "2020-01-01", "2999-01-01", "2026-13-01", "2030-01-01T00:00:00"]:
        response = post(api, CREATE, {"expireDate": bad}, token, tenant.clientSecret)
        assert response.status_code == 400 and code(response) == "INVALID_EXPIRE_DATE", bad
    assert aux_pool.ready_count() == 1

    when = int(time.time()) + 7 * 86_400
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(when))
    response = post(api, CREATE, {"expireDate": stamp}, token, tenant.clientSecret)
    assert response.status_code == 200, response.json_body
    claims = jwt.decode(response.json_body["data"]["walletToken"], options={"verify_signature": False})
    assert claims["exp"] == when
