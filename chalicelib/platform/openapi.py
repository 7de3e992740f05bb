"""OpenAPI 3.1 document generated from the registered routes and their pydantic models.

Every operation states its summary, description, request and response examples (the models' own, made from their
fields' examples: platform/examples.py), and, for each error status, the `data.code` values it may answer: the
route's own (`route(errors=...)`), its guard's (`Guard.errors`), and the router's, from what the route declares (a
body, a query, field types, `Idempotency-Key`, its path ids). The document is the source of the SDKs (sdk/):
operationIds, tags and schema names are stable.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic.json_schema import models_json_schema

from chalicelib.platform import deadline, errors, examples, idempotency, outbox, path_ids
from chalicelib.platform.router import JSON, MULTIPART, ROUTES, RouteSpec

REF = "#/components/schemas/{model}"

# The Family S recipe (docs/authentication.md), with its worked example; tests/unit/test_docs.py and
# tests/contract check that the example signature is right.
SIGNING_RECIPE = """\
Family S: every request of an app carries `X-APP-ID`, `X-TIMESTAMP` and `X-SIGNATURE`.

`X-SIGNATURE` is the lowercase hex of **HMAC-SHA256**, keyed with the app secret (`das_…`, UTF-8), of

```
X-TIMESTAMP + "." + METHOD + "." + path_with_query + "." + raw_body
```

- `X-TIMESTAMP`: an RFC 3339 date-time with an offset (`2026-11-22T10:00:00.123Z`), within 300 s of server time;
  milliseconds are recommended (two identical writes in one second would otherwise be taken for a replay).
- `METHOD` in upper case; `raw_body` the exact bytes sent (empty for a GET).
- `path_with_query`: the service path (`/api/v1/...`), then `?` and the query in canonical form if there is one:
  `name=value` pairs joined by `&`, names in order of first appearance with each name's values together,
  names and values percent-encoded as RFC 3986 (only `A-Z a-z 0-9 - _ . ~` kept; `%20` for a space). Send the
  query in that same form.
- A POST, PUT, PATCH or DELETE whose signature was already used is refused (`REPLAYED_REQUEST`): sign each write
  with a fresh timestamp.

Worked example: app secret `das_example-secret-do-not-use`, `GET /api/v1/auth/whoami` at `2026-11-22T10:00:00Z`
signs the message `2026-11-22T10:00:00Z.GET./api/v1/auth/whoami.` and sends
`X-SIGNATURE: b0c8caa60b57ad2e5120819c513ff4c175314beb35696f178acc76bad9d3ef52`.

```sh
printf '%s' '2026-11-22T10:00:00Z.GET./api/v1/auth/whoami.' \\
  | openssl dgst -sha256 -hmac 'das_example-secret-do-not-use' -hex
```

Refusals are `401` with `data.code`: `MISSING_SIGNATURE_HEADERS`, `INVALID_TIMESTAMP`, `STALE_TIMESTAMP`,
`UNKNOWN_APP`, `INVALID_SIGNATURE`, `REPLAYED_REQUEST`. The SDKs (`dompet` for Python, `@dompet/sdk` for
TypeScript) sign for you."""

SECURITY_SCHEMES: dict[str, dict[str, Any]] = {
    "clientSecret": {
        "type": "apiKey",
        "in": "header",
        "name": "x-client-secret",
        "description": "Family W and login: the client secret (`dcs_…`) issued when the client was registered. "
        "Call from your backend only.",
    },
    "bearerToken": {
        "type": "http",
        "scheme": "bearer",
        "bearerFormat": "JWT",
        "description": "Family W: `Authorization: Bearer <token>` from `POST /api/v1/auth/login`: an access token "
        "(15 min) for a user without a wallet (create, recover or import one), else a wallet token (1 h) for "
        "wallet operations. Refresh with `POST /api/v1/auth/refresh`. Sent together with `x-client-secret`.",
    },
    "appId": {
        "type": "apiKey",
        "in": "header",
        "name": "X-APP-ID",
        "description": "Family S: the app id. " + SIGNING_RECIPE,
    },
    "appTimestamp": {
        "type": "apiKey",
        "in": "header",
        "name": "X-TIMESTAMP",
        "description": "Family S: request time, RFC 3339 with an offset, within 300 s of server time "
        "(see `X-SIGNATURE`).",
    },
    "appSignature": {
        "type": "apiKey",
        "in": "header",
        "name": "X-SIGNATURE",
        "description": SIGNING_RECIPE,
    },
}

ERROR_ENVELOPE: dict[str, Any] = {
    "type": "object",
    "required": ["status", "message", "data"],
    "properties": {
        "status": {"type": "integer", "description": "Equals the HTTP status."},
        "message": {"type": "string", "description": "For humans; may change."},
        "data": {
            "type": "object",
            "required": ["code"],
            "properties": {
                "code": {
                    "type": "string",
                    "description": "Stable machine-readable error code (docs/errors.md); each operation lists the "
                    "codes of each of its error statuses.",
                },
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

WEBHOOK_EVENT: dict[str, Any] = {
    "type": "object",
    "required": ["apiVersion", "id", "type", "createdAt", "data"],
    "properties": {
        "apiVersion": {
            "type": "string",
            "const": outbox.API_VERSION,
            "description": "The webhook schema version (a date).",
        },
        "id": {
            "type": "string",
            "description": "Stable event id (`<type>:<ids>`, a random UUID for `webhook.test`), equal to "
            "`X-Service-Event-Id`. Deduplicate by it: a delivery may arrive more than once.",
        },
        "type": {
            "type": "string",
            "description": "account.created, deposit.invoice.pending_confirmation, "
            "deposit.wallet.pending_confirmation, deposit.invoice.paid, deposit.wallet.credited, deposit.reverted, "
            "invoice.expired, invoice.failed, "
            "withdraw.created, withdraw.success, withdraw.failed, userOp.success, userOp.failed, webhook.test.",
        },
        "createdAt": {"type": "string", "description": "UTC, RFC 3339."},
        "data": {"type": "object", "description": "The event's payload (docs/webhooks.md)."},
    },
}

WEBHOOK_EXAMPLE = {
    "apiVersion": outbox.API_VERSION,
    "id": "3f0c2a4e-8f5d-4b8e-9a41-6f1f2d7c9b10",
    "type": "webhook.test",
    "createdAt": "2026-11-22T08:00:00.000Z",
    "data": {"appId": "0b7d5f3e-5a8c-4c1e-9d1a-2f6b8e4c7a10", "message": "This is a test event"},
}

WEBHOOKS: dict[str, Any] = {
    "event": {
        "post": {
            "operationId": "receiveWebhookEvent",
            "summary": "An event POSTed to the app's webhook URL",
            "description": f"Every event is the envelope `{{apiVersion, id, type, createdAt, data}}` with "
            f"`apiVersion` `{outbox.API_VERSION}`, signed with the app's Ed25519 key "
            "(`GET /api/v1/webhooks/public-key`): verify the base64 `X-Service-Signature` over "
            '`X-Service-Event-Id + "." + X-Service-Timestamp + "." + raw body`, refuse a timestamp more than '
            "5 minutes from your clock, check the body's `id` equals `X-Service-Event-Id`, deduplicate by `id`. "
            "Answer 2xx; network errors, 5xx, 408 and 429 are retried (10 attempts over about 28 hours).",
            "tags": ["Webhooks"],
            "parameters": [
                {"name": name, "in": "header", "required": True, "schema": {"type": "string"}, "description": text}
                for name, text in (
                    ("X-Service-Event-Id", "The event `id`."),
                    ("X-Service-Timestamp", "Unix time in seconds when this attempt was signed."),
                    ("X-Service-Signature", "Base64 Ed25519 signature of `{id}.{timestamp}.{raw body}`."),
                    ("X-Service-Key-Id", "The `keyId` of the signing key."),
                )
            ],
            "requestBody": {
                "required": True,
                "content": {JSON: {"schema": {"$ref": REF.format(model="WebhookEvent")}, "example": WEBHOOK_EXAMPLE}},
            },
            "responses": {"200": {"description": "Any 2xx: delivered."}},
            "security": [],
        }
    }
}

DOCUMENTS: dict[str, dict[str, Any]] = {
    "/.well-known/jwks.json": {
        "get": {
            "operationId": "getJwks",
            "summary": "Public keys of the service's JWTs (a bare JWK Set, RFC 7517, not the envelope)",
            "description": "EdDSA (Ed25519) keys by `kid`; a retired key stays published for 30 days. Served "
            "bare so that JWT libraries can read it.",
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
                            },
                            "example": {
                                "keys": [
                                    {
                                        "kty": "OKP",
                                        "crv": "Ed25519",
                                        "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo",
                                        "kid": "k-20261122",
                                        "alg": "EdDSA",
                                        "use": "sig",
                                    }
                                ]
                            },
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
            "description": "The OpenAPI 3.1 document of the service, served bare (not in the envelope); the SDKs "
            "are generated from it.",
            "tags": ["Service"],
            "security": [],
            "responses": {
                "200": {
                    "description": "OpenAPI 3.1 document",
                    "content": {JSON: {"example": {"openapi": "3.1.0", "info": {"title": "Dompet"}, "paths": {}}}},
                }
            },
        }
    },
    "/docs": {
        "get": {
            "operationId": "getDocs",
            "summary": "This document as an interactive reference page",
            "description": "The API reference over `/openapi.json`, served with its assets by the service itself "
            "(nothing is fetched from elsewhere).",
            "tags": ["Service"],
            "security": [],
            "responses": {
                "200": {
                    "description": "HTML",
                    "content": {"text/html": {"example": "<!doctype html><title>Dompet API reference</title>"}},
                }
            },
        }
    },
}

STATUS_TEXT = {
    400: "Invalid request",
    401: "Not authenticated",
    403: "Not allowed",
    404: "Not found",
    409: "Conflict",
    413: "Request body too large",
    415: "Body is not UTF-8 JSON (Content-Type: application/json)",
    422: "Cannot be processed",
    429: "Too many requests",
    500: "Unexpected failure (data.requestId)",
    502: "Upstream (chain, bundler) unavailable",
    503: "Not ready, or the request ran out of time (DEADLINE_EXCEEDED)",
}

TAGS = [
    {"name": "Auth", "description": "Family W login and tokens; Family S identity check."},
    {
        "name": "Wallets",
        "description": "Family W: MPC wallets of a client's users: create, recover, import, "
        "balances, sends, signatures.",
    },
    {"name": "Smart accounts", "description": "Family S: ERC-4337 accounts of an owner address, one per network."},
    {"name": "User operations", "description": "Family S: estimate, build, submit and list user operations."},
    {"name": "Gas tanks", "description": "Family S: owner and organization gas tanks, USDT top-ups, usage."},
    {"name": "Custody", "description": "Family S: custodial accounts, invoices, deposits and withdrawals."},
    {"name": "Policies", "description": "Family S: signing policies of the app's wallets."},
    {"name": "Webhooks", "description": "Family S: the webhook URL, deliveries and the signing key."},
    {"name": "Service", "description": "Health, this document and its reference page."},
]


def build(
    title: str = "Dompet", version: str = "1.0.0", registered: set[tuple[str, str]] | None = None
) -> dict[str, Any]:
    """The document for the declared routes (only those the app registered, when `registered` is given)."""
    routes = [r for r in ROUTES if registered is None or (r.path, r.method) in registered]
    models = _models(routes)
    _, schemas = models_json_schema([(m, "serialization") for m in models], ref_template=REF)
    components: dict[str, Any] = dict(schemas.get("$defs", {}))
    components["ErrorEnvelope"] = ERROR_ENVELOPE
    components["WebhookEvent"] = WEBHOOK_EVENT
    paths: dict[str, dict[str, Any]] = {}
    for spec in routes:
        paths.setdefault(spec.path, {})[spec.method.lower()] = _operation(spec)
    paths.update(DOCUMENTS)
    used = {op["tags"][0] for methods in paths.values() for op in methods.values()}
    return {
        "openapi": "3.1.0",
        "info": {
            "title": title,
            "version": version,
            "description": "Wallet infrastructure: MPC wallets, smart accounts and user operations, gas tanks, "
            "custody and signed webhooks.\n\n"
            "Every response is the envelope `{status, message, data}` with `status` equal to the HTTP status; "
            "an error carries its stable code in `data.code`, and each operation lists the codes of each of its "
            "error statuses. Two request families: **Family W** (a client's users: `Authorization: Bearer` and "
            "`x-client-secret`) and **Family S** (an app's signed server calls: `X-APP-ID`, `X-TIMESTAMP`, "
            "`X-SIGNATURE`, recipe in the security scheme `appSignature`). POSTs that act accept an "
            f"`Idempotency-Key`.\n\nAPI version `{version}` (paths under `/api/v1/`). Webhook events carry "
            f"`apiVersion` `{outbox.API_VERSION}` (see `webhooks`).",
            "x-webhook-api-version": outbox.API_VERSION,
        },
        "tags": [tag for tag in TAGS if tag["name"] in used],
        "paths": paths,
        "webhooks": WEBHOOKS,
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


def error_codes(spec: RouteSpec) -> dict[int, tuple[str, ...]]:
    """Every `data.code` the route may answer, by status: its own, its guard's and the router's."""
    codes: dict[int, list[str]] = {}

    def add(status: int, names: Iterable[str]) -> None:
        listed = codes.setdefault(status, [])
        listed.extend(name for name in names if name not in listed)

    if spec.guard:
        for status, names in spec.guard.errors.items():
            add(status, names)
    for declared in spec.path_ids.values():
        add(declared.status, [declared.code])
    if spec.body or spec.query:
        add(400, [errors.VALIDATION_ERROR])
    if spec.body:
        add(400, [errors.MALFORMED_JSON, *_field_codes(spec.body)])
        add(415, [errors.UNSUPPORTED_MEDIA_TYPE])
        if MULTIPART in spec.content_types:
            add(400, [errors.MALFORMED_MULTIPART])
            add(413, [errors.REQUEST_TOO_LARGE])
    if spec.idempotent:
        add(400, [idempotency.INVALID_IDEMPOTENCY_KEY])
        add(409, [idempotency.IDEMPOTENCY_IN_PROGRESS, idempotency.IDEMPOTENCY_OUTCOME_UNKNOWN])
        add(422, [idempotency.IDEMPOTENCY_KEY_REUSED])
    for status, names in spec.errors.items():
        add(status, names)
    add(500, [errors.INTERNAL_ERROR])
    add(503, [deadline.DEADLINE_EXCEEDED])  # every request runs within a time budget
    return {status: tuple(names) for status, names in sorted(codes.items())}


def _field_codes(model: type[BaseModel]) -> list[str]:
    """The codes the body's shared field types answer (an address, a uint256): the `code` their validators give
    the router (platform/addresses.py, platform/amounts.py), found in each validator's constants."""
    found: list[str] = []
    for info in _fields(model, set()):
        for item in [*info.metadata, *_inner_metadata(info.annotation)]:
            func = getattr(item, "func", None)
            for code in _constants_of(func):
                if code not in found:
                    found.append(code)
    return found


def _fields(model: type[BaseModel], seen: set[type[BaseModel]]) -> Iterable[FieldInfo]:
    if model in seen:
        return
    seen.add(model)
    for info in model.model_fields.values():
        yield info
        for nested in _nested_models(info.annotation):
            yield from _fields(nested, seen)


def _inner_metadata(annotation: Any) -> Iterable[Any]:
    """The validators of a shared type inside another annotation (`Address | None`, `list[Uint256]`)."""
    for arg in getattr(annotation, "__args__", ()) or ():
        yield from getattr(arg, "__metadata__", ())
        yield from _inner_metadata(arg)


def _nested_models(annotation: Any) -> Iterable[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation
    for arg in getattr(annotation, "__args__", ()) or ():
        yield from _nested_models(arg)


def _constants_of(func: Any) -> list[str]:
    """Error codes a validator names: its closure's and its globals' `NAME = "NAME"` constants."""
    code = getattr(func, "__code__", None)
    if code is None:
        return []
    values: list[Any] = [cell.cell_contents for cell in (getattr(func, "__closure__", None) or ())]
    values += [func.__globals__.get(name) for name in code.co_names if name.isupper()]
    namespace: Mapping[str, Any] = func.__globals__
    return [v for v in values if isinstance(v, str) and v.isupper() and namespace.get(v) == v]


def _error_example(status: int, code: str) -> dict[str, Any]:
    data: dict[str, Any] = {"code": code}
    if code == errors.VALIDATION_ERROR:
        data["errors"] = [{"field": "to", "message": "Field required", "type": "missing"}]
    if code == errors.INTERNAL_ERROR:
        data["requestId"] = "6f1f2d7c-9b10-4b8e-9a41-3f0c2a4e8f5d"
    return {"status": status, "message": STATUS_TEXT.get(status, "Error"), "data": data}


def _error_response(status: int, codes: tuple[str, ...]) -> dict[str, Any]:
    listed = ", ".join(f"`{code}`" for code in codes)
    return {
        "description": f"{STATUS_TEXT.get(status, 'Error')}. `data.code`: {listed}.",
        "content": {
            JSON: {
                "schema": {"$ref": REF.format(model="ErrorEnvelope")},
                "examples": {code: {"summary": code, "value": _error_example(status, code)} for code in codes},
            }
        },
        "x-error-codes": list(codes),
    }


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
    data_example = spec.response_example
    if data_example is None and spec.response:
        data_example = examples.example(spec.response)
    example: dict[str, Any] = {"status": 200, "message": spec.message}
    if spec.response:
        example["data"] = data_example
    ok_content: dict[str, Any] = {"schema": success}
    if not spec.response or data_example is not None:
        ok_content["example"] = example
    responses: dict[str, Any] = {"200": {"description": spec.message, "content": {JSON: ok_content}}}
    for status, codes in error_codes(spec).items():
        responses[str(status)] = _error_response(status, codes)
    for status in spec.error_statuses:  # a status declared without its codes (none should be left)
        responses.setdefault(
            str(status),
            {
                "description": STATUS_TEXT.get(status, "Error"),
                "content": {JSON: {"schema": {"$ref": REF.format(model="ErrorEnvelope")}}},
            },
        )
    responses = dict(sorted(responses.items()))
    operation: dict[str, Any] = {
        "operationId": _operation_id(spec),
        "summary": spec.summary,
        "description": spec.description or spec.summary,
        "tags": [spec.tag],
        "responses": responses,
        "security": [{name: [] for name in spec.guard.scheme}] if spec.guard else [],
    }
    if spec.body:
        body: dict[str, Any] = {"schema": _ref(spec.body)}
        request_example = spec.request_example
        if request_example is None:
            request_example = examples.example(spec.body, request=True)
        if request_example is not None:
            body["example"] = request_example
        operation["requestBody"] = {"required": True, "content": {JSON: body}}
    id_schema = {"type": "string", "pattern": path_ids.PATTERN, "maxLength": path_ids.MAX_LENGTH}
    parameters: list[dict[str, Any]] = [
        {"name": name, "in": "path", "required": True, "schema": id_schema} for name in path_ids.params_of(spec.path)
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
                "example": "7d2c1f0e-4b7a-4a59-9f3e-2b8c5d1e6a90",
            }
        )
    if parameters:
        operation["parameters"] = parameters
    return operation


def _operation_id(spec: RouteSpec) -> str:
    # A path parameter reads as "By<Name>", so /transactions and /transactions/{hash} stay distinct.
    words = ["by-" + p[1:-1] if p.startswith("{") else p for p in spec.path.split("/") if p and p not in ("api", "v1")]
    return spec.method.lower() + "".join(w[:1].upper() + w[1:] for w in "-".join(words).replace(".", "-").split("-"))
