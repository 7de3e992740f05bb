"""API errors with stable machine-readable codes.

An error response is the usual envelope; the code lives in `data.code` so that
every response keeps the shape `{status, message, data}`:

    {"status": 400, "message": "Request validation failed",
     "data": {"code": "VALIDATION_ERROR", "errors": [{"field": "subId", "message": "..."}]}}

The full list of codes is in docs/errors.md; codes never change meaning.
"""

from __future__ import annotations

import math
from typing import Any


class ApiError(Exception):
    def __init__(self, status: int, code: str, message: str, **details: Any) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.details = details

    def data(self) -> dict[str, Any]:
        return {"code": self.code, **self.details}


def bad_request(code: str, message: str, **details: Any) -> ApiError:
    return ApiError(400, code, message, **details)


def unauthorized(code: str, message: str, **details: Any) -> ApiError:
    return ApiError(401, code, message, **details)


def forbidden(code: str, message: str, **details: Any) -> ApiError:
    return ApiError(403, code, message, **details)


def not_found(code: str, message: str, **details: Any) -> ApiError:
    return ApiError(404, code, message, **details)


def conflict(code: str, message: str, **details: Any) -> ApiError:
    return ApiError(409, code, message, **details)


class UpstreamUnavailableError(ApiError):
    """An upstream (a chain's nodes, a bundler) gave no usable answer: 502 to a caller; a worker waits it out."""

    def __init__(self, code: str, message: str, **details: Any) -> None:
        super().__init__(502, code, message, **details)


class RetryLaterError(ApiError):
    """Nothing was done, and the same request may work in `retry_after_s` seconds: the envelope carries them as
    `data.retryAfter` and in a `Retry-After` header (the one place that header is made)."""

    def __init__(self, code: str, message: str, retry_after_s: float, status: int = 503, **details: Any) -> None:
        self.retry_after_s = max(1, math.ceil(retry_after_s))
        super().__init__(status, code, message, retryAfter=self.retry_after_s, **details)

    def headers(self) -> dict[str, str]:
        return {"Retry-After": str(self.retry_after_s)}


def upstream_unavailable(code: str, message: str, **details: Any) -> ApiError:
    return UpstreamUnavailableError(code, message, **details)


# Codes produced by the platform itself; domain packages define their own beside their logic.
VALIDATION_ERROR = "VALIDATION_ERROR"
MALFORMED_JSON = "MALFORMED_JSON"
MALFORMED_MULTIPART = "MALFORMED_MULTIPART"
REQUEST_TOO_LARGE = "REQUEST_TOO_LARGE"
UNSUPPORTED_MEDIA_TYPE = "UNSUPPORTED_MEDIA_TYPE"
METHOD_NOT_ALLOWED = "METHOD_NOT_ALLOWED"
NOT_FOUND = "NOT_FOUND"
BAD_REQUEST = "BAD_REQUEST"
INTERNAL_ERROR = "INTERNAL_ERROR"
UPSTREAM_UNAVAILABLE = "UPSTREAM_UNAVAILABLE"
