"""Local HTTP servers for tests: a quiet threading server and a webhook receiver."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):  # a client that hung up: expected here
        pass


class Receiver:
    """Answers each POST with the next status of `script` (then 200) and keeps what it got."""

    def __init__(self) -> None:
        self.script: list[int] = []
        self.received: list[dict] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.received.append({"headers": dict(self.headers), "body": body, "path": self.path})
                status = receiver.script.pop(0) if receiver.script else 200
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks/dompet?x=1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
