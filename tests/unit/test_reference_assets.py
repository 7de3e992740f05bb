"""/docs and its vendored bundle: devtools/vendor_assets.py builds gzip files named by content hash, and the
service serves them compressed, immutable and only under their hashed names (chalice.test.Client, as API
Gateway would: base64 bodies for the binary media types)."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import re
from pathlib import Path

import pytest

from chalicelib.platform import cache
from chalicelib.system import assets, docs_page
from devtools import vendor_assets

ROOT = Path(__file__).resolve().parents[2]
BUNDLE = b"window.Scalar={createApiReference:function(){}};\n//# sourceMappingURL=standalone.js.map\n"
SOURCE = vendor_assets.Source("scalar.js", "@scalar/api-reference", "dist/browser/standalone.js")


def _node_modules(tmp_path: Path, bundle: bytes = BUNDLE, version: str = "1.72.1") -> Path:
    package = tmp_path / "node_modules" / "@scalar" / "api-reference"
    (package / "dist" / "browser").mkdir(parents=True, exist_ok=True)
    (package / "package.json").write_text(json.dumps({"name": "@scalar/api-reference", "version": version}))
    (package / "dist" / "browser" / "standalone.js").write_bytes(bundle)
    return tmp_path / "node_modules"


@pytest.fixture
def vendored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A bundle vendored into tmp_path/vendored, which the service reads instead of chalicelib/system/vendored."""
    out = tmp_path / "vendored"
    vendor_assets.vendor((SOURCE,), _node_modules(tmp_path), out)
    monkeypatch.setattr(assets, "VENDORED_DIR", out)
    cache.reset_all()
    return out


def test_vendor_names_by_content_hash_and_gzips_deterministically(tmp_path: Path):
    out = tmp_path / "vendored"
    entries = vendor_assets.vendor((SOURCE,), _node_modules(tmp_path), out)
    served = BUNDLE.replace(b"//# sourceMappingURL=standalone.js.map\n", b"")  # no map is served
    digest = hashlib.sha256(served).hexdigest()
    entry = entries["scalar.js"]
    assert entry["urlName"] == f"scalar.{digest[:16]}.js" and entry["file"] == f"scalar.{digest[:16]}.js.gz"
    assert entry["sha256"] == digest and entry["source"] == "@scalar/api-reference@1.72.1/dist/browser/standalone.js"
    packed = (out / f"scalar.{digest[:16]}.js.gz").read_bytes()
    assert gzip.decompress(packed) == served and entry["gzipBytes"] == len(packed)
    assert packed == gzip.compress(served, compresslevel=9, mtime=0)  # no timestamp: reproducible
    assert json.loads((out / "manifest.json").read_text())["assets"] == entries
    assert {p.stat().st_mode & 0o777 for p in out.iterdir()} == {0o644}  # readable in the Lambda package
    assert vendor_assets.stale((SOURCE,), tmp_path / "node_modules", out) == []


def test_a_new_bundle_replaces_the_old_file_and_is_stale_until_vendored(tmp_path: Path):
    out = tmp_path / "vendored"
    first = vendor_assets.vendor((SOURCE,), _node_modules(tmp_path), out)["scalar.js"]
    node_modules = _node_modules(tmp_path, b"window.Scalar={v:2};\n", version="1.72.2")
    assert vendor_assets.stale((SOURCE,), node_modules, out) == ["scalar.js"]
    second = vendor_assets.vendor((SOURCE,), node_modules, out)["scalar.js"]
    assert second["urlName"] != first["urlName"]
    assert sorted(p.name for p in out.iterdir()) == sorted(["manifest.json", str(second["file"])])


def test_a_missing_package_names_npm_ci(tmp_path: Path):
    with pytest.raises(SystemExit, match="npm ci"):
        vendor_assets.vendor((SOURCE,), tmp_path / "node_modules", tmp_path / "vendored")


def _page(api) -> tuple[object, str]:
    response = api.get("/docs")
    return response, response.body.decode()


def test_docs_page_loads_the_hashed_bundle_relatively_and_is_short_cached(api, vendored: Path):
    response, page = _page(api)
    assert response.status_code == 200
    headers = response.headers
    assert headers["Content-Type"] == "text/html; charset=utf-8"
    assert headers["Cache-Control"] == "public, max-age=60"
    url_name = json.loads((vendored / "manifest.json").read_text())["assets"]["scalar.js"]["urlName"]
    # Relative URLs: under API Gateway's stage prefix (/api/docs) they resolve to /api/docs/assets/...
    assert f"<script src='docs/assets/{url_name}'></script>" in page
    assert "http://" not in page and "https://" not in page and "//cdn" not in page
    config = docs_page.CONFIGURATION
    assert config["withDefaultFonts"] is False and config["telemetry"] is False and config["proxyUrl"] == ""
    assert config["agent"] == {"disabled": True} and config["mcp"] == {"disabled": True}
    # The policy admits exactly the page's inline script, and nothing from another origin.
    inline = re.findall(r"<script>(.*?)</script>", page, re.S)
    assert len(inline) == 1
    digest = base64.b64encode(hashlib.sha256(inline[0].encode()).digest()).decode()
    policy = dict(part.split(" ", 1) for part in headers["Content-Security-Policy"].split("; "))
    assert policy["script-src"] == f"'self' 'sha256-{digest}'"
    assert policy["connect-src"] == "'self'" and policy["default-src"] == "'none'"


def test_bundle_is_served_gzipped_and_immutable_under_its_hash(api, vendored: Path):
    url_name = json.loads((vendored / "manifest.json").read_text())["assets"]["scalar.js"]["urlName"]
    response = api.get(f"/docs/assets/{url_name}", headers={"Accept": "*/*", "Accept-Encoding": "gzip"})
    assert response.status_code == 200
    assert response.headers["Content-Type"] == "text/javascript; charset=utf-8"
    assert response.headers["Content-Encoding"] == "gzip"
    assert response.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    body = gzip.decompress(response.body)  # bytes end to end: base64 in the Lambda answer, decoded by the client
    assert hashlib.sha256(body).hexdigest()[:16] == url_name.split(".")[1]
    assert body.startswith(b"window.Scalar=")


@pytest.mark.parametrize(
    "name",
    ["scalar.0000000000000000.js", "manifest.json", "scalar.js", "..%2Fmanifest.json", "SCALAR.0000000000000000.JS"],
)
def test_only_hashed_names_of_the_manifest_are_served(api, vendored: Path, name: str):
    response = api.get(f"/docs/assets/{name}", headers={"Accept": "*/*"})
    assert response.status_code == 404
    assert json.loads(response.body)["data"]["code"] == "NOT_FOUND"


def test_without_vendored_assets_the_page_says_so(api, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(assets, "VENDORED_DIR", tmp_path / "missing")
    cache.reset_all()
    response = api.get("/docs")
    assert response.status_code == 503
    assert json.loads(response.body)["data"]["code"] == "NOT_READY"
    assert api.get("/openapi.json").status_code == 200


def test_the_app_returns_javascript_as_bytes():
    from app import app

    assert set(assets.BINARY_MEDIA_TYPES) <= set(app.api.binary_types)


def test_scalar_is_pinned_exactly():
    declared = json.loads((ROOT / "package.json").read_text())["devDependencies"]["@scalar/api-reference"]
    locked = json.loads((ROOT / "package-lock.json").read_text())["packages"]["node_modules/@scalar/api-reference"]
    assert re.fullmatch(r"\d+\.\d+\.\d+", declared) and locked["version"] == declared
    assert locked["integrity"].startswith("sha512-")
