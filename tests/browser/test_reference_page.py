"""/docs in Chromium, from the local stack: Scalar's reference renders from the vendored bundle, the page asks
nothing of any other origin, every operation of /openapi.json is listed, and a Family W "try it" call answers 200.

Set DOMPET_SCREENSHOTS=docs/screenshots to refresh the screenshots in docs/ (docs/reference.md shows them).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.browser.conftest import Browsing

pytestmark = pytest.mark.integration

OPERATION_ID = re.compile(r"/tag/[^/]+/(GET|POST|PUT|PATCH|DELETE)(/.*)$")
RENDER_TIMEOUT_MS = 30_000


def _screenshot(browsing: Browsing, name: str, tmp_path: Path) -> None:
    browsing.page.screenshot(path=str(tmp_path / name))
    target = os.environ.get("DOMPET_SCREENSHOTS")
    if target:
        browsing.page.screenshot(path=str(Path(target) / name))


def _listed_operations(page: Any) -> set[str]:
    """Open every tag group of the sidebar, as a reader would, and read the operations it lists."""
    for _ in range(100):
        closed = page.locator('li[data-sidebar-id*="/tag/"] button[aria-expanded="false"]')
        if closed.count() == 0:
            break
        closed.first.click()
    ids = page.eval_on_selector_all("li[data-sidebar-id]", "els => els.map(e => e.getAttribute('data-sidebar-id'))")
    return {f"{m.group(1)} {m.group(2)}" for i in ids if (m := OPERATION_ID.search(i))}


def test_reference_lists_every_operation_offline(stack, browser_page: Browsing, tmp_path: Path):
    document = requests.get(f"{stack['info']['apiUrl']}/openapi.json", timeout=10).json()
    operations = {f"{method.upper()} {path}" for path, methods in document["paths"].items() for method in methods}
    page = browser_page.page

    page.goto(f"{browser_page.origin}/docs", wait_until="networkidle")
    page.wait_for_selector('li[data-sidebar-id*="/tag/"]', timeout=RENDER_TIMEOUT_MS)
    _screenshot(browser_page, "reference-overview.png", tmp_path)
    listed = _listed_operations(page)
    page.locator('li[data-sidebar-id$="/POST/api/v1/wallet/send-coin"] a').first.click()
    page.wait_for_timeout(500)  # the smooth scroll to the operation
    _screenshot(browser_page, "reference-operation.png", tmp_path)

    assert browser_page.off_origin == []
    assert operations - listed == set(), "operations of /openapi.json missing from the reference"
    paths = [re.sub(r"^https?://[^/]+", "", url) for _, url in browser_page.requests]
    bundle = [p for p in paths if p.startswith("/docs/assets/")]
    assert len(bundle) == 1 and re.fullmatch(r"/docs/assets/scalar\.[0-9a-f]{16}\.js", bundle[0]), paths
    assert "/openapi.json" in paths
    assert browser_page.console == []  # a Content-Security-Policy violation is logged as an error
    assert page.get_by_text("Ask AI").count() == 0  # agent features off


def test_try_it_family_w_call_answers_200(stack, browser_page: Browsing, tmp_path: Path):
    info = stack["info"]
    secret = info["demo"]["clientSecret"]
    login = requests.post(
        f"{info['apiUrl']}/api/v1/auth/login",
        json={"subId": "reference-reader"},
        headers={"x-client-secret": secret},
        timeout=10,
    )
    assert login.status_code == 200, login.text
    token = login.json()["data"]["accessToken"]
    page = browser_page.page
    operation = "tag/auth/GET/api/v1/auth/session"

    page.goto(f"{browser_page.origin}/docs#{operation}", wait_until="networkidle")
    section = f'[id$="{operation}"]'
    page.wait_for_selector(section, timeout=RENDER_TIMEOUT_MS)
    page.locator(f'{section} button:has-text("Test Request")').first.click()
    client = page.get_by_role("dialog")
    client.get_by_label("Value", exact=True).first.fill(secret)  # x-client-secret (the preferred scheme's first)
    client.get_by_label("Bearer Token").first.fill(token)
    with page.expect_response(lambda r: r.url.endswith("/api/v1/auth/session")) as sent:
        client.get_by_role("button", name=re.compile(r"^Send", re.I)).first.click()
    response = sent.value
    assert response.status == 200, response.text()
    assert response.request.headers["authorization"] == f"Bearer {token}"
    assert response.request.headers["x-client-secret"] == secret
    assert response.json()["data"]["subId"] == "reference-reader"
    client.get_by_text("200 OK").wait_for()
    page.wait_for_timeout(500)  # the response panel's transition
    _screenshot(browser_page, "reference-try-it.png", tmp_path)
    assert browser_page.off_origin == []
    assert browser_page.console == []
