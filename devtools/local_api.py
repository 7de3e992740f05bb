"""`chalice local` as the local stack's API Gateway, answering an unknown path as the deployed API does.

Chalice's local gateway imitates API Gateway's default for a path that matches no route:
`403 {"message": "Missing Authentication Token"}`, outside the envelope. The deployed API maps that gateway
response to `404 NOT_FOUND` in the envelope (infra/gateway_responses.py); this runs the same local server with
its gateway patched to answer that body. A method a known path does not declare still reaches the app, which
answers 405 METHOD_NOT_ALLOWED, as on AWS (infra/stack.py routes undeclared methods to the API function).

    python -m devtools.local_api --host 127.0.0.1 --port 8000 --stage local

Development only: nothing in chalicelib imports it.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

from chalice.app import Chalice
from chalice.cli import run_local_server
from chalice.cli.factory import CLIFactory
from chalice.config import Config
from chalice.local import (
    ChaliceRequestHandler,
    LocalDevServer,
    LocalGateway,
    LocalGatewayException,
    ThreadedHTTPServer,
)

from infra.gateway_responses import NO_ROUTE

ROOT = Path(__file__).resolve().parents[1]


class UnknownPath(LocalGatewayException):
    CODE = NO_ROUTE.status


def unknown_path_body() -> bytes:
    return NO_ROUTE.body().encode()


class _Gateway(LocalGateway):
    def _generate_lambda_event(self, method: str, path: str, headers: Any, body: bytes | None) -> Any:
        try:
            return super()._generate_lambda_event(method, path, headers, body)
        except ValueError:
            # Chalice's route matcher found no route (its only ValueError here); it would answer 403 below.
            raise UnknownPath({"Content-Type": "application/json"}, unknown_path_body()) from None


class _RequestHandler(ChaliceRequestHandler):
    def __init__(
        self, request: Any, client_address: tuple[str, int], server: HTTPServer, app_object: Chalice, config: Config
    ) -> None:
        # As ChaliceRequestHandler.__init__, with the patched gateway (the base handles the request in __init__).
        self.local_gateway = _Gateway(app_object, config)
        BaseHTTPRequestHandler.__init__(self, request, client_address, server)


class _Server(ThreadedHTTPServer):
    # socketserver's default backlog (5) resets connections when a client opens more at once (16 sends).
    request_queue_size = 128


class _Factory(CLIFactory):  # type: ignore[misc]
    def create_local_server(self, app_obj: Chalice, config: Config, host: str, port: int) -> LocalDevServer:
        return LocalDevServer(app_obj, config, host, port, handler_cls=_RequestHandler, server_cls=_Server)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--stage", default="local")
    args = parser.parse_args(argv)
    # What `chalice local --no-autoreload` sets up before it serves (chalice/cli/__init__.py).
    os.environ["AWS_CHALICE_CLI_MODE"] = "true"
    os.chdir(ROOT)
    logging.basicConfig(stream=sys.stdout, level=logging.INFO, format="%(message)s")
    run_local_server(_Factory(str(ROOT), False, environ=os.environ), args.host, args.port, args.stage)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
