"""replay reads HTTP/1.1 requests as h11 does: the same raw requests go to a running
replay server on 127.0.0.1 and to h11, and both must accept or both refuse each one.

Every leniency h11 has is one RFC 9112 allows a recipient, and replay has it too: a lone LF
as a line end, obs-fold joined with a space, controls other than NUL/CR/LF/VT/FF in a value,
the same content-length twice. A version it does not speak is read, then declined (505).
``Expect: 100-continue`` is answered before the body is read.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import h11
import pytest

from sseconform.replay.server import ReplayServer
from tests.replay.conftest import HOST, serving

BODY = b'{"model": "m", "stream": true, "messages": []}'
LINE = b"POST /v1/chat/completions HTTP/1.1\r\n"


def req(*headers: bytes, body: bytes = BODY, line: bytes = LINE, length: bool = True) -> bytes:
    head = [b"host: t", *headers]
    if length:
        head.append(b"content-length: %d" % len(body))
    return line + b"".join(h + b"\r\n" for h in head) + b"\r\n" + body


def chunked(*chunk_lines: bytes, trailers: tuple[bytes, ...] = ()) -> bytes:
    """A chunked request whose body is ``chunk_lines`` (each a size line and its data)."""
    body = b"".join(chunk_lines) + b"0\r\n" + b"".join(t + b"\r\n" for t in trailers) + b"\r\n"
    return req(b"transfer-encoding: chunked", body=body, length=False)


def one(data: bytes) -> bytes:
    n = len(data)
    return b"%x\r\n" % n + data + b"\r\n"


REQUESTS: dict[str, bytes] = {
    "plain": req(),
    "HTTP/1.0 without host": b"POST /v1/chat/completions HTTP/1.0\r\ncontent-length: 2\r\n\r\n{}",
    "HTTP/1.1 without host": LINE + b"content-length: 2\r\n\r\n{}",
    "obs-text in a value": req(b"x-note: caf\xe9 \xff"),
    "empty value": req(b"x-empty:"),
    "blanks around a value": req(b"x-a: \t v \t"),
    "a tab inside a value": req(b"x-a: a\tb"),
    "space before the colon": req(b"x-a : v"),
    "no colon": req(b"x-a v"),
    "a bad name": req(b"x(a): v"),
    "a bad request line": b"POST  /v1 HTTP/1.1\r\nhost: t\r\n\r\n",
    "an unknown version": b"POST /v1 HTTP/2.0\r\nhost: t\r\n\r\n",
    "a lower-case version": b"POST /v1 http/1.1\r\nhost: t\r\n\r\n",
    "a bare LF line end": b"POST /v1 HTTP/1.1\nhost: t\n\n",
    "two content-lengths that differ": req(b"content-length: 3"),
    "the same content-length twice": req(b"content-length: %d" % len(BODY)),
    "obs-fold": req(b"x-a: one", b" two"),
    "a control character in a value": req(b"x-a: a\x01b"),
    "DEL in a value": req(b"x-a: a\x7fb"),
    "a content-length with a sign": req(b"content-length: +5", body=b"", length=False),
    "both framings": req(b"transfer-encoding: chunked"),
    "gzip transfer coding": req(b"transfer-encoding: gzip", length=False),
    "chunked": chunked(one(BODY)),
    "chunked in two": chunked(one(BODY[:9]), one(BODY[9:])),
    "chunk extension": chunked(b"%x;name=value\r\n" % len(BODY) + BODY + b"\r\n"),
    "blanks after the size": chunked(b"%x  \r\n" % len(BODY) + BODY + b"\r\n"),
    "a blank before the size": chunked(b" %x\r\n" % len(BODY) + BODY + b"\r\n"),
    "VT after the size": chunked(b"%x\x0b\r\n" % len(BODY) + BODY + b"\r\n"),
    "FF after the size": chunked(b"%x\x0c\r\n" % len(BODY) + BODY + b"\r\n"),
    "a size that is not hex": chunked(b"zz\r\n" + BODY + b"\r\n"),
    "a trailer field": chunked(one(BODY), trailers=(b"x-checksum: abc",)),
    "two trailer fields": chunked(one(BODY), trailers=(b"x-a: 1", b"x-b: caf\xe9")),
    "a trailer that is not a field": chunked(one(BODY), trailers=(b"not a field",)),
    "a chunk longer than its size": chunked(b"2\r\nabc\r\n"),
    "upper-case hex": chunked(b"%X\r\n" % len(BODY) + BODY + b"\r\n"),
}

#: Answers to a head replay read as h11 reads it, then declined: h11 reads any HTTP/x.y and
#: leaves the version to the server, which answers 505 to one it does not speak (RFC 9110
#: 15.6.6), as nginx does. Not a parse refusal.
DECLINED = {505}
#: Answers that say the request could not be read.
REFUSED = {0, 400, 411, 413, 417, 431, 501}


def h11_accepts(data: bytes) -> bool:
    conn = h11.Connection(h11.SERVER)
    conn.receive_data(data)
    conn.receive_data(b"")
    try:
        while True:
            event = conn.next_event()
            if isinstance(event, h11.EndOfMessage):
                return True
            if event is h11.NEED_DATA or isinstance(event, h11.ConnectionClosed):
                return False
    except h11.RemoteProtocolError:
        return False


def replay_status(server: ReplayServer, data: bytes) -> int:
    """The status replay answers ``data`` with (0: it closed without an answer)."""
    port = int(server.url.rsplit(":", 1)[1])
    with socket.create_connection((HOST, port), timeout=10) as sock:
        sock.sendall(data)
        sock.shutdown(socket.SHUT_WR)
        got = b""
        while b"\r\n" not in got:
            piece = sock.recv(4096)
            if not piece:
                break
            got += piece
    line = got.split(b"\r\n", 1)[0].split(b" ")
    return int(line[1]) if len(line) > 1 and line[1].isdigit() else 0


@pytest.fixture(scope="module")
def server() -> Iterator[ReplayServer]:
    with serving() as s:
        yield s


@pytest.mark.parametrize("name", sorted(REQUESTS))
def test_replay_and_h11_agree(server: ReplayServer, name: str) -> None:
    data = REQUESTS[name]
    theirs = h11_accepts(data)
    status = replay_status(server, data)
    ours = status not in REFUSED
    assert ours == theirs, (
        f"{name}: replay answered {status}, h11 {'accepts' if theirs else 'refuses'}"
    )


def test_an_unknown_version_is_read_then_declined(server: ReplayServer) -> None:
    assert h11_accepts(REQUESTS["an unknown version"])
    assert replay_status(server, REQUESTS["an unknown version"]) == 505


def test_the_corpus_has_both_answers() -> None:
    verdicts = {h11_accepts(d) for d in REQUESTS.values()}
    assert verdicts == {True, False}


@pytest.mark.parametrize("version", ["HTTP/1.1"])
def test_expect_100_continue_is_answered_before_the_body(
    server: ReplayServer, version: str
) -> None:
    """A client that asks (libcurl does for bodies over 1 MB) gets ``100 Continue`` at
    once, sends the body, then gets its answer: no second lost waiting."""
    port = int(server.url.rsplit(":", 1)[1])
    head = (
        f"POST /v1/chat/completions {version}\r\nhost: t\r\nexpect: 100-continue\r\n"
        f"content-length: {len(BODY)}\r\n\r\n"
    ).encode()
    with socket.create_connection((HOST, port), timeout=10) as sock:
        t0 = time.monotonic()
        sock.sendall(head)
        interim = sock.recv(64)
        waited = time.monotonic() - t0
        assert interim.startswith(b"HTTP/1.1 100 Continue\r\n\r\n"), interim
        sock.sendall(BODY)
        rest = interim[len(b"HTTP/1.1 100 Continue\r\n\r\n") :]
        while b"\r\n" not in rest:
            rest += sock.recv(4096)
    assert rest.startswith(b"HTTP/1.1 200"), rest[:80]
    assert (
        waited < 0.9
    )  # the client's own wait is 1 s; a loaded machine still answers well inside it


def test_an_expectation_replay_cannot_meet_is_417(server: ReplayServer) -> None:
    assert replay_status(server, req(b"expect: something-else")) == 417


@pytest.mark.parametrize("method", ["GET", "DELETE", "PUT", "FROB", "HEAD"])
@pytest.mark.parametrize(
    "path", ["/v1/chat/completions", "/v1/messages", "/v1/responses",
             "/v1beta/models/gemini-2.5-flash:streamGenerateContent"],
)  # fmt: skip
def test_a_provider_path_takes_post_alone(server: ReplayServer, method: str, path: str) -> None:
    """As the providers answer: 405 with ``Allow: POST``, never a stream."""
    port = int(server.url.rsplit(":", 1)[1])
    with socket.create_connection((HOST, port), timeout=10) as sock:
        sock.sendall(f"{method} {path} HTTP/1.1\r\nhost: t\r\nconnection: close\r\n\r\n".encode())
        got = b""
        while piece := sock.recv(65536):
            got += piece
    head, _, body = got.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 405 "), head
    assert b"\r\nallow: POST" in head.lower().replace(b"allow: post", b"allow: POST")
    assert (body == b"") == (method == "HEAD")
