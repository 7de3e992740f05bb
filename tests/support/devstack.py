"""Calling the local stack (`make dev`, started by the `stack` fixture of tests/integration/conftest.py) as an
integrator would: HMAC-signed HTTP requests with the stack's demo app (or another app's credentials)."""

from __future__ import annotations

import requests

from tests.support.scripts import dompet_sign


def signed(info, method, path, body=b"", timestamp=None, app_id=None, secret=None):
    url = info["apiUrl"] + path
    headers = dompet_sign.signed_headers(
        app_id or info["demo"]["appId"], secret or info["demo"]["appSecret"], method, url, body, timestamp=timestamp
    )
    if body:
        headers["Content-Type"] = "application/json"
    return requests.request(method, url, headers=headers, data=body or None, timeout=10)


def evm_networks(info: dict) -> list[dict]:
    """The EVM entries of stack.json's `networks` (each entry has its `kind`: evm, bitcoin)."""
    return [n for n in info["networks"] if n["kind"] == "evm"]


def bitcoin_network(info: dict) -> dict:
    return next(n for n in info["networks"] if n["kind"] == "bitcoin")


class WebhookReceiver:
    """A local HTTP endpoint that keeps every webhook POSTed to it (headers, raw body), and checks their signatures
    with the app's public key (`GET /api/v1/webhooks/public-key`)."""

    def __init__(self) -> None:
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        received: list[tuple[dict[str, str], bytes]] = []

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                received.append((dict(self.headers), self.rfile.read(int(self.headers["Content-Length"]))))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.received = received
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/hook"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def __enter__(self) -> WebhookReceiver:
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()

    def verified(self, info) -> list[dict]:
        """The events received so far, each checked against its Ed25519 signature (AssertionError otherwise)."""
        import base64
        import json

        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

        key = signed(info, "GET", "/api/v1/webhooks/public-key").json()["data"]["publicKey"]
        public = Ed25519PublicKey.from_public_bytes(base64.b64decode(key))
        events = []
        for headers, raw in list(self.received):
            event_id = headers["X-Service-Event-Id"]
            content = f"{event_id}.{headers['X-Service-Timestamp']}.".encode() + raw
            public.verify(base64.b64decode(headers["X-Service-Signature"]), content)  # raises on a bad signature
            events.append(json.loads(raw))
        return events
