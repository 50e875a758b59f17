"""A real HTTP server on loopback that serves a recorded SSE body, for real SDKs to consume.

Bound to 127.0.0.1 only, on a port the OS picks; the body goes out in small chunked pieces
so clients see frames split across reads, as they do behind real gateways.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

HOST = "127.0.0.1"
PATH = "/v1/chat/completions"
PIECE = 7  # bytes per write: small and odd, so frames and UTF-8 characters get split


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hangs up early is normal (they stop reading at ``[DONE]`` or an error
        frame); anything else is printed as usual."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class SSEServer:
    """What the handler serves, and what it was asked."""

    def __init__(self, httpd: ThreadingHTTPServer) -> None:
        self.httpd = httpd
        self.body = b""
        self.piece = PIECE
        self.requests: list[bytes] = []

    @property
    def port(self) -> int:
        return int(self.httpd.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://{HOST}:{self.port}/v1"

    def serve(self, source: Path | bytes) -> None:
        """Answer the next requests with these bytes (a file's, or given)."""
        self.body = source.read_bytes() if isinstance(source, Path) else source


def _handler(state: list[SSEServer]) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # chunked transfer, as SSE servers send
        disable_nagle_algorithm = True  # each write goes out at once, as real servers send

        def do_POST(self) -> None:
            server = state[0]
            length = int(self.headers.get("Content-Length") or 0)
            server.requests.append(self.rfile.read(length))
            if self.path != PATH:
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            body, step = server.body, server.piece
            for i in range(0, len(body), step):
                piece = body[i : i + step]
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()

        def log_message(self, format: str, *args: object) -> None:
            pass  # keep test output clean

    return Handler


@pytest.fixture
def sse_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[SSEServer]:
    """A started server; ``serve(path)`` sets the body. Stopped and closed at teardown."""
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(var, raising=False)  # loopback must not go through a proxy
    state: list[SSEServer] = []
    httpd = _Server((HOST, 0), _handler(state))
    server = SSEServer(httpd)
    state.append(server)
    thread = threading.Thread(
        target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, name="sse-server", daemon=True
    )
    thread.start()
    try:
        yield server
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)
