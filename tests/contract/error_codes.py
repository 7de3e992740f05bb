"""Which `data.code` values a route can answer, read from the code: every function reachable from its handler and
its guard (names resolved through each function's globals and closure; a class reached brings all its methods) is
parsed, and each raise site (`errors.bad_request(CODE, ...)`, `ApiError(409, CODE, ...)`, a helper that passes its
parameter on to one of those) gives a (status, code) pair.

An over-approximation of what a route can answer, not a proof: calls through objects it cannot name (`self.x()`
on an instance made elsewhere) are missed, which is why every class reached brings all its methods. The router's
own checks (body, media type, idempotency, path ids) are not walked: the document derives those from the route's
declaration (chalicelib/platform/openapi.py), and tests/contract/test_openapi_document.py checks that part.
"""

from __future__ import annotations

import ast
import contextlib
import inspect
import textwrap
import types
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

# The platform's constructors of an error with a fixed status, by name (chalicelib/platform/errors.py).
CONSTRUCTORS = {
    "bad_request": 400,
    "unauthorized": 401,
    "forbidden": 403,
    "not_found": 404,
    "conflict": 409,
    "upstream_unavailable": 502,
    "UpstreamUnavailableError": 502,
    "RetryLaterError": 503,
}
# Modules not walked: the error constructors themselves, and the router, idempotency and path-id layers whose codes
# the document derives from the route's declaration.
NOT_WALKED = (
    "chalicelib.platform.errors",
    "chalicelib.platform.router",
    "chalicelib.platform.idempotency",
    "chalicelib.platform.path_ids",
)


@dataclass
class RaiseSite:
    where: str
    status: int  # 0: computed
    code: str | None  # None: computed (a table, an exception's attribute)


@dataclass
class Parsed:
    refs: list[Any] = field(default_factory=list)
    sites: list[RaiseSite] = field(default_factory=list)
    calls: list[tuple[Any, list[Any]]] = field(default_factory=list)  # (callee, resolved positional args)
    helper: tuple[int, int] | None = None  # (parameter index, status) when it raises with its parameter as the code


_PASSED_ON = object()


def _ours(obj: Any) -> bool:
    return str(getattr(obj, "__module__", "") or "").startswith("chalicelib")


class Scanner:
    def __init__(self) -> None:
        self._parsed: dict[Any, Parsed] = {}

    def reach(self, roots: Iterable[Any]) -> tuple[set[Any], list[RaiseSite]]:
        """Every function reachable from `roots` and every raise site in them."""
        seen: set[Any] = set()
        todo = [f for root in roots for f in self.functions_of(root)]
        sites: list[RaiseSite] = []
        while todo:
            fn = todo.pop()
            if fn in seen or str(fn.__module__).startswith(NOT_WALKED):
                continue
            seen.add(fn)
            parsed = self.parse(fn)
            sites += parsed.sites
            for callee, args in parsed.calls:
                helper = self.parse(callee).helper if isinstance(callee, types.FunctionType) else None
                if helper and helper[0] < len(args) and args[helper[0]] is not _PASSED_ON:
                    code = args[helper[0]]
                    sites.append(RaiseSite(_name(fn), helper[1], code if isinstance(code, str) else None))
            for obj in parsed.refs:
                todo += [f for f in self.functions_of(obj) if f not in seen]
        return seen, sites

    def functions_of(self, obj: Any) -> list[Any]:
        if isinstance(obj, (staticmethod, classmethod)):
            obj = obj.__func__
        if isinstance(obj, property):
            return [f for f in (obj.fget, obj.fset) if f is not None]
        if isinstance(obj, types.FunctionType):
            return [obj] if _ours(obj) else []
        if isinstance(obj, types.MethodType):
            return self.functions_of(obj.__func__)
        if isinstance(obj, type):
            found: list[Any] = []
            for klass in obj.__mro__:
                if _ours(klass):
                    for value in vars(klass).values():
                        if isinstance(value, (types.FunctionType, staticmethod, classmethod, property)):
                            found += self.functions_of(value)
            return found
        if not isinstance(obj, types.ModuleType) and _ours(type(obj)):
            return self.functions_of(type(obj))
        return []

    def parse(self, fn: Any) -> Parsed:
        if fn in self._parsed:
            return self._parsed[fn]
        parsed = self._parsed[fn] = Parsed()
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
        except (OSError, TypeError, SyntaxError):
            return parsed
        scope = dict(fn.__globals__)
        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or (), strict=False):
            with contextlib.suppress(ValueError):  # an empty cell
                scope[name] = cell.cell_contents
        params = _parameters(tree)
        for node in ast.walk(tree):
            if isinstance(node, (ast.Name, ast.Attribute)):
                obj = _resolve(node, scope)
                if obj is not None:
                    parsed.refs.append(obj)
            if not isinstance(node, ast.Call):
                continue
            callee = _resolve(node.func, scope)
            if callee is not None:
                # A parameter passed on (a helper calling a helper) is the caller's code, not an unknown one.
                args = [
                    _PASSED_ON if isinstance(a, ast.Name) and a.id in params else _value(a, scope) for a in node.args
                ]
                parsed.calls.append((callee, args))
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
            status, code_node = None, None
            if name in CONSTRUCTORS and node.args:
                status, code_node = CONSTRUCTORS[name], node.args[0]
            elif name == "ApiError" and len(node.args) >= 2:
                first = node.args[0]
                status, code_node = (int(first.value) if isinstance(first, ast.Constant) else 0), node.args[1]
            if status is None or code_node is None:
                continue
            if isinstance(code_node, ast.Name) and code_node.id in params:
                parsed.helper = (params.index(code_node.id), status)
                continue
            code = _value(code_node, scope)
            parsed.sites.append(RaiseSite(_name(fn), status, code if isinstance(code, str) else None))
        return parsed


def _name(fn: Any) -> str:
    return f"{fn.__module__}.{fn.__qualname__}"


def _parameters(tree: ast.Module) -> list[str]:
    first = tree.body[0] if tree.body else None
    if isinstance(first, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return [a.arg for a in first.args.posonlyargs + first.args.args]
    return []


def _value(node: ast.AST, scope: dict[str, Any]) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    return _resolve(node, scope)


def _resolve(node: ast.AST, scope: dict[str, Any]) -> Any:
    if isinstance(node, ast.Name):
        return scope.get(node.id)
    if isinstance(node, ast.Attribute):
        base = _resolve(node.value, scope)
        if base is None or not (isinstance(base, (types.ModuleType, type)) or _ours(type(base))):
            return None
        try:
            return inspect.getattr_static(base, node.attr)
        except AttributeError:
            return None
    return None
