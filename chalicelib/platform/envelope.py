"""The response envelope `{status, message, data?}` shared by every route."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from chalice import Response
from pydantic import BaseModel

from chalicelib.platform.errors import ApiError, RetryLaterError

JSON_HEADERS = {"Content-Type": "application/json"}


def to_jsonable(data: Any) -> Any:
    if isinstance(data, BaseModel):
        return data.model_dump(mode="json", by_alias=True)
    if isinstance(data, list):
        return [to_jsonable(item) for item in data]
    return data


def envelope(status: int, message: str, data: Any = None, headers: dict[str, str] | None = None) -> Response:
    body: dict[str, Any] = {"status": status, "message": message}
    if data is not None:
        body["data"] = to_jsonable(data)
    return Response(
        body=dumps(body),
        status_code=status,
        headers={**JSON_HEADERS, **(headers or {})},
    )


def dumps(data: Any) -> str:
    """JSON as the envelope writes it (DynamoDB's Decimals as numbers); stored answers use it too, so a replay
    reads exactly like the first answer."""
    return json.dumps(to_jsonable(data), separators=(",", ":"), default=_json_default)


def error_envelope(error: ApiError, headers: dict[str, str] | None = None) -> Response:
    if isinstance(error, RetryLaterError):
        headers = {**error.headers(), **(headers or {})}
    return envelope(error.status, error.message, error.data(), headers)


def _json_default(value: Any) -> Any:
    # DynamoDB hands numbers back as Decimal; integral ones are integers on the wire.
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else str(value)
    if isinstance(value, (bytes, bytearray)):
        raise TypeError("bytes must be encoded by the model before they reach the envelope")
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")
