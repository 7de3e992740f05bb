"""Ids in a request's path, checked before anything is read with them.

Every `{name}` in a route's path names one stored thing (a user operation, a delivery, an app, a transaction), and
every route declares each of them with a `PathId`: the router refuses a declaration that leaves one out, and
checks each value before the handler (and so before any read) runs. A value longer than `MAX_LENGTH` or with a
character outside RFC 3986's unreserved set (`A-Z a-z 0-9 - . _ ~`) cannot name anything this service stores,
and would otherwise reach DynamoDB as a key it refuses (over 2048 bytes) or as a key part with a separator in it:
it is answered as the thing not found, with the route's own code, since no such thing exists.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from chalicelib.platform.errors import ApiError

__all__ = ["DECLARED", "MAX_LENGTH", "PATTERN", "PathId", "check", "declare", "params_of"]

MAX_LENGTH = 128  # every id the service makes is far shorter (UUIDs, hashes, addresses, network names)
PATTERN = rf"^[A-Za-z0-9._~-]{{1,{MAX_LENGTH}}}$"
_ID = re.compile(PATTERN)


@dataclass(frozen=True)
class PathId:
    """How a route answers a path value that cannot be an id: the answer it gives for an id it does not find
    (`404` and the resource's code, e.g. `USER_OP_NOT_FOUND`), or another 4xx where the route answers one."""

    code: str
    message: str
    status: int = 404

    def refusal(self) -> ApiError:
        return ApiError(self.status, self.code, self.message)


# Every route's declaration, by (method, path): a test walks the app's routes and finds each path parameter here.
DECLARED: dict[tuple[str, str], Mapping[str, PathId]] = {}


def params_of(path: str) -> list[str]:
    return [part[1:-1] for part in path.split("/") if part.startswith("{") and part.endswith("}")]


def declare(methods: tuple[str, ...], path: str, ids: Mapping[str, PathId] | None) -> Mapping[str, PathId]:
    """Record a route's path ids; at import, a path parameter without one (or one declared for no parameter) stops
    the service from starting, so a new route cannot forget it."""
    declared = dict(ids or {})
    if set(declared) != set(params_of(path)):
        raise TypeError(f"{path}: declare a PathId for exactly its path parameters {params_of(path)}")
    for method in methods:
        DECLARED[(method, path)] = declared
    return declared


def check(ids: Mapping[str, PathId], values: Mapping[str, str]) -> dict[str, str]:
    """The path's values, each checked against its declaration (ApiError: the declaration's answer)."""
    for name, value in values.items():
        if len(value) > MAX_LENGTH or _ID.fullmatch(value) is None:
            raise ids[name].refusal()
    return dict(values)
