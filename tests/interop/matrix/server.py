"""The matrix's loopback server: one route per case, every request logged.

Each case is served under its own prefix, ``http://127.0.0.1:PORT/k/<key>``, so one client
process can run every case of a grammar. Under a prefix:

* a POST to ``.../chat/completions``, ``.../messages`` or ``.../responses`` that asks for a
  stream gets the case's body, status 200, ``text/event-stream``, in small chunked pieces
  (as ``tests/interop/conftest.py``'s server sends); the same request without ``stream: true``
  (a client falling back to a plain request) gets a 400 error JSON, so what the client shows
  comes from the stream alone;
* ``.../messages/count_tokens`` and ``GET .../models`` get minimal correct answers;
* a route may give a ``followup`` body for the streaming requests after the first (a CLI that
  sends tool results back gets a plain text answer, not the same case again); without one,
  a later streaming request (a retry, a continuation) is refused with a 400, so a CLI that
  retries sees the case once;
* anything else is a 404 error JSON.

Every request is logged with its route, method, path, whether it asked for a stream, and the
status it got.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.interop.conftest import HOST, PIECE, _Server

STREAM_ENDS = ("/chat/completions", "/messages", "/responses", ":streamGenerateContent")
#: Gemini asks for a stream by its method's name, not with ``stream: true``.
GEMINI_STREAM = ":streamGenerateContent"
MODELS = {
    "object": "list",
    "data": [{"id": "gpt-test", "object": "model", "created": 1700000000, "owned_by": "test"}],
    "has_more": False,
}


@dataclass
class Seen:
    """One request the server answered."""

    key: str
    method: str
    path: str
    stream: bool | None
    status: int

    def line(self) -> str:
        """The request in a few words: ``POST /v1/messages stream -> 200``."""
        kind = {True: " stream", False: " no-stream", None: ""}[self.stream]
        return f"{self.method} {self.path}{kind} -> {self.status}"


@dataclass
class Route:
    body: bytes
    followup: bytes | None = None
    streams: int = 0


@dataclass
class MockServer:
    """Routes by key; ``start()`` binds 127.0.0.1 on a free port."""

    routes: dict[str, Route] = field(default_factory=dict)
    log: list[Seen] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    httpd: _Server | None = None
    thread: threading.Thread | None = None

    def add(self, key: str, body: bytes, followup: bytes | None = None) -> str:
        """Serve ``body`` under ``key``; returns the route's base URL (no ``/v1``)."""
        self.routes[key] = Route(body, followup)
        return self.url(key)

    def url(self, key: str) -> str:
        assert self.httpd is not None, "start() the server first"
        return f"http://{HOST}:{self.httpd.server_address[1]}/k/{key}"

    def requests(self, key: str) -> list[Seen]:
        with self.lock:
            return [s for s in self.log if s.key == key]

    def start(self) -> MockServer:
        self.httpd = _Server((HOST, 0), _handler(self))
        self.thread = threading.Thread(
            target=self.httpd.serve_forever,
            kwargs={"poll_interval": 0.02},
            name="matrix-server",
            daemon=True,
        )
        self.thread.start()
        return self

    def stop(self) -> None:
        if self.httpd is not None:
            self.httpd.shutdown()
            self.httpd.server_close()
        if self.thread is not None:
            self.thread.join(timeout=5)

    def __enter__(self) -> MockServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _error(message: str) -> dict[str, Any]:
    """An error body both OpenAI's and Anthropic's clients read."""
    return {"type": "error", "error": {"type": "invalid_request_error", "message": message}}


def _handler(server: MockServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # each write goes out at once, as real servers send

        def _route(self) -> tuple[str, str, Route | None]:
            parts = self.path.split("?", 1)[0].split("/", 3)  # "", "k", key, rest
            if len(parts) < 3 or parts[1] != "k":
                return "", self.path, None
            key = parts[2]
            return key, "/" + (parts[3] if len(parts) > 3 else ""), server.routes.get(key)

        def _note(self, key: str, path: str, stream: bool | None, status: int) -> None:
            with server.lock:
                server.log.append(Seen(key, self.command, path, stream, status))

        def _json(self, status: int, obj: Any) -> None:
            data = json.dumps(obj).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _sse(self, body: bytes) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for i in range(0, len(body), PIECE):
                piece = body[i : i + PIECE]
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()

        def do_GET(self) -> None:
            key, path, route = self._route()
            if route is not None and path.rstrip("/").endswith("/models"):
                self._note(key, path, None, 200)
                self._json(200, MODELS)
                return
            self._note(key, path, None, 404)
            self._json(404, _error(f"not served here: GET {path}"))

        def do_POST(self) -> None:
            key, path, route = self._route()
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            try:
                sent = json.loads(raw) if raw else {}
            except ValueError:
                sent = {}
            stream = bool(sent.get("stream")) if isinstance(sent, dict) else False
            stream = stream or path.endswith(GEMINI_STREAM)
            if route is not None and path.endswith("/messages/count_tokens"):
                self._note(key, path, None, 200)
                self._json(200, {"input_tokens": 1})
                return
            if route is None or not path.endswith(STREAM_ENDS):
                self._note(key, path, stream, 404)
                self._json(404, _error(f"not served here: POST {path}"))
                return
            if not stream:
                self._note(key, path, stream, 400)
                self._json(400, _error("this server answers streaming requests only"))
                return
            with server.lock:
                route.streams += 1
                first = route.streams == 1
            if not first and route.followup is None:
                self._note(key, path, stream, 400)
                self._json(400, _error("this server answers one streaming request per case"))
                return
            body = route.body if first else route.followup
            assert body is not None
            self._note(key, path, stream, 200)
            self._sse(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    return Handler
