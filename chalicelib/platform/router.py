"""Routes: authentication, validation and the envelope around every handler.

A handler is declared with `route(...)`, which records a `RouteSpec` (the OpenAPI
document is generated from these) and wraps the view so that a request flows
auth guard -> path ids -> body/query validation -> handler -> envelope (every path
parameter is declared with a `PathId`, see platform/path_ids.py). Errors raised
anywhere below become an error envelope; unexpected ones are logged with their stack
(server-side only) and answered as 500 with the request id, never the stack.
"""

from __future__ import annotations

import functools
import json
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar
from urllib.parse import quote

from chalice import Blueprint, Response
from chalice.app import Request
from pydantic import BaseModel, ValidationError

from chalicelib.platform import deadline, errors, idempotency, jsonsafe, path_ids, resources
from chalicelib.platform.envelope import dumps, envelope, error_envelope
from chalicelib.platform.invocation import running_as
from chalicelib.platform.logging import log_error_answer, log_failure, request_keys
from chalicelib.platform.path_ids import PathId

JSON = "application/json"
M = TypeVar("M", bound=BaseModel)


class Guard(Protocol):
    """Authenticates a request; returns the principal or raises ApiError."""

    scheme: tuple[str, ...]  # OpenAPI security schemes that must all be present, see openapi.py
    errors: Mapping[int, tuple[str, ...]]  # the codes it answers, by status (the OpenAPI document lists them)

    def __call__(self, request: Request) -> Any: ...


@dataclass
class Reply:
    """What a handler returns: the `data` of the envelope and its message."""

    data: Any = None
    message: str = "ok"
    status: int = 200


@dataclass(frozen=True)
class RouteSpec:
    method: str
    path: str
    summary: str
    tag: str
    guard: Guard | None
    body: type[BaseModel] | None
    query: type[BaseModel] | None
    response: type[BaseModel] | None
    message: str
    error_statuses: tuple[int, ...] = field(default_factory=tuple)
    description: str = ""
    idempotent: bool = False
    # The `data.code` values the handler (and what it calls) may answer, by status; the router's own (validation,
    # media type, idempotency, the guard's) are added by the OpenAPI document from the route's declaration.
    errors: Mapping[int, tuple[str, ...]] = field(default_factory=dict, hash=False, compare=False)
    # Examples of the request body and of the response's `data` (else the models' own examples are used).
    request_example: Any = field(default=None, hash=False, compare=False)
    response_example: Any = field(default=None, hash=False, compare=False)
    content_types: tuple[str, ...] = (JSON,)
    # Each path parameter's declaration: what a value that cannot be an id is answered (platform/path_ids.py).
    path_ids: Mapping[str, PathId] = field(default_factory=dict, hash=False, compare=False)


ROUTES: list[RouteSpec] = []


@dataclass(frozen=True)
class Call:
    """Everything a handler may need about the request it serves."""

    request: Request
    principal: Any
    body: Any
    query: Any
    path_params: dict[str, str]


def route(
    bp: Blueprint,
    path: str,
    method: str,
    *,
    summary: str,
    tag: str,
    guard: Guard | None = None,
    body: type[BaseModel] | None = None,
    query: type[BaseModel] | None = None,
    response: type[BaseModel] | None = None,
    message: str = "ok",
    error_statuses: tuple[int, ...] = (),
    description: str = "",
    content_types: tuple[str, ...] = (JSON,),
    idempotent: bool = False,
    errors: Mapping[int, Iterable[str]] | None = None,
    request_example: Any = None,
    response_example: Any = None,
    ids: Mapping[str, PathId] | None = None,
) -> Callable[[Callable[[Call], Reply]], Callable[..., Response]]:
    declared = path_ids.declare((method,), path, ids)
    if idempotent:
        # Refused here, at import, rather than at the first request: keys must belong to a tenant and principal.
        idempotency.require_scope(f"{method} {path}", guard)
    codes = {status: tuple(dict.fromkeys(names)) for status, names in sorted((errors or {}).items())}
    spec = RouteSpec(
        method,
        path,
        summary,
        tag,
        guard,
        body,
        query,
        response,
        message,
        tuple(sorted(set(error_statuses) | set(codes))),
        description,
        idempotent,
        codes,
        request_example,
        response_example,
        content_types,
        declared,
    )
    ROUTES.append(spec)

    def decorate(handler: Callable[[Call], Reply]) -> Callable[..., Response]:
        @functools.wraps(handler)
        def view(**path_params: str) -> Response:
            request = bp.current_request

            def respond() -> Response:
                principal = guard(request) if guard else None
                checked = path_ids.check(declared, path_params)
                call = Call(
                    request=request,
                    principal=principal,
                    body=parse_body(request, body, content_types) if body else None,
                    query=parse_query(request, query) if query else None,
                    path_params=checked,
                )
                if not idempotent:
                    reply = handler(call)
                    return envelope(reply.status, reply.message, reply.data)
                return _idempotently(request, method, call, handler)

            return guarded(request, path, respond)

        # A route without a body takes any Content-Type (a GET sent with one is still a GET).
        accepted = list(content_types) if body else ["*/*"]
        bp.route(path, methods=[method], content_types=accepted)(view)
        return view

    return decorate


def _idempotently(request: Request, method: str, call: Call, handler: Callable[[Call], Reply]) -> Response:
    """Honour `Idempotency-Key` (see platform/idempotency.py): replay a stored answer or run and store it."""
    fingerprint = idempotency.request_hash(method, path_with_query(request), raw_body_bytes(request))
    scope = idempotency.scope_of(call.principal)
    with idempotency.guard(request.headers.get(idempotency.HEADER), scope, fingerprint) as slot:
        if slot.replay is not None:
            stored = slot.replay
            return envelope(stored.status, stored.message, stored.data, {"Idempotent-Replayed": "true"})
        reply = handler(call)
        data = json.loads(dumps(reply.data))  # what the client gets is exactly what a replay gets
        slot.complete(reply.status, reply.message, data)
        return envelope(reply.status, reply.message, data)


def guarded(request: Request, route_path: str, respond: Callable[[], Response]) -> Response:
    """Run `respond` within the request's time budget, turning any error into an envelope; every log line of
    the request carries its id, and every response gets X-Request-Id."""
    request_id = _request_id(request)
    budget_s = deadline.from_lambda_context(request.lambda_context, float(resources.function("api_handler").timeout_s))
    with request_keys(request_id, route_path, request.lambda_context, _gateway_request_id(request)):
        try:
            with running_as("api_handler"), deadline.budget(budget_s):
                response = respond()
        except errors.ApiError as exc:
            response = error_envelope(exc)
        except Exception as exc:  # noqa: BLE001 - the one place unexpected errors are turned into a 500
            # The stack goes to the log only (it stays server-side); the answer carries the id to find it.
            log_failure("unhandled error", exc)
            response = error_envelope(
                errors.ApiError(500, errors.INTERNAL_ERROR, "Internal server error", requestId=request_id)
            )
        log_error_answer(response.status_code, response.body)  # whatever made it: raised, returned or replayed
    response.headers["X-Request-Id"] = request_id
    return response


def document_route(
    bp: Blueprint, path: str, ids: Mapping[str, PathId] | None = None
) -> Callable[[Callable[..., Response]], Callable[..., Response]]:
    """A GET route that serves a bare document (OpenAPI, HTML, JWKS, an asset) with the same error handling; the
    path's parameters (declared as for `route`) are passed to `produce` by name."""
    declared = path_ids.declare(("GET",), path, ids)

    def decorate(produce: Callable[..., Response]) -> Callable[..., Response]:
        @functools.wraps(produce)
        def view(**path_params: str) -> Response:
            return guarded(bp.current_request, path, lambda: produce(**path_ids.check(declared, path_params)))

        bp.route(path, methods=["GET"], content_types=["*/*"])(view)
        return view

    return decorate


def _gateway_request_id(request: Request) -> str | None:
    context = request.context if isinstance(request.context, dict) else {}
    value = context.get("requestId")
    return value if isinstance(value, str) and value else None


def _request_id(request: Request) -> str:
    context = request.lambda_context
    return getattr(context, "aws_request_id", None) or str(uuid.uuid4())


MAX_FIELD_ERRORS = 50


def field_errors(exc: ValidationError) -> list[dict[str, str]]:
    """One entry per bad field, at most MAX_FIELD_ERRORS (a hostile body must not make a huge answer)."""
    return [
        {
            "field": (".".join(str(p) for p in item["loc"]) or "(body)")[:200],
            "message": item["msg"][:300],
            "type": item["type"],
        }
        for item in exc.errors(include_url=False, include_input=False)[:MAX_FIELD_ERRORS]
    ]


def validation_failed(message: str, exc: ValidationError) -> errors.ApiError:
    extra = {"truncated": True} if exc.error_count() > MAX_FIELD_ERRORS else {}
    return errors.bad_request(_code_of(exc), message, errors=field_errors(exc), **extra)


def _code_of(exc: ValidationError) -> str:
    """A shared field type (an address, a uint256) names its own code in the error's context, so that a route
    validating it in its body answers what a service checking it would; problems of mixed kinds stay
    VALIDATION_ERROR."""
    codes = {str((item.get("ctx") or {}).get("code", errors.VALIDATION_ERROR)) for item in exc.errors()}
    return codes.pop() if len(codes) == 1 else errors.VALIDATION_ERROR


MULTIPART = "multipart/form-data"
MAX_MULTIPART_BYTES = 256 * 1024


def parse_body(request: Request, model: type[M], content_types: tuple[str, ...] = (JSON,)) -> M:
    _check_content_type(request, content_types)
    if _media_type(request) == MULTIPART:
        return _parse_multipart(request, model)
    raw = request.raw_body or b"{}"
    _refuse_duplicate_keys(raw)
    try:
        return model.model_validate_json(raw, strict=True)
    except ValidationError as exc:
        problems = field_errors(exc)
        if any(p["type"] == "json_invalid" for p in problems):
            raise errors.bad_request(errors.MALFORMED_JSON, "Request body is not valid JSON") from None
        if any(p["type"] == "model_type" and p["field"] == "(body)" for p in problems):
            raise errors.bad_request(errors.MALFORMED_JSON, "Request body must be a JSON object") from None
        raise validation_failed("Request validation failed", exc) from None


def _check_content_type(request: Request, accepted: tuple[str, ...]) -> None:
    """A body is read only as what it says it is: `application/json` (UTF-8, the only charset JSON has) or a
    declared multipart form. No Content-Type, `*/*` or another charset is 415, not a guess."""
    header = str(request.headers.get("content-type", "")).strip()
    if not header:
        if raw_body_bytes(request):
            raise errors.ApiError(415, errors.UNSUPPORTED_MEDIA_TYPE, "Content-Type: application/json is required")
        return
    media = _media_type(request)
    if media not in accepted:
        raise errors.ApiError(415, errors.UNSUPPORTED_MEDIA_TYPE, f"Content-Type must be one of {', '.join(accepted)}")
    params = dict(
        (name.strip().lower(), value.strip().strip('"').lower())
        for name, _, value in (part.partition("=") for part in header.split(";")[1:])
    )
    if media == JSON and params.get("charset", "utf-8") != "utf-8":
        raise errors.ApiError(415, errors.UNSUPPORTED_MEDIA_TYPE, "JSON bodies must be UTF-8 (charset=utf-8)")


def _refuse_duplicate_keys(raw: bytes | str) -> None:
    """A key given twice is ambiguous (parsers disagree on which wins): refused rather than guessed."""

    def no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        keys = [key for key, _ in pairs]
        if len(set(keys)) != len(keys):
            raise errors.bad_request(errors.MALFORMED_JSON, "Request body repeats a key")
        return dict(pairs)

    try:
        jsonsafe.loads(raw, object_pairs_hook=no_duplicates)
    except jsonsafe.TooDeepError:
        raise errors.bad_request(errors.MALFORMED_JSON, "Request body is nested too deeply") from None
    except ValueError:
        return  # not JSON at all: the model's parser reports it


def _media_type(request: Request) -> str:
    return str(request.headers.get("content-type", "")).split(";")[0].strip().lower()


def _parse_multipart(request: Request, model: type[M]) -> M:
    """Text fields and files of a form, each as a string field of `model` (files by their part name)."""
    from email import policy
    from email.parser import BytesParser

    raw = raw_body_bytes(request)
    if len(raw) > MAX_MULTIPART_BYTES:
        raise errors.ApiError(413, errors.REQUEST_TOO_LARGE, "Request body is too large")
    header = f"Content-Type: {request.headers.get('content-type', '')}\r\nMIME-Version: 1.0\r\n\r\n".encode()
    message = BytesParser(policy=policy.HTTP).parsebytes(header + raw)
    if not message.is_multipart():
        raise errors.bad_request(errors.MALFORMED_MULTIPART, "Request body is not valid multipart/form-data")
    fields: dict[str, str] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        payload = part.get_payload(decode=True)
        if not isinstance(name, str) or not isinstance(payload, bytes):
            raise errors.bad_request(errors.MALFORMED_MULTIPART, "Every form part needs a name")
        try:
            fields[name] = payload.decode("utf-8")
        except UnicodeDecodeError:
            raise errors.bad_request(errors.MALFORMED_MULTIPART, f"Form part {name[:40]!r} is not UTF-8 text") from None
    try:
        return model.model_validate(fields, strict=True)
    except ValidationError as exc:
        raise validation_failed("Request validation failed", exc) from None


def parse_query(request: Request, model: type[M]) -> M:
    params = dict(request.query_params or {})
    try:
        return model.model_validate(params)
    except ValidationError as exc:
        raise validation_failed("Invalid query parameters", exc) from None


def path_with_query(request: Request) -> str:
    """The request path (without the API Gateway stage) and its query as the client sent it.

    API Gateway hands over decoded parameters, so the query is rebuilt in the order
    received with RFC 3986 percent-encoding; docs/authentication.md asks signers for
    exactly that form.
    """
    event = request.to_original_event()
    path = event.get("path") or request.context.get("path") or request.path
    params = event.get("multiValueQueryStringParameters") or {}
    pairs = [f"{quote(k, safe='-_.~')}={quote(v, safe='-_.~')}" for k, values in params.items() for v in values]
    return f"{path}?{'&'.join(pairs)}" if pairs else path


def raw_body_bytes(request: Request) -> bytes:
    raw = request.raw_body
    return raw if isinstance(raw, bytes) else raw.encode()


# Chalice answers some errors itself (405, 415, unparseable events) with its own body
# shape; this middleware rewrites them into the envelope.
_CHALICE_CODES = {
    "BadRequestError": errors.BAD_REQUEST,
    "NotFoundError": errors.NOT_FOUND,
    "MethodNotAllowedError": errors.METHOD_NOT_ALLOWED,
    "UnsupportedMediaType": errors.UNSUPPORTED_MEDIA_TYPE,
    "InternalServerError": errors.INTERNAL_ERROR,
}

platform_bp = Blueprint(__name__)


@platform_bp.middleware("http")
def envelope_chalice_errors(event: Request, get_response: Callable[[Request], Response]) -> Response:
    response = get_response(event)
    body = response.body
    if response.status_code >= 400 and isinstance(body, dict) and "Code" in body:
        code = _CHALICE_CODES.get(
            str(body["Code"]), errors.BAD_REQUEST if response.status_code < 500 else errors.INTERNAL_ERROR
        )
        message = "Internal server error" if response.status_code >= 500 else str(body.get("Message", "Bad request"))
        keep = {k: str(v) for k, v in response.headers.items() if k.lower() == "allow"}
        return envelope(response.status_code, message, {"code": code}, keep)
    return response
