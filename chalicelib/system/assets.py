"""Vendored browser assets (the Scalar bundle of /docs; htmx, uPlot and the console's own script and styles):
gzip-compressed files named by their content hash.

`python -m devtools.vendor_assets` builds them from node_modules into `vendored/` next to this module (gitignored;
`chalice package` ships chalicelib whole, so the Lambda package carries them) and writes `manifest.json`, which
maps each asset's logical name to its hashed URL name. Nothing here reads an asset at import time: the manifest is
read on the first request that needs it, an asset's bytes on each request for it (a browser asks once: the URL
changes with the content, so the answer may be cached for a year).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from chalice import Response

from chalicelib.platform.cache import TtlCache
from chalicelib.platform.errors import NOT_FOUND, ApiError

VENDORED_DIR = Path(__file__).resolve().with_name("vendored")
MANIFEST = "manifest.json"
NOT_READY = "NOT_READY"
CONTENT_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}
# Chalice base64-encodes a body for API Gateway to decode (and accepts bytes) only for these media types
# (app.api.binary_types, which `chalice package` writes into the API as its binary media types).
BINARY_MEDIA_TYPES = ("text/javascript", "text/css")
IMMUTABLE = "public, max-age=31536000, immutable"
# What a URL name looks like: logical stem, 16 hex digits of SHA-256, extension (nothing else is ever served).
URL_NAME = re.compile(r"^[a-z0-9-]+\.[0-9a-f]{16}\.[a-z]+$")


@dataclass(frozen=True)
class Asset:
    """One vendored asset: `url_name` is what the page links (e.g. scalar.0123456789abcdef.js), `file` the gzip
    file in VENDORED_DIR."""

    logical: str
    url_name: str
    file: str
    sha256: str
    content_type: str


class AssetsNotBuiltError(Exception):
    """The manifest is missing or unreadable: devtools/vendor_assets.py has not run for this checkout or package."""


_manifest: TtlCache[str, dict[str, Asset]] = TtlCache("vendored-assets", None, max_entries=1)


def manifest() -> dict[str, Asset]:
    """Logical name → asset, read once per warm function (AssetsNotBuiltError when the assets are not there)."""
    return _manifest.get_or_put("manifest", _read_manifest) or _read_manifest()


def url_name(logical: str) -> str:
    """The hashed name the page links for a logical asset name (e.g. 'scalar.js')."""
    try:
        return manifest()[logical].url_name
    except KeyError:
        raise AssetsNotBuiltError(f"{logical} is not in {VENDORED_DIR / MANIFEST}") from None


def gzipped(name: str) -> tuple[Asset, bytes] | None:
    """The asset served under URL name `name` and its gzip bytes; None for any other name."""
    if not URL_NAME.match(name):
        return None
    asset = next((a for a in manifest().values() if a.url_name == name), None)
    if asset is None:
        return None
    return asset, (VENDORED_DIR / asset.file).read_bytes()


def _read_manifest() -> dict[str, Asset]:
    path = VENDORED_DIR / MANIFEST
    try:
        entries = json.loads(path.read_text())["assets"]
        return {
            logical: Asset(
                logical=logical,
                url_name=entry["urlName"],
                file=entry["file"],
                sha256=entry["sha256"],
                content_type=entry["contentType"],
            )
            for logical, entry in entries.items()
        }
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise AssetsNotBuiltError(f"{path}: {type(exc).__name__} (run python -m devtools.vendor_assets)") from exc


def response(name: str) -> Response:
    """The asset served under URL name `name`, gzip-encoded and cacheable for a year (ApiError 404 for any other
    name, 503 when the assets are not built)."""
    try:
        found = gzipped(name)
    except AssetsNotBuiltError as exc:
        raise ApiError(503, NOT_READY, "The service's browser assets are not built") from exc
    if found is None:
        raise ApiError(404, NOT_FOUND, "No such asset")
    asset, body = found
    headers: dict[str, str | list[str]] = {
        "Content-Type": asset.content_type,
        "Content-Encoding": "gzip",
        "Cache-Control": IMMUTABLE,
        "X-Content-Type-Options": "nosniff",
    }
    return Response(body=body, headers=headers)
