"""The response envelope `{status, message, data?}` shared by every route."""

from __future__ import annotations

import json
from typing import Any

from chalice import Response
from pydantic import BaseModel

from chalicelib.platform.errors import ApiError

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
        body=json.dumps(body, separators=(",", ":")),
        status_code=status,
        headers={**JSON_HEADERS, **(headers or {})},
    )


def error_envelope(error: ApiError, headers: dict[str, str] | None = None) -> Response:
    return envelope(error.status, error.message, error.data(), headers)
