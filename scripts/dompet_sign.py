#!/usr/bin/env python3
"""Sign (and optionally send) a Family S request to Dompet. Standard library only: copy it freely.

    X-SIGNATURE = hex(HMAC-SHA256(app secret, X-TIMESTAMP + "." + METHOD + "." + path_with_query + "." + body))

Examples:
    scripts/dompet_sign.py GET http://127.0.0.1:8000/api/v1/auth/whoami --send
    scripts/dompet_sign.py PUT https://api.example.com/api/v1/webhooks/settings \
        --body '{"url":"https://example.com/hook"}' --curl

Without --app-id/--app-secret the demo app of the local stack (.local/stack.json) is used.
The query is put in the service's canonical form (docs/authentication.md) before signing
and sending; the path is the service path without any API Gateway stage prefix.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import shlex
import sys
import urllib.error
import urllib.request
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote, unquote, urlsplit, urlunsplit


def canonical_query(query: str) -> str:
    """The query as the service rebuilds it: names in order of first appearance, each name's values
    together in order, RFC 3986 percent-encoding, `+` a literal plus (as API Gateway reads it)."""
    grouped: dict[str, list[str]] = {}
    for pair in filter(None, query.split("&")):
        name, _, value = pair.partition("=")
        grouped.setdefault(unquote(name), []).append(unquote(value))
    return "&".join(f"{quote(n, safe='-_.~')}={quote(v, safe='-_.~')}" for n, values in grouped.items() for v in values)


def canonical_url(url: str) -> str:
    """The URL to send: its query in canonical form, so that what is signed is what arrives."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(query=canonical_query(parts.query), fragment=""))


def signed_headers(
    app_id: str, app_secret: str, method: str, url: str, body: bytes, timestamp: str | None = None
) -> dict[str, str]:
    """Headers for a request to `url`; send it to canonical_url(url)."""
    parts = urlsplit(url)
    query = canonical_query(parts.query)
    path_with_query = parts.path + (f"?{query}" if query else "")
    timestamp = timestamp or datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    message = b".".join([timestamp.encode(), method.upper().encode(), path_with_query.encode(), body])
    signature = hmac.new(app_secret.encode(), message, hashlib.sha256).hexdigest()
    headers = {"X-APP-ID": app_id, "X-TIMESTAMP": timestamp, "X-SIGNATURE": signature}
    if body:
        headers["Content-Type"] = "application/json"
    return headers


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("method")
    parser.add_argument("url")
    parser.add_argument("--body", default="", help="raw JSON body, sent byte for byte as signed")
    parser.add_argument("--app-id")
    parser.add_argument("--app-secret")
    parser.add_argument("--stack", default=".local/stack.json", help="local stack file for the demo app")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--send", action="store_true", help="send the request and print the response")
    mode.add_argument("--curl", action="store_true", help="print a curl command")
    args = parser.parse_args()

    app_id, app_secret = args.app_id, args.app_secret
    if not (app_id and app_secret):
        demo = json.loads(Path(args.stack).read_text())["demo"]
        app_id, app_secret = demo["appId"], demo["appSecret"]
    body = args.body.encode()
    url = canonical_url(args.url)
    headers = signed_headers(app_id, app_secret, args.method, url, body)

    if args.curl:
        flags = " ".join(f"-H {shlex.quote(f'{k}: {v}')}" for k, v in headers.items())
        data = f" --data-raw {shlex.quote(args.body)}" if body else ""
        print(f"curl -sS -X {args.method.upper()} {flags}{data} {shlex.quote(url)}")
    elif args.send:
        request = urllib.request.Request(url, data=body or None, method=args.method.upper(), headers=headers)  # noqa: S310
        try:
            with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310 - the user's URL
                print(response.status, response.read().decode())
        except urllib.error.HTTPError as exc:
            print(exc.code, exc.read().decode())
            return 1
    else:
        print(json.dumps(headers, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
