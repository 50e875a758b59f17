"""replay against hostile clients: a smuggled request, a client that stops reading, many
connections each sending a large body, a body nested 100,000 deep. Each is refused or
dropped, logged, and the server keeps serving a well-behaved client."""

from __future__ import annotations

import dataclasses
import logging
import socket
import threading
import time

import pytest

from sseconform.replay import server as replay_server
from sseconform.replay import wire
from tests.replay.conftest import ANTHROPIC_TEXT, HOST, raw_exchange, rec, serving

REQ = b"POST /v1/messages HTTP/1.1\r\nhost: t\r\n"


def _normal_request_works(port: int) -> None:
    raw = raw_exchange(port, REQ + b"content-length: 0\r\nconnection: close\r\n\r\n")
    assert raw.startswith(b"HTTP/1.1 200 OK\r\n"), raw[:200]
    assert raw.endswith(b"0\r\n\r\n")


@pytest.mark.parametrize(
    "smuggle",
    [
        b"content-length: 4\r\ncontent-length: 66\r\n\r\n",
        b"content-length: 66\r\ntransfer-encoding: chunked\r\n\r\n",
        b"transfer-encoding: chunked\r\ntransfer-encoding: identity\r\n\r\n",
        b"transfer-encoding: chunked, identity\r\ncontent-length: 66\r\n\r\n",
    ],
)
def test_a_smuggled_second_request_is_never_served(smuggle: bytes) -> None:
    second = REQ + b"content-length: 0\r\n\r\n"
    lines: list[str] = []
    with serving([ANTHROPIC_TEXT], log=lines.append) as server:
        raw = raw_exchange(server.port, REQ + smuggle + b"0\r\n\r\n" + second)
        _normal_request_works(server.port)
    assert raw.startswith(b"HTTP/1.1 4") or raw.startswith(b"HTTP/1.1 501"), raw[:200]
    assert raw.count(b"HTTP/1.1 ") == 1, "a second answer: the smuggled request was served"
    assert b"event: message_start" not in raw
    assert any("refused:" in line for line in lines), lines


def test_a_client_that_stops_reading_is_dropped(monkeypatch: pytest.MonkeyPatch) -> None:
    """A stream much larger than the socket buffers, to a client that never reads: the write
    times out (WRITE_TIMEOUT, shortened here) and the connection is let go."""
    monkeypatch.setattr(wire, "WRITE_TIMEOUT", 0.5)
    text = rec(ANTHROPIC_TEXT)
    big = dataclasses.replace(text, name="big.jsonl", reads=[(0.0, text.body * 20000)])
    lines: list[str] = []  # ~30 MB, far beyond any socket buffer
    server = replay_server.ReplayServer([big], host=HOST, port=0, speed=0, log=lines.append)
    with server.running():
        s = socket.create_connection((HOST, server.port))
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.sendall(REQ + b"content-length: 0\r\n\r\n")
        deadline = time.monotonic() + 10
        while not lines and time.monotonic() < deadline:
            time.sleep(0.05)
        s.close()
        assert lines, "the server still waits on a client that does not read"
        assert "big.jsonl 200" in lines[0] and "client stopped reading" in lines[0], lines


def test_request_bytes_in_flight_are_capped_server_wide(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ten connections each announcing a 200 KB body and sending it slowly: past the
    server-wide cap (shortened to 1 MB here) the next is answered 503 at once."""
    monkeypatch.setattr(replay_server, "MAX_BUFFERED", 1_000_000)
    lines: list[str] = []
    with serving([ANTHROPIC_TEXT], log=lines.append) as server:
        held = []
        for _ in range(10):
            s = socket.create_connection((HOST, server.port), timeout=5)
            s.sendall(REQ + b"content-length: 200000\r\n\r\n{")
            held.append(s)
        answers = []
        for s in held:
            s.settimeout(0.5)
            try:
                answers.append(s.recv(100))
            except TimeoutError:
                answers.append(b"")  # still being read: it counts against the cap
        _normal_request_works(server.port)  # a request without a body still goes through
        for s in held:
            s.close()
    refused = [a for a in answers if a.startswith(b"HTTP/1.1 503 ")]
    assert len(refused) == 5, answers
    assert sum(" 503 " in line for line in lines) == 5


def test_a_body_nested_100k_deep_is_answered_without_a_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    deep = b'{"model": "x", "messages": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    flat = b'{"messages": [' + b"{}," * 3_000_000 + b'{}], "model": "claude-haiku-4-5"}'
    with caplog.at_level(logging.DEBUG), serving([ANTHROPIC_TEXT]) as server:
        for body in (deep, flat):
            raw = raw_exchange(
                server.port,
                REQ + b"content-length: %d\r\nconnection: close\r\n\r\n" % len(body) + body,
                timeout=30,
            )
            assert raw.startswith(b"HTTP/1.1 200 ") or raw.startswith(b"HTTP/1.1 404 "), raw[:100]
        _normal_request_works(server.port)
    assert "Traceback" not in caplog.text and "RecursionError" not in caplog.text
    assert threading.active_count() < 50
