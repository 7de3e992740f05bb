"""The developer console in Chromium, against the local stack `make dev` runs: an organization's first admin
accepts the operator's invite, signs in, creates an app and signs an API call with the secret the page showed once,
sets a webhook URL, sends a test event and sees its delivery arrive (signed) and replays it, sees a wallet's send
and a custody deposit made through the API, invites a viewer who cannot create an app; a POST without the CSRF
token is refused; sign-out ends the session. No request ever leaves the service's origin, and no page logs an
error (a Content-Security-Policy violation would).

Set DOMPET_SCREENSHOTS=docs/screenshots to refresh the screenshots docs/console.md shows.
"""

from __future__ import annotations

import base64
import json
import os
import re
import time
import urllib.parse
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from tests.browser.conftest import Browsing, chromium
from tests.support import stack_tokens
from tests.support.devstack import signed
from tests.support.operator import operator
from tests.support.servers import Receiver

pytestmark = pytest.mark.integration

PASSWORD = "a long console password 42"
WAIT_S = 90


def _screenshot(browsing: Browsing, name: str, tmp_path: Path) -> None:
    browsing.page.screenshot(path=str(tmp_path / name), full_page=True)
    target = os.environ.get("DOMPET_SCREENSHOTS")
    if target:
        browsing.page.screenshot(path=str(Path(target) / name), full_page=True)


def _wait_for(check: Callable[[], Any], what: str, timeout_s: float = WAIT_S) -> Any:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(1)
    pytest.fail(f"{what} did not happen within {timeout_s} s")


@pytest.fixture(scope="module")
def tenant(stack: dict[str, Any]) -> dict[str, Any]:
    """An organization of its own, made by the operator's command: its client secret, first app and the first
    admin's invite link."""
    made: dict[str, Any] = json.loads(operator(stack, "create-tenant", "--name", f"Console {uuid.uuid4().hex[:6]}"))
    return made


@pytest.fixture(scope="module")
def browser(stack: dict[str, Any]) -> Iterator[Callable[[], Browsing]]:
    """Chromium on the stack's loopback origin (plain http there: cookies without Secure, as on localhost only)."""
    with chromium(stack["info"]["apiUrl"]) as open_page:
        yield open_page


@pytest.fixture(scope="module")
def admin(
    stack: dict[str, Any],
    tenant: dict[str, Any],
    browser: Callable[[], Browsing],
    tmp_path_factory: pytest.TempPathFactory,
) -> Browsing:
    """The first admin, signed in through the operator's invite link (which asks for the email)."""
    browsing = browser()
    page = browsing.page
    link = tenant["adminInvite"]["url"]  # locally the stack's own origin: the link opens as it is printed
    path = urllib.parse.urlsplit(link).path
    assert path.startswith("/console/invite/") and link.startswith("http://127.0.0.1:")
    page.goto(browsing.origin + path)
    page.get_by_label("Email").fill("first.admin@example.com")
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_label("Password again").fill(PASSWORD)
    _screenshot(browsing, "console-invite.png", tmp_path_factory.mktemp("invite"))
    page.get_by_role("button", name="Set password and sign in").click()
    page.wait_for_url(re.compile(r"/console/apps$"))
    return browsing


def test_invite_sign_in_create_app_and_use_its_secret(stack, tenant, browser, admin, tmp_path):
    page = admin.page
    assert page.locator('[data-field="currentUser"]').inner_text() == "first.admin@example.com"
    # The invite link worked once.
    other = browser()
    other.page.goto(other.origin + urllib.parse.urlsplit(tenant["adminInvite"]["url"]).path)
    assert "INVITE_USED" in other.page.content()

    # Sign out and in again with the keyboard, as a person would.
    page.get_by_role("button", name="Sign out").click()
    page.wait_for_url(re.compile(r"/console/login$"))
    _screenshot(admin, "console-login.png", tmp_path)
    page.get_by_label("Email").focus()
    page.keyboard.type("first.admin@example.com")
    page.keyboard.press("Tab")
    page.keyboard.type(PASSWORD)
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/console/apps$"))

    page.get_by_label("Name").first.fill("Console shop")
    page.get_by_role("button", name="Create app").click()
    app_id = page.locator('code[data-field="appId"]').inner_text()
    secret = page.locator('code[data-field="appSecret"]').inner_text()
    _screenshot(admin, "console-apps.png", tmp_path)
    whoami = signed(stack["info"], "GET", "/api/v1/auth/whoami", app_id=app_id, secret=secret)
    assert whoami.status_code == 200, whoami.text
    assert whoami.json()["data"]["appId"] == app_id
    page.goto(admin.origin + "/console/apps")
    assert secret not in page.content()  # shown once
    assert admin.off_origin == [] and admin.console == []


def test_webhook_test_delivery_appears_and_is_replayed(stack, tenant, admin, tmp_path):
    receiver = Receiver()
    page = admin.page
    try:
        page.goto(f"{admin.origin}/console/apps/{tenant['appId']}/webhooks")
        page.get_by_label("Webhook URL").fill(receiver.url)
        page.get_by_role("button", name="Save URL").click()
        assert page.locator('[data-field="webhookUrl"]').inner_text() == receiver.url
        page.get_by_role("button", name="Send a test event").click()
        # htmx refreshes the deliveries table every 2 s: the delivery appears without a reload.
        page.locator('[data-field="deliveryStatus"]', has_text="delivered").first.wait_for(timeout=WAIT_S * 1000)
        _screenshot(admin, "console-webhooks.png", tmp_path)
        assert len(receiver.received) == 1
        public_key = page.locator('[data-field="publicKey"]').inner_text()
        first = receiver.received[0]
        _verify(public_key, first)

        page.get_by_role("link", name="Details").first.click()
        body = json.loads(page.locator('[data-field="body"]').inner_text())
        assert body["type"] == "webhook.test" and body["id"] == first["headers"]["X-Service-Event-Id"]
        page.get_by_role("button", name="Replay this delivery").click()
        page.wait_for_selector('[data-field="replayOf"]')
        _wait_for(lambda: len(receiver.received) == 2, "the replay's delivery")
        replayed = receiver.received[1]
        assert replayed["headers"]["X-Service-Event-Id"] == first["headers"]["X-Service-Event-Id"]
        assert replayed["body"] == first["body"]
        _verify(public_key, replayed)

        def replay_delivered() -> bool:
            page.reload()
            return page.locator('[data-field="deliveryStatus"]').inner_text() == "delivered"

        _wait_for(replay_delivered, "the replay shown delivered")
        _screenshot(admin, "console-delivery.png", tmp_path)
    finally:
        receiver.server.shutdown()
    assert admin.off_origin == [] and admin.console == []


def _verify(public_key: str, delivery: dict[str, Any]) -> None:
    headers = delivery["headers"]
    content = f"{headers['X-Service-Event-Id']}.{headers['X-Service-Timestamp']}.".encode() + delivery["body"]
    Ed25519PublicKey.from_public_bytes(base64.b64decode(public_key)).verify(
        base64.b64decode(headers["X-Service-Signature"]), content
    )


def test_a_wallet_send_and_a_custody_deposit_appear(stack, tenant, admin, tmp_path):
    from web3 import Web3

    info = stack["info"]
    api, client_secret = info["apiUrl"], tenant["clientSecret"]
    login = requests.post(
        f"{api}/api/v1/auth/login",
        headers={"x-client-secret": client_secret},
        json={"subId": "console-user"},
        timeout=30,
    )
    assert login.status_code == 200, login.text
    headers = {"x-client-secret": client_secret, "Authorization": f"Bearer {login.json()['data']['accessToken']}"}
    created = requests.post(f"{api}/api/v1/account/create", headers=headers, json={}, timeout=90)
    assert created.status_code == 200, created.text
    wallet = created.json()["data"]
    network = info["networks"][0]
    w3 = Web3(Web3.HTTPProvider(network["rpcUrl"]))
    w3.provider.make_request("anvil_setBalance", [wallet["address"], hex(10**18)])
    headers["Authorization"] = f"Bearer {wallet['walletToken']}"
    to = "0x000000000000000000000000000000000000dEaD"
    sent = requests.post(
        f"{api}/api/v1/wallet/send-coin",
        headers=headers,
        json={"network": network["name"], "to": to, "amount": "0.01"},
        timeout=90,
    )
    assert sent.status_code == 200, sent.text
    tx_hash = sent.json()["data"]["txReceipt"]["hash"]
    assert w3.eth.wait_for_transaction_receipt(tx_hash, timeout=60)["status"] == 1  # on chain

    page = admin.page

    def shown_mined() -> bool:
        page.goto(admin.origin + "/console/wallets")
        row = page.locator("tr", has=page.locator('[data-field="txHash"]', has_text=tx_hash))
        return row.count() == 1 and row.locator('[data-field="txStatus"]').inner_text() == "mined"

    _wait_for(shown_mined, "the send shown mined")
    assert wallet["address"] in page.content()
    _screenshot(admin, "console-wallets.png", tmp_path)

    app_id, app_secret = tenant["appId"], tenant["appSecret"]
    body = json.dumps({"subId": "console-custody"}).encode()
    account = signed(info, "POST", "/api/v1/custody/accounts", body, app_id=app_id, secret=app_secret)
    assert account.status_code == 200, account.text
    deposit_address = next(w for w in account.json()["data"]["wallets"] if w["network"] == network["name"])["address"]
    deposit_tx = stack_tokens.pay(w3, network["tokens"]["usdt"], deposit_address, 2_500_000, sender_index=6)
    w3.provider.make_request("anvil_mine", ["0x2"])

    def shown_deposit() -> bool:
        page.goto(admin.origin + "/console/custody")
        row = page.locator("tr", has=page.locator('[data-field="depositTxHash"]', has_text=deposit_tx))
        return row.count() >= 1 and row.first.locator('[data-field="depositStatus"]').inner_text() in (
            "confirmed",
            "credited",
        )

    _wait_for(shown_deposit, "the custody deposit shown")
    _screenshot(admin, "console-custody.png", tmp_path)
    for name in ("smart-accounts", "user-ops", "policies", "team", "audit", "account"):
        page.goto(f"{admin.origin}/console/{name}")
        assert page.locator("h1").count() == 1, name
        _screenshot(admin, f"console-{name}.png", tmp_path)
    assert admin.off_origin == [] and admin.console == []


def test_a_viewer_cannot_create_an_app_and_csrf_and_sign_out(stack, tenant, browser, admin, tmp_path):
    page = admin.page
    page.goto(admin.origin + "/console/team")
    page.get_by_label("Email").fill("viewer@example.com")
    page.get_by_label("Role", exact=True).select_option("viewer")
    page.get_by_role("button", name="Create invite link").click()
    link = page.locator('[data-field="inviteLink"]').inner_text()
    path = urllib.parse.urlsplit(link).path

    viewer = browser()
    viewer.page.goto(viewer.origin + path)
    viewer.page.get_by_label("Password", exact=True).fill(PASSWORD)
    viewer.page.get_by_label("Password again").fill(PASSWORD)
    viewer.page.get_by_role("button", name="Set password and sign in").click()
    viewer.page.wait_for_url(re.compile(r"/console/apps$"))
    assert viewer.page.get_by_role("button", name="Create app").count() == 0
    csrf = viewer.page.locator('input[name="csrf"]').first.get_attribute("value")
    refused = viewer.page.request.post(
        viewer.origin + "/console/apps", form={"csrf": csrf, "name": "Nope", "clientId": tenant["clientId"]}
    )
    assert refused.status == 403 and "ROLE_REQUIRED" in refused.text()

    # A POST without the CSRF token changes nothing, even from the admin's own signed-in browser.
    page.goto(admin.origin + "/console/apps")
    before = page.locator("tr[data-app-id]").count()
    no_token = page.request.post(
        admin.origin + "/console/apps", form={"name": "Forged", "clientId": tenant["clientId"]}
    )
    assert no_token.status == 403 and "CSRF_FAILED" in no_token.text()
    page.goto(admin.origin + "/console/apps")
    assert page.locator("tr[data-app-id]").count() == before

    page.goto(admin.origin + "/console/audit")
    actions = page.locator('[data-field="action"]').all_inner_texts()
    assert {"member.invited", "member.joined", "app.created", "webhook.url_set", "webhook.delivery_replayed"} <= set(
        actions
    )

    page.get_by_role("button", name="Sign out").click()
    page.wait_for_url(re.compile(r"/console/login$"))
    page.goto(admin.origin + "/console/apps")
    page.wait_for_url(re.compile(r"/console/login$"))
    assert admin.off_origin == [] and viewer.off_origin == [] and admin.console == [] and viewer.console == []
