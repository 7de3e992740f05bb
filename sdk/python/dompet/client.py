"""The clients: `Dompet` / `AsyncDompet` (an app's backend, Family S; or a client's backend, Family W) and the user
sessions `login()` returns. Every call goes through dompet._transport (signing, Idempotency-Key, retries, typed
errors); `request()` takes any path, `call()` any generated operation of dompet.api, `pages()` / `items()` walk
a list's `{data, pagination}` page by page."""

from __future__ import annotations

import json as jsonlib
from collections.abc import AsyncIterator, Iterator, Mapping
from dataclasses import dataclass
from types import ModuleType, TracebackType
from typing import Any, Generic, Self, TypeVar
from urllib.parse import urlsplit

import httpx

from dompet import errors
from dompet._generated.client import AuthenticatedClient
from dompet._generated.types import UNSET
from dompet._transport import (
    AppSignature,
    AsyncTransport,
    Auth,
    ClientSecret,
    RetryPolicy,
    Tokens,
    Transport,
)
from dompet._version import __version__

T = TypeVar("T")
USER_AGENT = f"dompet-python/{__version__}"
DEFAULT_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class Page(Generic[T]):
    """One page of a list: its items (dicts from a path, generated models from an operation) and where it is."""

    items: list[T]
    page: int
    limit: int
    total: int
    total_pages: int
    has_next: bool
    has_prev: bool


def _data(content: bytes) -> Any:
    """The envelope's `data` (the whole document for the bare ones: /openapi.json, JWKS)."""
    if not content:
        return None
    body = jsonlib.loads(content)
    if isinstance(body, dict) and "status" in body and "message" in body:
        return body.get("data")
    return body


def _page_from_dict(data: Mapping[str, Any]) -> Page[Any]:
    p = data["pagination"]
    return Page(list(data["data"]), p["page"], p["limit"], p["total"], p["totalPages"], p["hasNext"], p["hasPrev"])


def _page_from_model(parsed: Any) -> Page[Any]:
    data: Any = getattr(parsed, "data", UNSET)
    if data is UNSET or data is None:
        raise errors.DompetError("the operation answered no page")
    p = data.pagination
    return Page(list(data.data), p.page, p.limit, p.total, p.total_pages, p.has_next, p.has_prev)


def _parsed_data(parsed: Any) -> Any:
    data = getattr(parsed, "data", parsed)
    return None if data is UNSET else data


def _credentials(app_id: str | None, app_secret: str | None, client_secret: str | None) -> Auth:
    if client_secret and (app_id or app_secret):
        raise ValueError("pass app_id and app_secret (Family S) or client_secret (Family W), not both")
    if client_secret:
        return ClientSecret(client_secret)
    if app_id and app_secret:
        return AppSignature(app_id, app_secret)
    if app_id or app_secret:
        raise ValueError("Family S needs both app_id and app_secret")
    return Auth()  # public documents only (/health, /openapi.json)


class _Base:
    def __init__(self, base_url: str, auth: Auth, retry: RetryPolicy | None, timeout: float) -> None:
        self.base_url = base_url.rstrip("/")
        self._auth = auth
        self._retry = retry or RetryPolicy()
        self._timeout = timeout
        self._base_path = urlsplit(self.base_url).path.rstrip("/")

    @staticmethod
    def _request_args(
        method: str,
        path: str,
        json: Any,
        params: Mapping[str, Any] | None,
        idempotency_key: str | None,
        headers: Mapping[str, str] | None,
    ) -> dict[str, Any]:
        sent = dict(headers or {})
        if idempotency_key is not None:
            sent["Idempotency-Key"] = idempotency_key
        content = None
        if json is not None:
            content = jsonlib.dumps(json, separators=(",", ":")).encode()
            sent.setdefault("Content-Type", "application/json")
        return {"method": method.upper(), "url": path, "content": content, "params": params, "headers": sent}

    @staticmethod
    def _page_params(params: Mapping[str, Any] | None, page: int, limit: int | None) -> dict[str, Any]:
        return {**(params or {}), "page": page, **({"limit": limit} if limit is not None else {})}


class _SyncAPI(_Base):
    def __init__(
        self,
        base_url: str,
        auth: Auth,
        retry: RetryPolicy | None,
        timeout: float,
        transport: httpx.BaseTransport | None,
    ) -> None:
        super().__init__(base_url, auth, retry, timeout)
        self._transport = Transport(auth, self._retry, self._base_path, transport)
        self._http = httpx.Client(
            base_url=self.base_url, transport=self._transport, timeout=timeout, headers={"User-Agent": USER_AGENT}
        )
        self.client = AuthenticatedClient(base_url=self.base_url, token="").set_httpx_client(self._http)
        """The generated client bound to this one: `dompet.api.<operation>.sync(client=d.client, ...)`."""

    def request(
        self,
        method: str,
        path: str,
        json: Any = None,
        *,
        params: Mapping[str, Any] | None = None,
        idempotency_key: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Any:
        """Any call: the answer's `data` (decoded JSON), or a typed error. A POST gets an Idempotency-Key
        unless `idempotency_key` gives one."""
        response = self._http.request(**self._request_args(method, path, json, params, idempotency_key, headers))
        return _data(response.content)

    def call(self, operation: ModuleType, **kwargs: Any) -> Any:
        """A generated operation (a module of dompet.api): its parsed 200 model's `data`."""
        return _parsed_data(operation.sync_detailed(client=self.client, **kwargs).parsed)

    def pages(
        self,
        target: str | ModuleType,
        *,
        limit: int | None = None,
        start: int = 1,
        params: Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> Iterator[Page[Any]]:
        """Each page of a list, from `start` until `hasNext` is false. `target` is a path (items are dicts) or
        a generated operation (items are its models; `kwargs` are its arguments)."""
        page = start
        while True:
            if isinstance(target, str):
                got = _page_from_dict(self.request("GET", target, params=self._page_params(params, page, limit)))
            else:
                extra = {"limit": limit} if limit is not None else {}
                got = _page_from_model(target.sync_detailed(client=self.client, page=page, **extra, **kwargs).parsed)
            yield got
            if not got.has_next:
                return
            page += 1

    def items(self, target: str | ModuleType, **kwargs: Any) -> Iterator[Any]:
        """Every item of a list, page after page (see pages())."""
        for page in self.pages(target, **kwargs):
            yield from page.items

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()


class Dompet(_SyncAPI):
    """`Dompet(base_url, app_id=..., app_secret=...)`: an app's backend, every request signed (Family S).
    `Dompet(base_url, client_secret=...)`: a client's backend, which logs its users in (Family W).

    `retry` sets the retries of idempotent requests; `transport` replaces the HTTP transport (tests, proxies)."""

    def __init__(
        self,
        base_url: str,
        *,
        app_id: str | None = None,
        app_secret: str | None = None,
        client_secret: str | None = None,
        retry: RetryPolicy | None = None,
        timeout: float = DEFAULT_TIMEOUT_S,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        super().__init__(base_url, _credentials(app_id, app_secret, client_secret), retry, timeout, transport)
        self._client_secret = client_secret
        self._inner_transport = transport

    def login(self, sub_id: str) -> UserSession:
        """Log the user `sub_id` in (created on first login): a session that refreshes its token itself and
        adopts the wallet token a wallet creation, recovery or import returns."""
        if not self._client_secret:
            raise ValueError("login needs the client secret: Dompet(base_url, client_secret=...)")
        pair = self.request("POST", "/api/v1/auth/login", {"subId": sub_id})
        return UserSession(self, sub_id, pair)

    def _refresh(self, refresh_token: str) -> dict[str, Any]:
        pair: dict[str, Any] = self.request("POST", "/api/v1/auth/refresh", {"refreshToken": refresh_token})
        return pair


class UserSession(_SyncAPI):
    """One user's calls (Family W: bearer token and client secret). `token` is the current access or wallet
    token; it is refreshed a minute before it expires, or once on `401 TOKEN_EXPIRED`."""

    def __init__(self, parent: Dompet, sub_id: str, pair: dict[str, Any]) -> None:
        assert parent._client_secret
        self.sub_id = sub_id
        self.tokens = Tokens(parent._client_secret, pair, refresher=parent._refresh)
        super().__init__(parent.base_url, self.tokens, parent._retry, parent._timeout, parent._inner_transport)

    @property
    def token(self) -> str:
        return self.tokens.token

    @property
    def is_wallet_created(self) -> bool:
        return self.tokens.is_wallet_created

    def refresh(self) -> None:
        """Refresh now (normally automatic)."""
        self.tokens.refresh(None)


class _AsyncAPI(_Base):
    def __init__(
        self,
        base_url: str,
        auth: Auth,
        retry: RetryPolicy | None,
        timeout: float,
        transport: httpx.AsyncBaseTransport | None,
    ) -> None:
        super().__init__(base_url, auth, retry, timeout)
        self._transport = AsyncTransport(auth, self._retry, self._base_path, transport)
        self._http = httpx.AsyncClient(
            base_url=self.base_url, transport=self._transport, timeout=timeout, headers={"User-Agent": USER_AGENT}
        )
        self.client = AuthenticatedClient(base_url=self.base_url, token="").set_async_httpx_client(self._http)
        """The generated client bound to this one: `await dompet.api.<operation>.asyncio(client=d.client, ...)`."""

    async def request(
        self,
        method: str,
        path: str,
        json: Any = None,
        *,
        params: Mapping[str, Any] | None = None,
        idempotency_key: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Any:
        response = await self._http.request(**self._request_args(method, path, json, params, idempotency_key, headers))
        return _data(response.content)

    async def call(self, operation: ModuleType, **kwargs: Any) -> Any:
        return _parsed_data((await operation.asyncio_detailed(client=self.client, **kwargs)).parsed)

    async def pages(
        self,
        target: str | ModuleType,
        *,
        limit: int | None = None,
        start: int = 1,
        params: Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[Page[Any]]:
        page = start
        while True:
            if isinstance(target, str):
                data = await self.request("GET", target, params=self._page_params(params, page, limit))
                got = _page_from_dict(data)
            else:
                extra = {"limit": limit} if limit is not None else {}
                answer = await target.asyncio_detailed(client=self.client, page=page, **extra, **kwargs)
                got = _page_from_model(answer.parsed)
            yield got
            if not got.has_next:
                return
            page += 1

    async def items(self, target: str | ModuleType, **kwargs: Any) -> AsyncIterator[Any]:
        async for page in self.pages(target, **kwargs):
            for item in page.items:
                yield item

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()


class AsyncDompet(_AsyncAPI):
    """The asyncio variant of Dompet (same arguments; `transport` an httpx.AsyncBaseTransport)."""

    def __init__(
        self,
        base_url: str,
        *,
        app_id: str | None = None,
        app_secret: str | None = None,
        client_secret: str | None = None,
        retry: RetryPolicy | None = None,
        timeout: float = DEFAULT_TIMEOUT_S,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        super().__init__(base_url, _credentials(app_id, app_secret, client_secret), retry, timeout, transport)
        self._client_secret = client_secret
        self._inner_transport = transport

    async def login(self, sub_id: str) -> AsyncUserSession:
        if not self._client_secret:
            raise ValueError("login needs the client secret: AsyncDompet(base_url, client_secret=...)")
        pair = await self.request("POST", "/api/v1/auth/login", {"subId": sub_id})
        return AsyncUserSession(self, sub_id, pair)

    async def _refresh(self, refresh_token: str) -> dict[str, Any]:
        pair: dict[str, Any] = await self.request("POST", "/api/v1/auth/refresh", {"refreshToken": refresh_token})
        return pair


class AsyncUserSession(_AsyncAPI):
    def __init__(self, parent: AsyncDompet, sub_id: str, pair: dict[str, Any]) -> None:
        assert parent._client_secret
        self.sub_id = sub_id
        self.tokens = Tokens(parent._client_secret, pair, arefresher=parent._refresh)
        super().__init__(parent.base_url, self.tokens, parent._retry, parent._timeout, parent._inner_transport)

    @property
    def token(self) -> str:
        return self.tokens.token

    @property
    def is_wallet_created(self) -> bool:
        return self.tokens.is_wallet_created

    async def refresh(self) -> None:
        await self.tokens.arefresh(None)
