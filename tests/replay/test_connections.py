"""Connections kept alive, as real upstreams keep them and gateways pool them.

HTTP/1.1 requests follow one another on one connection (pipelined ones too, answered in
order); HTTP/1.0 and ``connection: close`` get their answer and the close; an idle connection
is closed quietly after IDLE_TIMEOUT; HEAD gets a head only on every kind of answer; a drop
ends its connection. Raw sockets and httpx, on 127.0.0.1.
"""

from __future__ import annotations

import json
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import pytest

from sseconform.replay import server as server_module
from sseconform.replay.wire import IDLE_TIMEOUT
from tests.cli.helpers import cli_env
from tests.replay.conftest import (
    ANTHROPIC_TEXT,
    ANTHROPIC_TOOL,
    HOST,
    RECORDINGS_DIR,
    TEXT,
    client,
    fetch_raw,
    headers_for,
    rec,
    serving,
)


class Wire:
    """A raw connection that reads whole HTTP/1.1 responses by their framing, one at a time."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection((HOST, port), timeout=5)
        self.buf = b""

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def _more(self) -> None:
        chunk = self.sock.recv(65536)
        if not chunk:
            raise EOFError(self.buf[:200])
        self.buf += chunk

    def _take(self, n: int) -> bytes:
        while len(self.buf) < n:
            self._more()
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def _line(self) -> bytes:
        while b"\r\n" not in self.buf:
            self._more()
        line, _, self.buf = self.buf.partition(b"\r\n")
        return line

    def response(self, *, head_only: bool = False) -> tuple[int, dict[str, str], bytes]:
        """The next response: status, headers (lower-case names), body."""
        while b"\r\n\r\n" not in self.buf:
            self._more()
        head, _, self.buf = self.buf.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ", 2)[1])
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        if head_only:
            return status, headers, b""
        if headers.get("transfer-encoding") == "chunked":
            body = b""
            while size := int(self._line(), 16):
                body += self._take(size)
                assert self._take(2) == b"\r\n"
            assert self._line() == b""
            return status, headers, body
        return status, headers, self._take(int(headers.get("content-length", "0")))

    def rest(self) -> bytes:
        """Everything until the server closes."""
        while True:
            chunk = self.sock.recv(65536)
            if not chunk:
                out, self.buf = self.buf, b""
                return out
            self.buf += chunk

    def closed(self, timeout: float = 5.0) -> bool:
        """Whether the server closes the connection (cleanly) within ``timeout``, sending
        nothing more."""
        self.sock.settimeout(timeout)
        try:
            return self.sock.recv(1) == b"" and self.buf == b""
        except TimeoutError:
            return False

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def wire() -> Iterator[list[Wire]]:
    opened: list[Wire] = []
    yield opened
    for w in opened:
        w.close()


def _req(path: str, headers: dict[str, str] | None = None, method: str = "POST") -> bytes:
    lines = [f"{method} {path} HTTP/1.1", f"host: {HOST}", "content-length: 0"]
    lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def _ports(lines: list[str]) -> set[str]:
    """The client ports the log lines name: one per connection."""
    return {line.split(" ", 1)[0] for line in lines}


def _wait_for(lines: list[str], n: int) -> None:
    deadline = time.monotonic() + 3
    while len(lines) < n and time.monotonic() < deadline:
        time.sleep(0.01)


def test_requests_follow_one_another_on_one_connection() -> None:
    """A stream, a 404, a status fault, a bad fault header and a stream again: one connection,
    each answer complete, as httpx's pool sees it."""
    lines: list[str] = []
    with serving([TEXT, ANTHROPIC_TEXT], log=lines.append) as server, client() as http:
        url = server.url
        assert fetch_raw(http, url + "/v1/chat/completions") == (200, rec(TEXT).body, None)
        assert http.post(url + "/nope").status_code == 404
        resp = http.post(url + "/v1/messages", headers=headers_for(fault="status=429"))
        assert resp.status_code == 429 and resp.json()["type"] == "error"
        assert (
            http.post(url + "/v1/messages", headers=headers_for(fault="bogus")).status_code == 400
        )
        assert fetch_raw(http, url + "/v1/messages") == (200, rec(ANTHROPIC_TEXT).body, None)
        _wait_for(lines, 5)
    assert len(lines) == 5 and len(_ports(lines)) == 1, lines


def test_answers_say_how_long_an_idle_connection_is_kept(wire: list[Wire]) -> None:
    with serving([TEXT]) as server:
        w = Wire(server.port)
        wire.append(w)
        w.send(_req("/v1/chat/completions"))
        status, headers, body = w.response()
        assert (status, body) == (200, rec(TEXT).body)
        assert headers["keep-alive"] == f"timeout={IDLE_TIMEOUT}" and "connection" not in headers
        w.send(_req("/nope"))
        status, headers, _ = w.response()
        assert status == 404 and headers["keep-alive"] == f"timeout={IDLE_TIMEOUT}"


def test_pipelined_requests_are_answered_in_order(wire: list[Wire]) -> None:
    """Three requests sent at once; the first stalls, so the server is waiting (and watching
    for a hang-up) while the others arrive: nothing of them may be lost."""
    lines: list[str] = []
    with serving([TEXT, ANTHROPIC_TOOL], log=lines.append) as server:
        w = Wire(server.port)
        wire.append(w)
        w.send(
            _req("/v1/messages", headers_for(ANTHROPIC_TOOL, "stall=0.3@2"))
            + _req("/v1/chat/completions", headers_for(TEXT))
            + _req("/v1/chat/completions", {**headers_for(TEXT), "connection": "close"})
        )
        assert w.response()[::2] == (200, rec(ANTHROPIC_TOOL).body)
        assert w.response()[::2] == (200, rec(TEXT).body)
        status, headers, body = w.response()
        assert (status, body, headers.get("connection")) == (200, rec(TEXT).body, "close")
        assert w.closed()
        _wait_for(lines, 3)
    # each request whole, from its method on (the hang-up watch read the second's first byte)
    assert [line.split(" ")[1:3] for line in lines] == [
        ["POST", "/v1/messages"],
        ["POST", "/v1/chat/completions"],
        ["POST", "/v1/chat/completions"],
    ]


def test_head_gets_a_head_only_on_every_answer(wire: list[Wire]) -> None:
    with serving([TEXT]) as server:
        w = Wire(server.port)
        wire.append(w)
        for path, fault, status in [
            ("/v1/chat/completions", None, 405),  # a provider path takes POST alone
            ("/nope", None, 404),
            ("/v1/messages", "status=503", 405),
        ]:
            w.send(_req(path, headers_for(fault=fault), method="HEAD"))
            got, headers, _ = w.response(head_only=True)
            assert got == status
            assert "content-length" in headers or headers["transfer-encoding"] == "chunked"
        # had any of them sent a body, this answer would not parse
        w.send(_req("/v1/chat/completions"))
        assert w.response()[::2] == (200, rec(TEXT).body)


@pytest.mark.parametrize(
    "request_bytes",
    [
        b"POST /v1/chat/completions HTTP/1.0\r\ncontent-length: 0\r\n\r\n",
        b"POST /v1/chat/completions HTTP/1.1\r\nhost: t\r\nconnection: close\r\n"
        b"content-length: 0\r\n\r\n",
        b"POST /v1/chat/completions HTTP/1.1\r\nhost: t\r\nconnection: Keep-Alive, Close\r\n\r\n",
        b"POST /nope HTTP/1.1\r\nhost: t\r\nconnection: close\r\n\r\n",
    ],
    ids=["http-1.0", "connection-close", "close-in-a-list", "404-with-close"],
)
def test_http_1_0_and_connection_close_get_the_answer_then_the_close(
    wire: list[Wire], request_bytes: bytes
) -> None:
    with serving([TEXT]) as server:
        w = Wire(server.port)
        wire.append(w)
        w.send(request_bytes)
        if b"HTTP/1.0" in request_bytes:  # no chunks: the body ends with the close
            head, _, body = w.rest().partition(b"\r\n\r\n")
            assert b"connection: close" in head and b"transfer-encoding" not in head
            assert body == rec(TEXT).body
            return
        status, headers, _ = w.response()
        assert headers["connection"] == "close" and "keep-alive" not in headers
        assert status in (200, 404)
        assert w.closed()


def test_an_idle_connection_is_closed_quietly_after_the_idle_timeout(
    monkeypatch: pytest.MonkeyPatch, wire: list[Wire]
) -> None:
    monkeypatch.setattr(server_module, "IDLE_TIMEOUT", 0.4)
    with serving([TEXT]) as server:
        w = Wire(server.port)
        wire.append(w)
        for _ in range(3):  # used again before the timeout: still open
            w.send(_req("/v1/chat/completions"))
            assert w.response()[::2] == (200, rec(TEXT).body)
            time.sleep(0.2)
        t0 = time.monotonic()
        assert w.closed(timeout=3)  # nothing sent, just the close
        assert 0.1 < time.monotonic() - t0 < 1.5


def test_a_drop_ends_its_connection(wire: list[Wire]) -> None:
    with serving([TEXT]) as server:
        w = Wire(server.port)
        wire.append(w)
        w.send(_req("/v1/chat/completions", headers_for(fault="drop-after-events=2")))
        with pytest.raises((ConnectionResetError, EOFError)):
            w.response()


def test_stopping_with_kept_alive_connections_is_prompt() -> None:
    before = set(threading.enumerate())
    with serving([TEXT]) as server, client() as http:
        for _ in range(3):  # the pool keeps the connection open between requests
            assert fetch_raw(http, server.url + "/v1/chat/completions")[2] is None
        t0 = time.monotonic()
    assert time.monotonic() - t0 < 1.0
    assert set(threading.enumerate()) <= before


SERVING = re.compile(r"serving \d+ recording\(s\) on (http://[\d.]+:(\d+))")
MAIN = (
    "import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "sys.argv[0] = 'sseconform'; runpy.run_module('sseconform', run_name='__main__')"
)


def test_the_cli_stops_promptly_with_a_kept_alive_connection_open() -> None:
    """Regression guard: on Python 3.12+ the server's wait_closed() waits for every
    connection, so a pooled connection would have held SIGINT for the idle timeout."""
    proc = subprocess.Popen(
        [sys.executable, "-c", MAIN, "replay", str(RECORDINGS_DIR / "chat" / TEXT), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        env=cli_env(),
    )
    try:
        assert proc.stdout is not None
        m = SERVING.search(proc.stdout.readline())
        assert m, "the server printed no address"
        w = Wire(int(m.group(2)))
        try:
            w.send(_req("/v1/chat/completions", {"x-sseconform-fault": "status=429"}))
            assert w.response()[0] == 429  # answered; the connection stays open, idle
            t0 = time.monotonic()
            proc.send_signal(signal.SIGINT)
            out, err = proc.communicate(timeout=10)
            seconds = time.monotonic() - t0
        finally:
            w.close()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=10)
    assert proc.returncode == 0, err
    assert seconds < 3.0 and "Traceback" not in out + err
    assert "stopped" in err


def test_the_log_names_one_client_per_connection() -> None:
    """Two pooled clients, each two requests: two connections in the log."""
    lines: list[str] = []
    with serving([TEXT], log=lines.append) as server:
        for _ in range(2):
            with client() as http:
                for _ in range(2):
                    assert fetch_raw(http, server.url + "/v1/chat/completions")[2] is None
        _wait_for(lines, 4)
    assert len(lines) == 4 and len(_ports(lines)) == 2
    assert json.dumps(lines).count("(complete)") == 4
