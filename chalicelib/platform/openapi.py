"""OpenAPI 3.1 document generated from the registered routes and their pydantic models."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from chalicelib.platform.router import ROUTES, RouteSpec

REF = "#/components/schemas/{model}"

SECURITY_SCHEMES: dict[str, dict[str, Any]] = {
    "clientSecret": {
        "type": "apiKey",
        "in": "header",
        "name": "x-client-secret",
        "description": "The client secret issued when the client was registered.",
    },
    "bearerToken": {
        "type": "http",
        "scheme": "bearer",
        "bearerFormat": "JWT",
        "description": "Access token (user without a wallet) or wallet token from /api/v1/auth/login.",
    },
    "appId": {"type": "apiKey", "in": "header", "name": "X-APP-ID", "description": "Family S: the app id."},
    "appTimestamp": {
        "type": "apiKey",
        "in": "header",
        "name": "X-TIMESTAMP",
        "description": "Family S: request time, RFC 3339, within 300 s of server time.",
    },
    "appSignature": {
        "type": "apiKey",
        "in": "header",
        "name": "X-SIGNATURE",
        "description": "Family S: hex HMAC-SHA256 of `X-TIMESTAMP.METHOD.path_with_query.body` with the app secret.",
    },
}

ERROR_ENVELOPE: dict[str, Any] = {
    "type": "object",
    "required": ["status", "message", "data"],
    "properties": {
        "status": {"type": "integer", "description": "Equals the HTTP status."},
        "message": {"type": "string"},
        "data": {
            "type": "object",
            "required": ["code"],
            "properties": {
                "code": {"type": "string", "description": "Stable machine-readable error code (docs/errors.md)."},
                "errors": {
                    "type": "array",
                    "description": "Validation errors, one per bad field.",
                    "items": {
                        "type": "object",
                        "properties": {
                            "field": {"type": "string"},
                            "message": {"type": "string"},
                            "type": {"type": "string"},
                        },
                    },
                },
            },
        },
    },
}

DOCUMENTS: dict[str, dict[str, Any]] = {
    "/.well-known/jwks.json": {
        "get": {
            "operationId": "getJwks",
            "summary": "Public keys of the service's JWTs (a bare JWK Set, RFC 7517, not the envelope)",
            "tags": ["Auth"],
            "security": [],
            "responses": {
                "200": {
                    "description": "JWK Set",
                    "content": {
                        "application/jwk-set+json": {
                            "schema": {
                                "type": "object",
                                "properties": {"keys": {"type": "array", "items": {"type": "object"}}},
                            }
                        }
                    },
                }
            },
        }
    },
    "/openapi.json": {
        "get": {
            "operationId": "getOpenapi",
            "summary": "This document",
            "tags": ["Service"],
            "security": [],
            "responses": {"200": {"description": "OpenAPI 3.1 document"}},
        }
    },
    "/docs": {
        "get": {
            "operationId": "getDocs",
            "summary": "This document as a page (no scripts, works offline)",
            "tags": ["Service"],
            "security": [],
            "responses": {"200": {"description": "HTML", "content": {"text/html": {}}}},
        }
    },
}

STATUS_TEXT = {
    400: "Invalid request",
    401: "Not authenticated",
    403: "Not allowed",
    404: "Not found",
    409: "Conflict",
    415: "Body is not UTF-8 JSON (Content-Type: application/json)",
    422: "Cannot be processed",
    429: "Too many requests",
    500: "Unexpected failure (data.requestId)",
    502: "Upstream (chain, bundler) unavailable",
    503: "Not ready, or the request ran out of time (DEADLINE_EXCEEDED)",
}


def build(
    title: str = "Dompet", version: str = "1.0.0", registered: set[tuple[str, str]] | None = None
) -> dict[str, Any]:
    """The document for the declared routes (only those the app registered, when `registered` is given)."""
    routes = [r for r in ROUTES if registered is None or (r.path, r.method) in registered]
    models = _models(routes)
    _, schemas = models_json_schema([(m, "serialization") for m in models], ref_template=REF)
    components: dict[str, Any] = dict(schemas.get("$defs", {}))
    components["ErrorEnvelope"] = ERROR_ENVELOPE
    paths: dict[str, dict[str, Any]] = {}
    for spec in routes:
        paths.setdefault(spec.path, {})[spec.method.lower()] = _operation(spec)
    paths.update(DOCUMENTS)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": title,
            "version": version,
            "description": "Wallet infrastructure: MPC wallets, smart accounts and signed webhooks. Every response "
            "is the envelope `{status, message, data}`; errors carry `data.code`.",
        },
        "paths": paths,
        "components": {"schemas": components, "securitySchemes": SECURITY_SCHEMES},
    }


def _models(routes: list[RouteSpec]) -> list[type[BaseModel]]:
    seen: list[type[BaseModel]] = []
    for spec in routes:
        for model in (spec.body, spec.response):
            if model is not None and model not in seen:
                seen.append(model)
    return seen


def _ref(model: type[BaseModel]) -> dict[str, str]:
    return {"$ref": REF.format(model=model.__name__)}


def _operation(spec: RouteSpec) -> dict[str, Any]:
    data_schema: dict[str, Any] = _ref(spec.response) if spec.response else {}
    success: dict[str, Any] = {
        "type": "object",
        "required": ["status", "message"],
        "properties": {
            "status": {"type": "integer", "const": 200},
            "message": {"type": "string", "examples": [spec.message]},
            **({"data": data_schema} if spec.response else {}),
        },
    }
    responses: dict[str, Any] = {
        "200": {"description": spec.message, "content": {"application/json": {"schema": success}}}
    }
    error_statuses = set(spec.error_statuses)
    if spec.body or spec.query:
        error_statuses.add(400)
    if spec.body:
        error_statuses.add(415)
    if spec.idempotent:
        error_statuses |= {400, 409, 422}  # INVALID_IDEMPOTENCY_KEY, IN_PROGRESS / OUTCOME_UNKNOWN, KEY_REUSED
    if spec.guard:
        error_statuses |= {401, 403} if "bearerToken" in spec.guard.scheme else {401}
    error_statuses |= {500, 503}  # every request runs within a time budget (DEADLINE_EXCEEDED)
    for status in sorted(error_statuses):
        responses[str(status)] = {
            "description": STATUS_TEXT.get(status, "Error"),
            "content": {"application/json": {"schema": {"$ref": REF.format(model="ErrorEnvelope")}}},
        }
    operation: dict[str, Any] = {
        "operationId": _operation_id(spec),
        "summary": spec.summary,
        "tags": [spec.tag],
        "responses": responses,
        "security": [{name: [] for name in spec.guard.scheme}] if spec.guard else [],
    }
    if spec.description:
        operation["description"] = spec.description
    if spec.body:
        operation["requestBody"] = {"required": True, "content": {"application/json": {"schema": _ref(spec.body)}}}
    parameters = [
        {"name": name, "in": "path", "required": True, "schema": {"type": "string"}} for name in _path_params(spec.path)
    ]
    if spec.query:
        schema = spec.query.model_json_schema()
        for name, prop in schema.get("properties", {}).items():
            parameters.append(
                {"name": name, "in": "query", "required": name in schema.get("required", []), "schema": prop}
            )
    if spec.idempotent:
        parameters.append(
            {
                "name": "Idempotency-Key",
                "in": "header",
                "required": False,
                "description": "Same key and body: the first response again, nothing new is done (24 h, per user "
                "or app). A request that may have taken effect is never run again (409 IDEMPOTENCY_OUTCOME_UNKNOWN).",
                "schema": {"type": "string", "pattern": "^[A-Za-z0-9_\\-:.]{1,128}$"},
            }
        )
    if parameters:
        operation["parameters"] = parameters
    return operation


def _path_params(path: str) -> list[str]:
    return [part[1:-1] for part in path.split("/") if part.startswith("{") and part.endswith("}")]


def _operation_id(spec: RouteSpec) -> str:
    # A path parameter reads as "By<Name>", so /transactions and /transactions/{hash} stay distinct.
    words = ["by-" + p[1:-1] if p.startswith("{") else p for p in spec.path.split("/") if p and p not in ("api", "v1")]
    return spec.method.lower() + "".join(w[:1].upper() + w[1:] for w in "-".join(words).replace(".", "-").split("-"))
