#!/usr/bin/env python3
"""Sign (and optionally send) a Family S request to Dompet. Standard library only: copy it freely.

    X-SIGNATURE = hex(HMAC-SHA256(app secret, X-TIMESTAMP + "." + METHOD + "." + path_with_query + "." + body))

Examples:
    scripts/dompet_sign.py GET http://127.0.0.1:8000/api/v1/auth/whoami --send
    scripts/dompet_sign.py PUT https://api.example.com/api/v1/webhooks/settings \
        --body '{"url":"https://example.com/hook"}' --curl

Without --app-id/--app-secret the demo app of the local stack (.local/stack.json) is used.
The URL's query must be percent-encoded as RFC 3986 (what urllib.parse.quote does);
the path is the service path without any API Gateway stage prefix.
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
from urllib.parse import urlsplit


def signed_headers(
    app_id: str, app_secret: str, method: str, url: str, body: bytes, timestamp: str | None = None
) -> dict[str, str]:
    parts = urlsplit(url)
    path_with_query = parts.path + (f"?{parts.query}" if parts.query else "")
    timestamp = timestamp or datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
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
    headers = signed_headers(app_id, app_secret, args.method, args.url, body)

    if args.curl:
        flags = " ".join(f"-H {shlex.quote(f'{k}: {v}')}" for k, v in headers.items())
        data = f" --data-raw {shlex.quote(args.body)}" if body else ""
        print(f"curl -sS -X {args.method.upper()} {flags}{data} {shlex.quote(args.url)}")
    elif args.send:
        request = urllib.request.Request(args.url, data=body or None, method=args.method.upper(), headers=headers)  # noqa: S310
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
