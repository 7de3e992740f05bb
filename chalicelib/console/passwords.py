"""Console passwords: argon2id (argon2-cffi), with a hash of a random password checked for unknown accounts so that
a sign-in takes as long whether or not the account exists."""

from __future__ import annotations

import functools
import secrets
from typing import Any

# RFC 9106's second recommended option (64 MiB, 3 passes) with one lane: a Lambda function has one vCPU at
# its memory size, and ≈ 0.1 s per sign-in is what an interactive login can spend.
TIME_COST = 3
MEMORY_KIB = 64 * 1024
PARALLELISM = 1


@functools.cache
def _hasher() -> Any:
    from argon2 import PasswordHasher, Type

    return PasswordHasher(time_cost=TIME_COST, memory_cost=MEMORY_KIB, parallelism=PARALLELISM, type=Type.ID)


def hash_password(password: str) -> str:
    return str(_hasher().hash(password))


def verify(stored: str | None, password: str) -> bool:
    """Whether `password` matches the stored hash; with no hash (no such account) a dummy one is checked."""
    from argon2.exceptions import InvalidHashError, VerificationError

    try:
        return bool(_hasher().verify(stored or _dummy(), password)) and stored is not None
    except (VerificationError, InvalidHashError):
        return False


@functools.cache
def _dummy() -> str:
    return hash_password(secrets.token_urlsafe(16))
