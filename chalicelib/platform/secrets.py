"""Generating and hashing bearer secrets.

Client secrets and refresh tokens are 256-bit random values, so a single SHA-256
is a sufficient one-way hash (no password stretching is needed for values that
cannot be guessed); hashes are compared as lookup keys.
"""

from __future__ import annotations

import hashlib
import secrets


def new_secret(prefix: str) -> str:
    return f"{prefix}_{secrets.token_urlsafe(32)}"


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()
