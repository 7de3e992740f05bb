"""A browser-like client of the console over chalice's test client: keeps cookies, reads the CSRF token of the
page it got last, posts forms."""

from __future__ import annotations

import re
import urllib.parse
from dataclasses import dataclass, field
from typing import Any

from chalicelib.console import accounts, audit
from chalicelib.console.models import Role

FORM = {"content-type": "application/x-www-form-urlencoded"}
CSRF = re.compile(r'name="csrf" value="([^"]*)"')
PASSWORD = "correct-horse-battery-staple"


@dataclass
class ConsoleClient:
    http: Any
    host: str = "127.0.0.1:8000"
    cookies: dict[str, str] = field(default_factory=dict)
    last: Any = None

    def _headers(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        headers = {"host": self.host, **(extra or {})}
        if self.cookies:
            headers["cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        return headers

    def _keep(self, response: Any) -> Any:
        for line in set_cookies(response):
            name, _, rest = line.partition("=")
            value = rest.split(";")[0]
            if "Max-Age=0" in line:
                self.cookies.pop(name, None)
            else:
                self.cookies[name] = value
        self.last = response
        return response

    def get(self, path: str, headers: dict[str, str] | None = None) -> Any:
        return self._keep(self.http.get(path, headers=self._headers(headers)))

    def post(
        self,
        path: str,
        fields: dict[str, str] | None = None,
        csrf: bool | str = True,
        headers: dict[str, str] | None = None,
    ) -> Any:
        data = dict(fields or {})
        if csrf is True:
            data["csrf"] = self.csrf()
        elif isinstance(csrf, str):
            data["csrf"] = csrf
        body = urllib.parse.urlencode(data)
        return self._keep(self.http.post(path, headers=self._headers({**FORM, **(headers or {})}), body=body))

    def csrf(self) -> str:
        found = CSRF.search(self.last.body.decode()) if self.last is not None else None
        assert found, "no form with a CSRF token on the last page"
        return found.group(1)

    def text(self) -> str:
        return str(self.last.body.decode())


def set_cookies(response: Any) -> list[str]:
    value = response.headers.get("Set-Cookie") or response.headers.get("set-cookie") or []
    return [value] if isinstance(value, str) else list(value)


def field_values(html: str, name: str) -> list[str]:
    return re.findall(rf'data-field="{name}"[^>]*>([^<]*)<', html)


def member(http: Any, organization_id: str, email: str, role: Role = Role.ADMIN) -> ConsoleClient:
    """A signed-in member of the organization (invited by the operator, password set on the invite page)."""
    _, token = accounts.invite(audit.operator(organization_id), email, role)
    client = ConsoleClient(http)
    client.get(f"/console/invite/{token}")
    answer = client.post(f"/console/invite/{token}", {"password": PASSWORD, "passwordConfirm": PASSWORD})
    assert answer.status_code == 303, client.text()
    return client
