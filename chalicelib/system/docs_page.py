"""A self-contained HTML page rendered from the OpenAPI document (no scripts, no CDN)."""

from __future__ import annotations

import json
from html import escape
from typing import Any

STYLE = """
body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1d2330}
h1{margin-bottom:.2rem} h2{border-bottom:1px solid #dde;padding-bottom:.2rem;margin-top:2.5rem}
.op{border:1px solid #dde;border-radius:6px;margin:1rem 0;padding:.6rem 1rem}
.m{display:inline-block;min-width:4rem;font-weight:700} .GET{color:#0a6} .POST{color:#06c} .PUT{color:#a60}
.DELETE{color:#c22} code,pre{font-family:ui-monospace,monospace;font-size:13px}
pre{background:#f6f7f9;padding:.6rem;overflow:auto;border-radius:4px} small{color:#667}
"""


def render(doc: dict[str, Any]) -> str:
    schemas = doc["components"]["schemas"]
    parts = [
        "<!doctype html><html lang=en><head><meta charset=utf-8>",
        f"<title>{escape(doc['info']['title'])} API</title><style>{STYLE}</style></head><body>",
        f"<h1>{escape(doc['info']['title'])} API <small>{escape(doc['info']['version'])}</small></h1>",
        f"<p>{escape(doc['info']['description'])}</p>",
        "<p>Machine-readable: <a href='/openapi.json'>/openapi.json</a> (OpenAPI 3.1).</p>",
    ]
    by_tag: dict[str, list[tuple[str, str, dict[str, Any]]]] = {}
    for path, methods in doc["paths"].items():
        for method, op in methods.items():
            by_tag.setdefault(op["tags"][0], []).append((path, method.upper(), op))
    for tag, ops in by_tag.items():
        parts.append(f"<h2>{escape(tag)}</h2>")
        parts.extend(_operation(path, method, op, schemas) for path, method, op in ops)
    parts.append("<h2>Security schemes</h2>")
    for name, scheme in doc["components"]["securitySchemes"].items():
        parts.append(f"<p><code>{escape(name)}</code>: {escape(scheme.get('description', ''))}</p>")
    parts.append("</body></html>")
    return "".join(parts)


def _operation(path: str, method: str, op: dict[str, Any], schemas: dict[str, Any]) -> str:
    security = " + ".join(" & ".join(req) for req in op.get("security", [])) or "none"
    html = [
        f"<div class=op><div><span class='m {method}'>{method}</span> <code>{escape(path)}</code></div>",
        f"<p><b>{escape(op.get('summary', ''))}</b><br>{escape(op.get('description', ''))}</p>",
        f"<p><small>Authentication: {escape(security)}</small></p>",
    ]
    for param in op.get("parameters", []):
        html.append(f"<p><small>{escape(param['in'])} parameter <code>{escape(param['name'])}</code></small></p>")
    body = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
    if body:
        html.append(f"<p>Request body</p><pre>{escape(_pretty(_resolve(body, schemas)))}</pre>")
    for status, response in op["responses"].items():
        schema = response.get("content", {}).get("application/json", {}).get("schema", {})
        html.append(f"<p>{escape(status)}: {escape(response['description'])}</p>")
        if status == "200":
            html.append(f"<pre>{escape(_pretty(_resolve(schema, schemas)))}</pre>")
    html.append("</div>")
    return "".join(html)


def _resolve(schema: Any, schemas: dict[str, Any], depth: int = 0) -> Any:
    """Inline $refs (a few levels deep) so a reader sees whole shapes."""
    if isinstance(schema, dict):
        ref = schema.get("$ref")
        if ref and depth < 4:
            return _resolve(schemas.get(ref.rsplit("/", 1)[-1], {}), schemas, depth + 1)
        return {k: _resolve(v, schemas, depth) for k, v in schema.items() if k != "title"}
    if isinstance(schema, list):
        return [_resolve(item, schemas, depth) for item in schema]
    return schema


def _pretty(schema: Any) -> str:
    return json.dumps(schema, indent=2)
