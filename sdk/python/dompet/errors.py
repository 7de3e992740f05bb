"""Typed errors. Every answer that is not 2xx raises an `APIError` carrying the HTTP `status` and the stable
`code` of the envelope's `data.code` (docs/errors.md); a subclass per status family lets callers catch broadly."""

from __future__ import annotations

import json
from typing import Any


class DompetError(Exception):
    """Base of every error this package raises."""


class APIError(DompetError):
    """The service answered with an error envelope `{status, message, data: {code, ...}}`."""

    def __init__(
        self,
        status: int,
        code: str | None,
        message: str,
        data: dict[str, Any] | None = None,
        *,
        method: str = "",
        url: str = "",
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(f"{status} {code or 'HTTP_ERROR'}: {message}" + (f" ({method} {url})" if method else ""))
        self.status = status
        self.code = code
        self.message = message
        self.data = data or {}
        self.method = method
        self.url = url
        self.headers = headers or {}


class BadRequestError(APIError):
    """400: the request is malformed (`VALIDATION_ERROR` lists the fields in `data["errors"]`)."""


class AuthenticationError(APIError):
    """401: a missing, stale, forged or replayed signature, or a bad token or client secret."""


class PermissionDeniedError(APIError):
    """403: e.g. `WALLET_TOKEN_REQUIRED`, `POLICY_DENIED`."""


class NotFoundError(APIError):
    """404."""


class ConflictError(APIError):
    """409: e.g. `WALLET_EXISTS`, `IDEMPOTENCY_IN_PROGRESS`, `IDEMPOTENCY_OUTCOME_UNKNOWN`."""


class UnprocessableEntityError(APIError):
    """422: e.g. `IDEMPOTENCY_KEY_REUSED`, `INSUFFICIENT_GAS_TANK_BALANCE`."""


class RateLimitError(APIError):
    """429 (after the retries an idempotent request is allowed)."""


class ServerError(APIError):
    """5xx (after the retries an idempotent request is allowed)."""


class APIConnectionError(DompetError):
    """The service could not be reached (after the retries an idempotent request is allowed)."""


class WebhookVerificationError(DompetError):
    """A webhook delivery whose signature, timestamp or event id does not check out."""


_BY_STATUS: dict[int, type[APIError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    422: UnprocessableEntityError,
    429: RateLimitError,
}


def error_code(content: bytes) -> str | None:
    """`data.code` of an error envelope, or None when the body is not one."""
    try:
        body = json.loads(content)
    except ValueError:
        return None
    data = body.get("data") if isinstance(body, dict) else None
    code = data.get("code") if isinstance(data, dict) else None
    return code if isinstance(code, str) else None


def from_response(
    status: int, content: bytes, *, method: str = "", url: str = "", headers: dict[str, str] | None = None
) -> APIError:
    """The typed error for an error answer (any body: a proxy's HTML page still gives status and text)."""
    message, data = "", None
    try:
        body = json.loads(content)
    except ValueError:
        body = None
    if isinstance(body, dict):
        message = str(body.get("message", ""))
        data = body.get("data") if isinstance(body.get("data"), dict) else None
    else:
        message = content[:200].decode("utf-8", "replace")
    kind = _BY_STATUS.get(status, ServerError if status >= 500 else APIError)
    code = data.get("code") if data and isinstance(data.get("code"), str) else None
    return kind(status, code, message, data, method=method, url=url, headers=headers)
