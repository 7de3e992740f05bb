"""Calling the local stack (`make dev`, started by the `stack` fixture) as an integrator would."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("dompet_sign", ROOT / "scripts" / "dompet_sign.py")
assert _spec is not None and _spec.loader is not None
dompet_sign = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(dompet_sign)


def signed(info, method, path, body=b"", timestamp=None, app_id=None, secret=None):
    url = info["apiUrl"] + path
    headers = dompet_sign.signed_headers(
        app_id or info["demo"]["appId"], secret or info["demo"]["appSecret"], method, url, body, timestamp=timestamp
    )
    if body:
        headers["Content-Type"] = "application/json"
    return requests.request(method, url, headers=headers, data=body or None, timeout=10)
