"""Vendor the browser assets the service serves (Scalar's standalone bundle for /docs; htmx, uPlot and the
console's own script and styles) from node_modules and the repository.

Each asset is copied from its pinned npm package (package-lock.json) into chalicelib/system/vendored/
(gitignored; `chalice package` ships chalicelib, so the Lambda package carries it), gzip-compressed (level 9,
no timestamp: the same input gives the same bytes) and named by the SHA-256 of its content, with manifest.json
mapping each logical name to its file (chalicelib/system/assets.py reads it). Nothing is fetched: a missing
package is an error that names `npm ci`.

    python -m devtools.vendor_assets            # (re)build what is stale; removes files no asset uses
    python -m devtools.vendor_assets --check    # non-zero exit when the vendored files are missing or stale

Run by `make deps` (so `make dev` and `make test` have them) and before packaging.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import re
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from chalicelib.system.assets import CONTENT_TYPES, MANIFEST, URL_NAME, VENDORED_DIR

ROOT = Path(__file__).resolve().parents[1]
NODE_MODULES = ROOT / "node_modules"
HASH_DIGITS = 16  # 64 bits of SHA-256 in the URL: unique across every version this service will ever ship
# A trailing source-map comment would point browsers' developer tools at a file that is not served.
SOURCE_MAP = re.compile(rb"\n//# sourceMappingURL=[^\n]*\s*\Z")


@dataclass(frozen=True)
class Source:
    logical: str  # the name the service asks for: "scalar.js"
    package: str  # npm package, pinned in package-lock.json; "" for a file of this repository
    path: str  # file inside the package (or the repository)


SOURCES = (
    Source("scalar.js", "@scalar/api-reference", "dist/browser/standalone.js"),
    Source("htmx.js", "htmx.org", "dist/htmx.min.js"),
    Source("uplot.js", "uplot", "dist/uPlot.iife.min.js"),
    Source("uplot.css", "uplot", "dist/uPlot.min.css"),
    Source("console.js", "", "chalicelib/console/static/console.js"),
    Source("console.css", "", "chalicelib/console/static/console.css"),
)


def package_version(package: str, node_modules: Path = NODE_MODULES) -> str:
    if not package:
        return "repository"
    try:
        return str(json.loads((node_modules / package / "package.json").read_text())["version"])
    except FileNotFoundError:
        raise SystemExit(f"{package} is not in {node_modules}: run `npm ci` (make deps)") from None


def content(source: Source, node_modules: Path = NODE_MODULES) -> bytes:
    path = node_modules / source.package / source.path if source.package else ROOT / source.path
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise SystemExit(f"{path} is missing: run `npm ci` (make deps)") from None
    return SOURCE_MAP.sub(b"\n", data)


def entry(source: Source, data: bytes, version: str) -> dict[str, str | int]:
    stem, ext = os.path.splitext(source.logical)
    digest = hashlib.sha256(data).hexdigest()
    url_name = f"{stem}.{digest[:HASH_DIGITS]}{ext}"
    assert URL_NAME.match(url_name), url_name  # what the service agrees to serve
    return {
        "urlName": url_name,
        "file": url_name + ".gz",
        "sha256": digest,
        "bytes": len(data),
        "contentType": CONTENT_TYPES[ext],
        "source": f"{source.package}@{version}/{source.path}" if source.package else source.path,
    }


def compress(data: bytes) -> bytes:
    return gzip.compress(data, compresslevel=9, mtime=0)


def _write_atomically(path: Path, data: bytes) -> None:
    with tempfile.NamedTemporaryFile(dir=path.parent, prefix=f".{path.name}.", delete=False) as tmp:
        tmp.write(data)
    os.chmod(tmp.name, 0o644)  # readable by the Lambda runtime's user, not only the builder
    os.replace(tmp.name, path)


def _current(out_dir: Path) -> dict[str, dict[str, str | int]]:
    try:
        assets: dict[str, dict[str, str | int]] = json.loads((out_dir / MANIFEST).read_text())["assets"]
        return assets
    except (OSError, ValueError, KeyError):
        return {}


def vendor(
    sources: tuple[Source, ...] = SOURCES, node_modules: Path = NODE_MODULES, out_dir: Path = VENDORED_DIR
) -> dict[str, dict[str, str | int]]:
    """Build what is stale, write the manifest, remove files no asset uses; returns the manifest's entries."""
    out_dir.mkdir(parents=True, exist_ok=True)
    current = _current(out_dir)
    entries: dict[str, dict[str, str | int]] = {}
    for source in sources:
        data = content(source, node_modules)
        new = entry(source, data, package_version(source.package, node_modules))
        target = out_dir / str(new["file"])
        if current.get(source.logical) != new or not target.exists():
            packed = compress(data)
            new["gzipBytes"] = len(packed)
            _write_atomically(target, packed)
        else:
            new["gzipBytes"] = current[source.logical]["gzipBytes"]
        entries[source.logical] = new
    _write_atomically(out_dir / MANIFEST, (json.dumps({"assets": entries}, indent=2) + "\n").encode())
    keep = {MANIFEST, *(str(e["file"]) for e in entries.values())}
    for path in out_dir.iterdir():
        if path.name not in keep:
            path.unlink()
    return entries


def stale(
    sources: tuple[Source, ...] = SOURCES, node_modules: Path = NODE_MODULES, out_dir: Path = VENDORED_DIR
) -> list[str]:
    """What `vendor` would rebuild: a logical name per missing or outdated asset."""
    current = _current(out_dir)
    out = []
    for source in sources:
        want = entry(source, content(source, node_modules), package_version(source.package, node_modules))
        have = {k: v for k, v in current.get(source.logical, {}).items() if k != "gzipBytes"}
        if have != want or not (out_dir / str(want["file"])).exists():
            out.append(source.logical)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the vendored assets are missing or stale")
    args = parser.parse_args(argv)
    if args.check:
        outdated = stale()
        for name in outdated:
            print(f"stale: {name} (run python -m devtools.vendor_assets)", file=sys.stderr)
        return 1 if outdated else 0
    for logical, e in vendor().items():
        print(f"{logical}: {VENDORED_DIR.relative_to(ROOT)}/{e['file']} ({e['bytes']} bytes, {e['gzipBytes']} gzipped)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
