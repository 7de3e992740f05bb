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
