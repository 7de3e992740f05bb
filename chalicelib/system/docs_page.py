"""The /docs page: Scalar's API reference over /openapi.json, from the vendored bundle, offline.

Every URL the page uses is relative to the page, so it works under API Gateway's stage prefix (`/api/docs`) as
under `chalice local` (`/docs`): the document, the bundle, and the server "try it" calls go to (the page's own
base). Scalar is told to fetch nothing of its own: no default fonts, no proxy (its default sends "try it" calls to
proxy.scalar.com), no telemetry, no developer toolbar, agent or MCP features. The Content-Security-Policy holds the
page to its own origin whatever a future bundle tries: scripts only from the origin and this one inline script
(by hash), connections only to the origin.
"""

from __future__ import annotations

import base64
import hashlib
import json
from html import escape
from typing import Any

TITLE = "Dompet API reference"
ASSET_PATH = "docs/assets/"  # relative to the page's base: /docs/assets/... locally, /api/docs/assets/... on AWS

# Scalar's configuration (@scalar/api-reference 1.72, see docs/reference.md for each choice). `servers` and the
# document URL are set by the inline script from the page's own address.
CONFIGURATION: dict[str, Any] = {
    "withDefaultFonts": False,
    "telemetry": False,
    "proxyUrl": "",  # empty: no proxy (left undefined, Scalar proxies non-local calls through proxy.scalar.com)
    "showDeveloperTools": "never",
    "agent": {"disabled": True},
    "mcp": {"disabled": True},
    "persistAuth": False,  # credentials typed into the page stay in the page (not in localStorage)
    "documentDownloadType": "json",
    "hideClientButton": True,  # the stand-alone client adds nothing the reference's own "try it" lacks
    "defaultOpenAllTags": False,
    "showOperationId": True,
    "hideModels": False,
    "authentication": {"preferredSecurityScheme": [["clientSecret", "bearerToken"]]},
}

# `new URL('.', location.href)` is the page's directory: https://host/api/ for https://host/api/docs.
INLINE_SCRIPT = (
    "(function(){var base=new URL('.',window.location.href).href.replace(/\\/$/,'');"
    "var config=" + json.dumps(CONFIGURATION, separators=(",", ":")) + ";"
    "config.url=base+'/openapi.json';config.servers=[{url:base,description:'This service'}];"
    "Scalar.createApiReference('#app',config);})();"
)
INLINE_SCRIPT_HASH = "sha256-" + base64.b64encode(hashlib.sha256(INLINE_SCRIPT.encode()).digest()).decode()

# Scalar injects its styles and inline style attributes at run time ('unsafe-inline' for styles only); images
# and fonts may be data: or blob: URLs it makes itself; everything fetched comes from the origin.
CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'none'",
        f"script-src 'self' '{INLINE_SCRIPT_HASH}'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data: blob:",
        "font-src 'self' data:",
        "connect-src 'self'",
        "worker-src 'self' blob:",
        "base-uri 'none'",
        "form-action 'none'",
        "frame-ancestors 'none'",
    )
)


def render(bundle: str) -> str:
    """The page, loading the bundle published under URL name `bundle` (e.g. scalar.0123456789abcdef.js)."""
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        "<meta name=viewport content='width=device-width, initial-scale=1'>"
        f"<title>{escape(TITLE)}</title><link rel=icon href='data:,'></head><body>"
        "<noscript>This reference needs JavaScript. The OpenAPI document is at "
        "<a href='openapi.json'>openapi.json</a>.</noscript>"
        f"<div id=app></div><script src='{escape(ASSET_PATH + bundle, quote=True)}'></script>"
        f"<script>{INLINE_SCRIPT}</script></body></html>"
    )
