"""The Chalice app whose routes and functions are imported when they first run.

Every Lambda function's cold start is the import of `app.py`. It declares each route (from the generated
`chalicelib/route_table.py`) and each function (from resources.FUNCTIONS) with a placeholder, so that import is
Chalice, the settings and these tables. The first event a placeholder gets wires the hooks (`prepare`), imports the
module that serves it and calls the real handler: a function imports only what it runs, and the API function only
the routes it has been asked for.

A route module is loaded by registering its blueprint, which replaces the module's placeholders with its real
routes; the table matches the modules exactly (tests/unit/test_lazy_app.py), so Chalice's routing, content-type
check and `chalice package` see the same routes either way.

The request being served (`current_request`, what every view reads through its blueprint) and the Lambda context
are kept per thread: Chalice keeps them on the app object, and the local server serves requests on threads of one
process, so a request could otherwise read another's (Lambda serves one at a time).
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from chalice import Chalice
from chalice.app import Blueprint, Request

from chalicelib.platform import resources

_PLACEHOLDER = "_dompet_placeholder"


class DeclaredRoute(NamedTuple):
    """One route as `chalicelib/route_table.py` lists it."""

    method: str
    path: str
    content_types: tuple[str, ...]
    module: str  # the module whose `bp` declares it
    view: str  # the view's name (Chalice's name for the route)


class LoadError(RuntimeError):
    """A module did not declare what the table says it does: the table is stale (a deployment error)."""


class LazyChalice(Chalice):
    def __init__(self, app_name: str, prepare: Callable[[], None]) -> None:
        self._per_thread = threading.local()  # before Chalice's __init__, which sets current_request
        super().__init__(app_name=app_name)
        self._prepare = prepare
        self._prepared = False
        self._loaded: set[str] = set()
        self._route_modules: set[str] = set()
        # Held while a module is imported and registered: concurrent first requests wait for one load.
        self._loading = threading.RLock()

    @property  # type: ignore[override]
    def current_request(self) -> Request | None:
        request: Request | None = getattr(self._per_thread, "request", None)
        return request

    @current_request.setter
    def current_request(self, request: Request | None) -> None:
        self._per_thread.request = request

    @property  # type: ignore[override]
    def lambda_context(self) -> Any:
        return getattr(self._per_thread, "context", None)

    @lambda_context.setter
    def lambda_context(self, context: Any) -> None:
        self._per_thread.context = context

    def declare_routes(self, routes: Iterable[DeclaredRoute]) -> None:
        for declared in routes:
            self._route_modules.add(declared.module)
            view = self._route_placeholder(declared)
            self.route(declared.path, methods=[declared.method], content_types=list(declared.content_types))(view)

    def declare_functions(self, functions: Iterable[resources.Function], stage: str) -> dict[str, Any]:
        """Register each function that names an `entry`; returns the handlers by name (app.py's module attributes,
        which the functions' Lambda handler strings `app.<name>` name)."""
        handlers: dict[str, Any] = {}
        for function in functions:
            if not function.entry:
                continue
            placeholder = self._function_placeholder(function.name, function.entry)
            if function.consumes:
                (queue,) = function.consumes
                register = self.on_sqs_message(
                    queue=resources.queue_name(stage, queue),
                    batch_size=function.batch_size,
                    maximum_concurrency=function.background_concurrency,
                )
            elif function.schedule:
                register = self.schedule(function.schedule)
            else:
                register = self.lambda_function(name=function.name)
            handlers[function.name] = register(placeholder)
        return handlers

    def load(self, module_name: str) -> Any:
        """Import a module that serves routes or functions (once), after wiring the hooks; its blueprint, if it has
        one, replaces its placeholders."""
        with self._loading:
            if not self._prepared:
                self._prepare()
                self._prepared = True
            module = importlib.import_module(module_name)
            if module_name not in self._loaded:
                blueprint = getattr(module, "bp", None)
                if isinstance(blueprint, Blueprint):
                    self.register_blueprint(blueprint)
                self._loaded.add(module_name)
            return module

    def load_all(self) -> None:
        """Every route module (the OpenAPI document describes every route)."""
        for module_name in sorted(self._route_modules):
            self.load(module_name)

    def _register_route(self, name: str, user_handler: Any, kwargs: Any, **unused: Any) -> None:
        # Chalice builds the entry (on a scratch app); it then replaces the placeholder in one assignment, so a
        # concurrent request finds one or the other. A route registered twice is still refused.
        scratch = Chalice(app_name=self.app_name)
        scratch.api.cors = self.api.cors
        scratch._register_route(name, user_handler, kwargs, **unused)
        for path, methods in scratch.routes.items():
            for method, entry in methods.items():
                current = self.routes[path].get(method)
                if current is not None and not getattr(current.view_function, _PLACEHOLDER, False):
                    raise ValueError(f"{method} {path} is declared by {current.view_name} and {entry.view_name}")
                self.routes[path][method] = entry

    def _route_placeholder(self, declared: DeclaredRoute) -> Callable[..., Any]:
        def view(**path_params: str) -> Any:
            self.load(declared.module)
            entry = self.routes[declared.path][declared.method]
            if getattr(entry.view_function, _PLACEHOLDER, False):
                raise LoadError(f"{declared.module} does not declare {declared.method} {declared.path}")
            return entry.view_function(**path_params)

        view.__name__ = view.__qualname__ = declared.view
        setattr(view, _PLACEHOLDER, True)
        return view

    def _function_placeholder(self, name: str, entry: str) -> Callable[..., Any]:
        def handler(*args: Any) -> Any:
            run = getattr(self.load(entry), name, None)
            if not callable(run):
                raise LoadError(f"{entry} has no function {name}")
            return run(*args)

        handler.__name__ = handler.__qualname__ = name
        return handler


def load_all(app: Chalice) -> None:
    """Every route of `app` imported, if it declares them lazily (a test's app registers its blueprints itself)."""
    if isinstance(app, LazyChalice):
        app.load_all()
