"""How a console page is served: session → role → CSRF → path ids → form validation → handler → HTML.

`page(...)` declares a route of the console's blueprint. GET pages need a live session (else a redirect to the
sign-in page); every POST also needs the session's CSRF token (form field `csrf` or header `X-CSRF-Token`), and
is refused when the browser says it comes from another site. Ids in the path are declared and checked as the API's
are (platform/path_ids.py). Forms are validated by pydantic models (the API's own, where the API has one); a bad
form is answered with the page's error and changes nothing. Every answer carries a strict Content-Security-Policy
(scripts and styles only from the service's own origin, no inline script), `X-Frame-Options: DENY` and
`Cache-Control: no-store`.
"""

from __future__ import annotations

import functools
import secrets
import urllib.parse
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from chalice import Blueprint, Response
from chalice.app import Request
from pydantic import BaseModel, ValidationError

from chalicelib.console import accounts
from chalicelib.console.audit import Origin
from chalicelib.console.models import Actor, ConsoleUser, Role, Session
from chalicelib.platform import errors, path_ids
from chalicelib.platform.errors import ApiError
from chalicelib.platform.logging import log_failure
from chalicelib.platform.path_ids import PathId
from chalicelib.platform.router import guarded, parse_query, raw_body_bytes, validation_failed
from chalicelib.system import assets

SESSION_COOKIE = "dompet_console"
PRE_SESSION_COOKIE = "dompet_console_pre"  # the double-submit token of the sign-in and invite forms
FORM = "application/x-www-form-urlencoded"
MAX_FORM_BYTES = 16 * 1024
CSRF_FAILED = "CSRF_FAILED"
POLL_HEADER = "x-console-poll"  # sent by the parts of a page that refresh themselves (htmx `every`)
TEMPLATES = Path(__file__).resolve().with_name("templates")
LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "[::1]"})

CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "form-action 'self'",
        "base-uri 'none'",
        "frame-ancestors 'none'",
    )
)
SECURITY_HEADERS: dict[str, str] = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}
F = TypeVar("F", bound=BaseModel)


@dataclass
class PageCall:
    """What a page handler gets: the request, its member and session (None on public pages), the validated
    form, the path's parameters, and what the templates need (base path, CSRF token, asset names)."""

    request: Request
    session: Session | None
    user: ConsoleUser | None
    form: Any
    path_params: dict[str, str]
    base: str
    pre_session: str | None = None  # the sign-in form's double-submit token

    @property
    def member(self) -> ConsoleUser:
        assert self.user is not None, "a page with a session"
        return self.user

    @property
    def origin(self) -> Origin:
        """Who acts, for the audit log."""
        assert self.session is not None and self.user is not None
        return Origin(
            self.user.organizationId,
            Actor(kind="console_user", userId=self.user.userId, email=self.user.email),
            source_ip(self.request),
            user_agent(self.request),
        )

    def view(self, template: str, status: int = 200, **context: Any) -> Html:
        return Html(template, context, status)

    def url(self, path: str) -> str:
        return self.base + path


@dataclass
class Html:
    template: str
    context: dict[str, Any] = field(default_factory=dict)
    status: int = 200
    cookies: list[str] = field(default_factory=list)


@dataclass
class Redirect:
    location: str
    cookies: list[str] = field(default_factory=list)


Reply = Html | Redirect


def page(
    bp: Blueprint,
    path: str,
    methods: tuple[str, ...] = ("GET",),
    *,
    role: Role | None = Role.VIEWER,
    form: type[BaseModel] | None = None,
    stage: str = accounts.FULL,
    error_template: str | None = None,
    ids: Mapping[str, PathId] | None = None,
) -> Callable[[Callable[[PageCall], Reply]], Callable[..., Response]]:
    """`role` None: a public page (sign-in, invite), whose POSTs carry the pre-session double-submit token.
    `error_template`: a form page re-rendered with a failed POST's error (else the error page). `ids`: each path
    parameter's declaration."""
    declared = path_ids.declare(methods, path, ids)

    def decorate(handler: Callable[[PageCall], Reply]) -> Callable[..., Response]:
        @functools.wraps(handler)
        def view(**path_params: str) -> Response:
            request = bp.current_request
            return guarded(
                request,
                path,
                lambda: _serve(request, handler, path_params, role, form, stage, error_template, declared),
            )

        bp.route(path, methods=list(methods), content_types=[FORM, "application/json", "multipart/form-data"])(view)
        return view

    return decorate


def _serve(
    request: Request,
    handler: Callable[[PageCall], Reply],
    path_params: dict[str, str],
    role: Role | None,
    form: type[BaseModel] | None,
    stage: str,
    error_template: str | None,
    declared: Mapping[str, PathId],
) -> Response:
    base = base_path(request)
    call = PageCall(request, None, None, None, path_params, base)
    try:
        cookies = read_cookies(request)
        posted = request.method == "POST"
        fields = _form_fields(request) if posted else {}
        if posted and _cross_site(request):
            raise errors.forbidden(CSRF_FAILED, "This form was sent from another site")
        if role is None:
            call.pre_session = cookies.get(PRE_SESSION_COOKIE)
            if posted and not _same(call.pre_session, fields.pop("csrf", None)):
                raise errors.forbidden(CSRF_FAILED, "The form expired; load the page again")
        else:
            try:
                polled = not posted and _header(request, POLL_HEADER) == "1"  # a page's automatic refresh
                call.session, call.user = accounts.session(cookies.get(SESSION_COOKIE), stage, touch=not polled)
            except ApiError as exc:
                if exc.code == accounts.SESSION_REQUIRED and not posted:
                    return _redirect(request, Redirect(base + "/console/login"))
                raise
            if posted and not accounts.csrf_matches(
                call.session, fields.pop("csrf", None) or _header(request, "x-csrf-token")
            ):
                raise errors.forbidden(CSRF_FAILED, "The form expired; load the page again")
            accounts.require(call.user, role)
        call.path_params = path_ids.check(declared, path_params)
        call.form = _validate(form, fields) if form is not None else None
        reply = handler(call)
    except ApiError as exc:
        if exc.status == 401 and exc.code == accounts.SESSION_REQUIRED:
            return _redirect(request, Redirect(base + "/console/login"))
        template = error_template if error_template and exc.status < 500 else "error.html"
        reply = Html(template, {"error": exc}, exc.status)
    except Exception as exc:  # noqa: BLE001 - a page never shows a stack; the log has it
        log_failure("console page failed", exc)
        reply = Html("error.html", {"error": ApiError(500, errors.INTERNAL_ERROR, "Something went wrong")}, 500)
    if isinstance(reply, Redirect):
        return _redirect(request, reply)
    return _render(call, reply)


def _validate(model: type[F], fields: dict[str, str]) -> F:
    try:
        return model.model_validate(fields)
    except ValidationError as exc:
        raise validation_failed("Some fields are not valid", exc) from None


def _form_fields(request: Request) -> dict[str, str]:
    raw = raw_body_bytes(request)
    if len(raw) > MAX_FORM_BYTES:
        raise ApiError(413, errors.REQUEST_TOO_LARGE, "The form is too large")
    media = str(request.headers.get("content-type", "")).split(";")[0].strip().lower()
    if raw and media != FORM:
        raise ApiError(415, errors.UNSUPPORTED_MEDIA_TYPE, f"Forms are sent as {FORM}")
    try:
        pairs = urllib.parse.parse_qsl(raw.decode("utf-8"), keep_blank_values=True, strict_parsing=False)
    except UnicodeDecodeError:
        raise errors.bad_request(errors.VALIDATION_ERROR, "The form is not UTF-8 text") from None
    fields: dict[str, str] = {}
    for name, value in pairs:
        if name in fields:
            raise errors.bad_request(errors.VALIDATION_ERROR, f"The form repeats the field {name[:40]!r}")
        fields[name] = value
    return fields


def _cross_site(request: Request) -> bool:
    """The browser says the form came from elsewhere (Sec-Fetch-Site, else an Origin that is not this host)."""
    site = _header(request, "sec-fetch-site")
    if site is not None:
        return site not in ("same-origin", "none")
    origin = _header(request, "origin")
    if origin is None or origin == "null":
        return origin == "null"
    return urllib.parse.urlsplit(origin).netloc != _header(request, "host")


def _header(request: Request, name: str) -> str | None:
    value = request.headers.get(name)
    return str(value) if value is not None else None


def _same(expected: str | None, presented: str | None) -> bool:
    return bool(expected) and presented is not None and secrets.compare_digest(str(expected), presented)


def read_cookies(request: Request) -> dict[str, str]:
    found: dict[str, str] = {}
    for part in str(request.headers.get("cookie", "")).split(";"):
        name, _, value = part.strip().partition("=")
        if name and name not in found:
            found[name] = value
    return found


def source_ip(request: Request) -> str | None:
    identity = request.context.get("identity") if isinstance(request.context, dict) else None
    ip = identity.get("sourceIp") if isinstance(identity, dict) else None
    return str(ip) if ip else None


def user_agent(request: Request) -> str | None:
    return str(request.headers.get("user-agent", ""))[:300] or None


def base_path(request: Request) -> str:
    """The stage prefix API Gateway puts before the route (`/api` for `/api/console/...`), empty locally."""
    full = request.context.get("path") if isinstance(request.context, dict) else None
    if isinstance(full, str) and full.endswith(request.path) and full != request.path:
        return full[: -len(request.path)].rstrip("/")
    return ""


def is_secure(request: Request) -> bool:
    """Cookies are Secure except over http on a loopback name (the local stack)."""
    host = urllib.parse.urlsplit(f"//{_header(request, 'host') or ''}").hostname or ""
    forwarded = _header(request, "x-forwarded-proto")
    return forwarded == "https" or (f"[{host}]" if ":" in host else host) not in LOCAL_HOSTS


def cookie(request: Request, name: str, value: str, max_age_s: int | None) -> str:
    """A cookie: HttpOnly, SameSite=Strict, Secure (see is_secure); max_age_s 0 deletes it, None lasts the session."""
    parts = [f"{name}={value}", "Path=/", "HttpOnly", "SameSite=Strict"]
    if max_age_s is not None:
        parts.append(f"Max-Age={max_age_s}")
    if is_secure(request):
        parts.append("Secure")
    return "; ".join(parts)


def _redirect(request: Request, reply: Redirect) -> Response:
    headers: dict[str, str | list[str]] = {**SECURITY_HEADERS, "Location": reply.location}
    if reply.cookies:
        headers["Set-Cookie"] = reply.cookies
    if _header(request, "hx-request") == "true":  # htmx follows a redirect only when told so
        headers["HX-Redirect"] = reply.location
        return Response(body="", status_code=200, headers=headers)
    return Response(body="", status_code=303, headers=headers)


@functools.cache
def _environment() -> Any:
    from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

    env = Environment(
        loader=FileSystemLoader(str(TEMPLATES)),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals["asset_name"] = assets.url_name
    return env


def _render(call: PageCall, reply: Html) -> Response:
    full = call.session is not None and call.session.stage == accounts.FULL
    context: dict[str, Any] = {
        "base": call.base,
        "user": call.user if full else None,
        "csrf": call.session.csrf if full and call.session else None,
        # The token of a form outside a full session: the sign-in and invite forms' double-submit token, or the
        # owing session's on the second-factor form (so a page re-rendered with an error can be sent again).
        "form_token": call.session.csrf if call.session and not full else call.pre_session,
        "fragment": _header(call.request, "hx-request") == "true",
        **reply.context,
    }
    body = _environment().get_template(reply.template).render(**context)
    headers: dict[str, str | list[str]] = {**SECURITY_HEADERS, "Content-Type": "text/html; charset=utf-8"}
    if reply.cookies:
        headers["Set-Cookie"] = reply.cookies
    return Response(body=body, status_code=reply.status, headers=headers)


def form_cookies(call: PageCall) -> tuple[str, list[str]]:
    """The double-submit token a public form carries, and the cookie that sets it when the browser has none."""
    if call.pre_session and 20 <= len(call.pre_session) <= 100:
        return call.pre_session, []
    token = secrets.token_urlsafe(32)
    return token, [cookie(call.request, PRE_SESSION_COOKIE, token, 3600)]


def session_cookie(call: PageCall, token: str) -> list[str]:
    """Set the new session (its lifetime is kept server-side) and drop the pre-session token."""
    return [cookie(call.request, SESSION_COOKIE, token, None), cookie(call.request, PRE_SESSION_COOKIE, "", 0)]


def cleared_session(call: PageCall) -> list[str]:
    return [cookie(call.request, SESSION_COOKIE, "", 0)]


def parsed_query(call: PageCall, model: type[F]) -> F:
    """The page's query parameters, validated like the API's (400 for bad values)."""
    return parse_query(call.request, model)
