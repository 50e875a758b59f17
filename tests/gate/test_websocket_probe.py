"""The WebSocket probe (``gate --transport websocket``): the gateway's answer to Codex CLI's
upgrade on the Responses path, classified, against replay's own WebSocket mode (accepted, and
each ``ws-refuse`` fault) and tiny raw servers for what replay never does (a close, a hang, a
101 then a close, a wrong accept token, an endless head). Every server binds 127.0.0.1."""

from __future__ import annotations

import base64
import hashlib
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest

from sseconform.gate.websocket_probe import BETA, MAX_HEAD, Answer, probe, probe_result
from sseconform.replay.plan import load
from sseconform.replay.server import ReplayServer
from sseconform.rules.catalog import Severity
from tests.conftest import ROOT

TEXT = ROOT / "recordings" / "responses" / "text-responses.jsonl"
KEY = "sk-probe-0123456789abcdef"
_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def _replay(fault: str | None = None) -> ReplayServer:
    return ReplayServer([load(str(TEXT))], speed=0, fault=fault)


def test_replay_websocket_mode_is_accepted() -> None:
    srv = _replay()
    with srv.running():
        answer = probe(f"{srv.url}/v1/responses", [("Authorization", f"Bearer {KEY}")])
    assert (answer.kind, answer.status, answer.label) == ("accepted", 101, "accepted")
    assert probe_result(answer).findings == []


@pytest.mark.parametrize(
    ("status", "severity"),
    [(404, Severity.WARNING), (405, Severity.WARNING), (426, None), (400, Severity.ERROR)],
)
def test_replay_refusing_the_upgrade(status: int, severity: Severity | None) -> None:
    srv = _replay(f"ws-refuse={status}")
    with srv.running():
        answer = probe(f"{srv.url}/v1/responses")
    assert (answer.kind, answer.status, answer.label) == ("refused", status, f"refused-{status}")
    result = probe_result(answer)
    assert [f.severity for f in result.findings] == ([] if severity is None else [severity])
    assert result.verdict == ("fail" if severity is Severity.ERROR else "pass")
    if status in (404, 405):
        assert "about 6.2 s lost per session" in result.findings[0].message
    if status == 400:
        assert "fails the turn" in result.findings[0].message


# -- raw servers: what a gateway may do that replay never does ---------------------------------

Handler = Callable[[socket.socket, bytes], None]


@contextmanager
def raw_server(handler: Handler) -> Iterator[tuple[str, list[bytes]]]:
    """A server on 127.0.0.1 that reads each request head and hands it to ``handler``; the
    heads it read are listed."""
    heads: list[bytes] = []
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            with conn:
                conn.settimeout(5)
                head = b""
                while b"\r\n\r\n" not in head and len(head) < 65536:
                    chunk = conn.recv(4096)
                    if not chunk:
                        break
                    head += chunk
                heads.append(head)
                handler(conn, head)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}", heads
    finally:
        stop.set()
        thread.join(5)
        listener.close()


def _accept_token(head: bytes) -> bytes:
    line = next(ln for ln in head.split(b"\r\n") if ln.lower().startswith(b"sec-websocket-key:"))
    key = line.split(b":", 1)[1].strip()
    return base64.b64encode(hashlib.sha1(key + _GUID).digest())


def _switch(conn: socket.socket, accept: bytes) -> None:
    conn.sendall(
        b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        b"Sec-WebSocket-Accept: " + accept + b"\r\n\r\n"
    )


def _close(conn: socket.socket, head: bytes) -> None:
    """Closes the connection without a word."""


def _hang(conn: socket.socket, head: bytes) -> None:
    time.sleep(1.0)  # longer than the probe's budget in the test


def _switch_then_close(conn: socket.socket, head: bytes) -> None:
    _switch(conn, _accept_token(head))


def _switch_then_close_frame(conn: socket.socket, head: bytes) -> None:
    _switch(conn, _accept_token(head))
    conn.sendall(b"\x88\x02\x03\xe8")  # Close 1000
    time.sleep(0.5)


def _switch_and_stay(conn: socket.socket, head: bytes) -> None:
    _switch(conn, _accept_token(head))
    time.sleep(0.5)


def _wrong_accept(conn: socket.socket, head: bytes) -> None:
    _switch(conn, base64.b64encode(b"x" * 20))
    time.sleep(0.5)


def _ok_200(conn: socket.socket, head: bytes) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok")


def _endless_head(conn: socket.socket, head: bytes) -> None:
    conn.sendall(b"HTTP/1.1 101 Switching Protocols\r\n")
    for _ in range(64):  # 64 x 1 KiB of headers: over the probe's cap
        try:
            conn.sendall(b"x-filler: " + b"a" * 1010 + b"\r\n")
        except OSError:
            return


def _half_head(conn: socket.socket, head: bytes) -> None:
    conn.sendall(b"HTTP/1.1 404 Not")  # and then nothing: no end of head
    time.sleep(1.0)


@pytest.mark.parametrize(
    ("handler", "kind", "status", "said", "severity"),
    [
        (_close, "closed", None, "without an answer", Severity.WARNING),
        (_hang, "hang", None, "no answer within", Severity.ERROR),
        (_switch_then_close, "closed", 101, "closed the connection at once", Severity.WARNING),
        (_switch_then_close_frame, "closed", 101, "Close frame (code 1000)", Severity.WARNING),
        (_switch_and_stay, "accepted", 101, "correct Sec-WebSocket-Accept", None),
        (_wrong_accept, "not-websocket", 101, "a wrong Sec-WebSocket-Accept", Severity.WARNING),
        (_ok_200, "not-websocket", 200, "HTTP 200 OK, not 101", Severity.WARNING),
        (_endless_head, "not-websocket", None, f"over {MAX_HEAD} bytes", Severity.WARNING),
        (_half_head, "hang", None, "(part of a head)", Severity.ERROR),
    ],
    ids=lambda v: getattr(v, "__name__", None),
)
def test_raw_answers_are_classified(
    handler: Handler, kind: str, status: int | None, said: str, severity: Severity | None
) -> None:
    with raw_server(handler) as (url, _):
        answer = probe(f"{url}/v1/responses", [("Authorization", f"Bearer {KEY}")], budget=0.5)
    assert (answer.kind, answer.status) == (kind, status), answer
    assert said in answer.detail
    assert answer.seconds < 0.5 + 0.5  # the budget holds, whatever the gateway does
    found = probe_result(answer).findings
    assert [f.severity for f in found] == ([] if severity is None else [severity])
    if kind == "hang":
        assert "waits 15 s on each of 7 attempts" in found[0].message


def test_the_upgrade_is_sent_as_codex_sends_it() -> None:
    """GET on the Responses path, the upgrade's headers in Codex CLI's order, the key as a
    Bearer token, the beta header; a caller's own Upgrade or Host cannot replace them."""
    with raw_server(_close) as (url, heads):
        probe(
            f"{url}/v1/responses?x=1",
            [("Authorization", f"Bearer {KEY}"), ("Upgrade", "h2c"), ("x-extra", "1")],
            budget=1,
        )
    lines = heads[0].decode().split("\r\n")
    assert lines[0] == "GET /v1/responses?x=1 HTTP/1.1"
    names = [ln.split(":", 1)[0].lower() for ln in lines[1:] if ln]
    assert names[:5] == [
        "host",
        "connection",
        "upgrade",
        "sec-websocket-version",
        "sec-websocket-key",
    ]
    assert names[-1] == "openai-beta" and f"openai-beta: {BETA}" in heads[0].decode().lower()
    assert f"Authorization: Bearer {KEY}" in lines and "x-extra: 1" in lines
    assert "Upgrade: websocket" in lines and "Upgrade: h2c" not in lines
    assert len(base64.b64decode(lines[5].split(": ")[1])) == 16  # a random 16-byte key


def test_nothing_listening_is_no_response() -> None:
    with socket.create_server(("127.0.0.1", 0)) as s:
        port = s.getsockname()[1]
    answer = probe(f"http://127.0.0.1:{port}/v1/responses", budget=1)
    assert answer.kind == "unreachable"
    result = probe_result(answer)
    assert [(f.key, f.severity) for f in result.findings] == [
        ("transport:no-response", Severity.ERROR)
    ]


@pytest.mark.parametrize("url", ["ftp://127.0.0.1/v1/responses", "127.0.0.1:80", "http:///x"])
def test_a_bad_url_is_refused(url: str) -> None:
    with pytest.raises(ValueError, match="not an http"):
        probe(url)


def test_answer_labels() -> None:
    assert Answer("refused", "u", 405).label == "refused-405"
    assert Answer("hang", "u").label == "hang"
