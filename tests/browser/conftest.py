"""Browser tests: headless Debian Chromium (/usr/bin/chromium, installed by `make deps`) driven by Playwright, against
the local stack `make dev` runs (the session's `stack` fixture)."""

from __future__ import annotations

import contextlib
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
# A name that is not local to Scalar (it calls localhost, 127.0.0.1, *.test, *.localhost... directly and would
# send anything else through its proxy unless told not to), mapped to the stack by Chromium's resolver.
HOST = "dompet-docs.internal"
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@dataclass
class Browsing:
    """A page on the stack's origin; `requests` records every request the page made, `off_origin` those that
    were aborted because they went anywhere else, `console` the errors and warnings the page logged."""

    page: Any
    origin: str
    requests: list[tuple[str, str]] = field(default_factory=list)
    off_origin: list[str] = field(default_factory=list)
    console: list[str] = field(default_factory=list)


@contextlib.contextmanager
def chromium(origin: str, extra_flags: list[str] | None = None) -> Iterator[Any]:
    """Headless Chromium (Debian's); yields a factory of Browsing pages on `origin`, each in its own context
    (its own cookies), that let only requests to `origin` through."""
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: `make deps` installs Debian's chromium")
    from playwright.sync_api import Route, sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=[*FLAGS, *(extra_flags or [])]
        )

        def open_page() -> Browsing:
            context = browser.new_context(viewport={"width": 1400, "height": 1000})
            browsing = Browsing(page=None, origin=origin)

            def only_own_origin(route: Route) -> None:
                url = route.request.url
                browsing.requests.append((route.request.method, url))
                parts = urllib.parse.urlsplit(url)
                if f"{parts.scheme}://{parts.netloc}" == origin:
                    route.continue_()
                else:
                    browsing.off_origin.append(url)
                    route.abort()

            context.route("**/*", only_own_origin)
            page = context.new_page()
            page.on("console", lambda m: browsing.console.append(f"{m.type}: {m.text}") if m.type == "error" else None)
            page.on("pageerror", lambda e: browsing.console.append(f"pageerror: {e}"))
            browsing.page = page
            return browsing

        try:
            yield open_page
        finally:
            browser.close()


@pytest.fixture
def browser_page(stack: dict[str, Any], tmp_path: Path) -> Iterator[Browsing]:
    port = urllib.parse.urlsplit(stack["info"]["apiUrl"]).port
    origin = f"http://{HOST}:{port}"
    flags = [
        f"--host-resolver-rules=MAP {HOST} 127.0.0.1",
        # http on a non-local name is not a secure context (no WebCrypto, no clipboard); on AWS the page is https.
        f"--unsafely-treat-insecure-origin-as-secure={origin}",
    ]
    with chromium(origin, flags) as open_page:
        browsing = open_page()
        try:
            yield browsing
        finally:
            with contextlib.suppress(Exception):  # what the page showed, for a failing run
                browsing.page.screenshot(path=str(tmp_path / "last.png"))
