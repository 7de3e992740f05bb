"""The httpx transports under every call (hand-written, generated operations included).

For each request: the query is put in canonical form; a POST gets an `Idempotency-Key` (a UUID) unless the caller
gave one; then each attempt is authenticated afresh (a Family S signature with a new timestamp, so a retried write
is never taken for a replay; or the user's bearer token, refreshed when it is about to expire) and sent. Retries,
with exponential backoff and jitter (or the answer's `Retry-After`), happen on 429/5xx and connection errors, and
only for idempotent requests: GET/HEAD/OPTIONS/PUT/DELETE and the POSTs whose operation honours `Idempotency-Key`
(the same key is sent again, so the service replays the first answer instead of acting twice), which are also
retried on `409 IDEMPOTENCY_IN_PROGRESS`. A `401 TOKEN_EXPIRED` refreshes a user session once. Any answer that is
not 2xx then raises a typed error (errors.py), so the generated functions only ever return their 200 model.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import random
import re
import threading
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import httpx

from dompet import errors
from dompet._signing import canonical_query, signature_headers
from dompet.api import OPERATIONS

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE"})
IDEMPOTENCY_HEADER = "Idempotency-Key"
REFRESH_MARGIN_S = 60.0  # a token this close to its expiry is refreshed before the request


def _template(path: str) -> re.Pattern[str]:
    return re.compile("^" + re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(path)) + "$")


# POSTs that honour Idempotency-Key (the operations table generated from the document).
IDEMPOTENT_POSTS = tuple(_template(path) for method, path, keyed in OPERATIONS.values() if method == "POST" and keyed)


@dataclass(frozen=True)
class RetryPolicy:
    """`max_retries` more attempts after the first; delays `base_delay_s * 2**n` capped at `max_delay_s`, drawn
    uniformly from its upper half (jitter), or the answer's `Retry-After` when it gives one (also capped)."""

    max_retries: int = 3
    base_delay_s: float = 0.5
    max_delay_s: float = 8.0

    def delay(self, attempt: int, retry_after: str | None = None) -> float:
        if retry_after:
            try:
                return min(self.max_delay_s, max(0.0, float(retry_after)))
            except ValueError:
                pass
        cap = min(self.max_delay_s, self.base_delay_s * 2**attempt)
        return random.uniform(cap / 2, cap)  # noqa: S311 - jitter, not security


class Auth:
    """How an attempt is authenticated. The base sends nothing (public documents)."""

    def headers(self, method: str, path_with_query: str, body: bytes) -> dict[str, str]:
        return {}

    def current_token(self) -> str | None:
        return None

    def needs_refresh(self) -> bool:
        return False

    def can_refresh(self) -> bool:
        return False

    def refresh(self, stale: str | None) -> None:
        """Sync refresh (stale: the token the caller saw expire, so concurrent callers refresh once)."""

    async def arefresh(self, stale: str | None) -> None:
        """Async refresh."""

    def observe(self, data: Any) -> None:
        """Sees every successful answer's `data` (a session adopts the tokens a wallet creation returns)."""


class AppSignature(Auth):
    """Family S: HMAC-SHA256 over `X-TIMESTAMP.METHOD.path_with_query.body` with the app secret."""

    def __init__(self, app_id: str, app_secret: str) -> None:
        self.app_id, self._secret = app_id, app_secret

    def headers(self, method: str, path_with_query: str, body: bytes) -> dict[str, str]:
        return signature_headers(self.app_id, self._secret, method, path_with_query, body)


class ClientSecret(Auth):
    """Family W without a user: login and refresh."""

    def __init__(self, client_secret: str) -> None:
        self._secret = client_secret

    def headers(self, method: str, path_with_query: str, body: bytes) -> dict[str, str]:
        return {"x-client-secret": self._secret}


def token_expiry(token: str) -> float | None:
    """`exp` of a JWT (read, not verified: only to know when to refresh)."""
    try:
        payload = token.split(".")[1]
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
        return float(claims["exp"])
    except (IndexError, ValueError, KeyError, TypeError):
        return None


class Tokens(Auth):
    """Family W for one user: bearer token + client secret, refreshed with the single-use refresh token."""

    def __init__(
        self,
        client_secret: str,
        pair: dict[str, Any],
        refresher: Callable[[str], dict[str, Any]] | None = None,
        arefresher: Callable[[str], Awaitable[dict[str, Any]]] | None = None,
    ) -> None:
        self._secret = client_secret
        self._refresher, self._arefresher = refresher, arefresher
        self._lock = threading.Lock()
        self._alock: asyncio.Lock | None = None
        self.token = ""
        self.refresh_token = ""
        self.is_wallet_created = False
        self.expires_at: float | None = None
        self.adopt(pair)

    def adopt(self, pair: dict[str, Any]) -> None:
        """Take a token pair (login, refresh, or a wallet creation's answer)."""
        token = pair.get("walletToken") or pair.get("accessToken")
        if not token:
            raise errors.DompetError("the answer holds no token")
        self.token = str(token)
        self.refresh_token = str(pair.get("refreshToken") or self.refresh_token)
        self.is_wallet_created = bool(pair.get("isWalletCreated", False) or pair.get("walletToken"))
        self.expires_at = token_expiry(self.token)

    def headers(self, method: str, path_with_query: str, body: bytes) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}", "x-client-secret": self._secret}

    def current_token(self) -> str | None:
        return self.token

    def needs_refresh(self) -> bool:
        return self.can_refresh() and self.expires_at is not None and self.expires_at - time.time() < REFRESH_MARGIN_S

    def can_refresh(self) -> bool:
        return bool(self.refresh_token)

    def refresh(self, stale: str | None) -> None:
        if self._refresher is None:
            raise errors.DompetError("this session cannot refresh synchronously")
        with self._lock:
            if stale is not None and self.token != stale:
                return  # another thread refreshed it meanwhile
            self.adopt(self._refresher(self.refresh_token))

    async def arefresh(self, stale: str | None) -> None:
        if self._arefresher is None:
            raise errors.DompetError("this session cannot refresh asynchronously")
        if self._alock is None:
            self._alock = asyncio.Lock()
        async with self._alock:
            if stale is not None and self.token != stale:
                return
            self.adopt(await self._arefresher(self.refresh_token))

    def observe(self, data: Any) -> None:
        if isinstance(data, dict) and data.get("walletToken") and data.get("refreshToken"):
            self.adopt(data)


class _Plan:
    """One request's handling, shared by both transports: everything but sending and sleeping."""

    def __init__(self, request: httpx.Request, auth: Auth, retry: RetryPolicy, base_path: str) -> None:
        """`request`'s body must have been read (request.read() / await request.aread())."""
        self.request, self.auth, self.retry = request, auth, retry
        self.method = request.method.upper()
        if request.url.query:
            # httpx writes a space in `params` as "+" (form encoding) and a plus as "%2B"; the service reads "+" as
            # a plus (API Gateway), so the query is sent and signed in canonical RFC 3986 form: "%20", "%2B".
            query = canonical_query(request.url.query.decode().replace("+", "%20"))
            request.url = request.url.copy_with(query=query.encode() or None)
        raw = request.url.raw_path.decode()
        self.path_with_query = raw[len(base_path) :] if base_path and raw.startswith(base_path + "/") else raw
        self.path = self.path_with_query.split("?", 1)[0]
        self.body = request.content
        if self.method == "POST" and IDEMPOTENCY_HEADER not in request.headers:
            request.headers[IDEMPOTENCY_HEADER] = str(uuid.uuid4())
        self.keyed_post = self.method == "POST" and any(p.match(self.path) for p in IDEMPOTENT_POSTS)
        self.retryable = self.method in IDEMPOTENT_METHODS or self.keyed_post
        self.attempt = 0
        self.refreshed = False

    def authenticate(self) -> None:
        self.request.headers.update(self.auth.headers(self.method, self.path_with_query, self.body))

    def after_error(self, exc: httpx.TransportError) -> float:
        """The delay before the next attempt, or raises APIConnectionError."""
        if not self.retryable or self.attempt >= self.retry.max_retries:
            raise errors.APIConnectionError(f"{self.method} {self.request.url}: {type(exc).__name__}: {exc}") from exc
        self.attempt += 1
        return self.retry.delay(self.attempt - 1)

    def wants_refresh(self, response: httpx.Response) -> bool:
        if response.status_code != 401 or self.refreshed or not self.auth.can_refresh():
            return False
        if errors.error_code(response.content) != "TOKEN_EXPIRED":
            return False
        self.refreshed = True
        return True

    def after_response(self, response: httpx.Response) -> float | None:
        """The delay before the next attempt, None to return this answer; raises the typed error of a final one."""
        status = response.status_code
        again = status in RETRY_STATUSES or (
            status == 409 and self.keyed_post and errors.error_code(response.content) == "IDEMPOTENCY_IN_PROGRESS"
        )
        if again and self.retryable and self.attempt < self.retry.max_retries:
            self.attempt += 1
            return self.retry.delay(self.attempt - 1, response.headers.get("Retry-After"))
        if status >= 400:
            raise errors.from_response(
                status,
                response.content,
                method=self.method,
                url=str(self.request.url),
                headers=dict(response.headers),
            )
        if status < 300:
            with contextlib.suppress(ValueError, AttributeError):
                self.auth.observe(json.loads(response.content).get("data"))
        return None


class Transport(httpx.BaseTransport):
    def __init__(
        self,
        auth: Auth,
        retry: RetryPolicy,
        base_path: str = "",
        inner: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.auth, self.retry, self.base_path = auth, retry, base_path.rstrip("/")
        self.inner = inner or httpx.HTTPTransport()
        self.sleep = sleep

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        request.read()
        plan = _Plan(request, self.auth, self.retry, self.base_path)
        while True:
            if self.auth.needs_refresh():
                self.auth.refresh(self.auth.current_token())
            plan.authenticate()
            try:
                response = self.inner.handle_request(request)
                response.read()
            except httpx.TransportError as exc:
                self.sleep(plan.after_error(exc))
                continue
            if plan.wants_refresh(response):
                response.close()
                self.auth.refresh(self.auth_token(request))
                continue
            delay = plan.after_response(response)
            if delay is None:
                return response
            response.close()
            self.sleep(delay)

    @staticmethod
    def auth_token(request: httpx.Request) -> str | None:
        value = request.headers.get("Authorization", "")
        return value.removeprefix("Bearer ") if value.startswith("Bearer ") else None

    def close(self) -> None:
        self.inner.close()


class AsyncTransport(httpx.AsyncBaseTransport):
    def __init__(
        self,
        auth: Auth,
        retry: RetryPolicy,
        base_path: str = "",
        inner: httpx.AsyncBaseTransport | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.auth, self.retry, self.base_path = auth, retry, base_path.rstrip("/")
        self.inner = inner or httpx.AsyncHTTPTransport()
        self.sleep = sleep

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        await request.aread()
        plan = _Plan(request, self.auth, self.retry, self.base_path)
        while True:
            if self.auth.needs_refresh():
                await self.auth.arefresh(self.auth.current_token())
            plan.authenticate()
            try:
                response = await self.inner.handle_async_request(request)
                await response.aread()
            except httpx.TransportError as exc:
                await self.sleep(plan.after_error(exc))
                continue
            if plan.wants_refresh(response):
                await response.aclose()
                await self.auth.arefresh(Transport.auth_token(request))
                continue
            delay = plan.after_response(response)
            if delay is None:
                return response
            await response.aclose()
            await self.sleep(delay)

    async def aclose(self) -> None:
        await self.inner.aclose()
