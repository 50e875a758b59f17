"""replay's HTTP/1.1 rules, without a socket: what a request head may be, how its body is
framed, and that no response head can say more than it means."""

from __future__ import annotations

import pytest

from sseconform.replay.http11 import (
    CHUNKED,
    MAX_BODY,
    BadRequest,
    body_length,
    chunk_size,
    keeps_alive,
    parse_head,
    plain_head,
    response_head,
)

HOST = b"host: t\r\n"


def head(*lines: bytes, first: bytes = b"POST /v1/messages HTTP/1.1") -> bytes:
    return b"\r\n".join([first, *lines]) + b"\r\n\r\n"


GOOD = {
    "plain": head(b"host: t", b"content-length: 5"),
    "http/1.0 without host": head(first=b"POST / HTTP/1.0"),
    "a list header repeated": head(b"host: t", b"accept: a", b"accept: b"),
    "tab in a value": head(b"host: t", b"x-a: a\tb"),
    # the leniencies RFC 9112 allows a recipient, which h11 has too
    "the same content-length twice": head(b"host: t", b"content-length: 5", b"content-length: 5"),
    "a folded header": head(b"host: t", b"x-a: 1", b" folded"),
    "lone LF line ends": b"POST /v1/messages HTTP/1.1\nhost: t\n\n",
    "a control or DEL in a value": head(b"host: t", b"x-a: a\x01b\x7f"),
}


def test_lenient_heads_read_as_h11_reads_them() -> None:
    folded = parse_head(head(b"host: t", b"x-a: one", b" \t two", b"\tthree"))
    assert folded.headers["x-a"] == "one two three"
    assert parse_head(GOOD["the same content-length twice"]).headers["content-length"] == "5"
    mixed = parse_head(b"POST / HTTP/1.1\r\nhost: t\nx-a: v\r\n\n")
    assert mixed.headers == {"host": "t", "x-a": "v"}


#: name -> (head, the status it gets)
BAD = {
    "two different content-lengths": (
        head(b"host: t", b"content-length: 5", b"content-length: 6"),
        400,
    ),
    "two transfer-encodings": (
        head(b"host: t", b"transfer-encoding: chunked", b"transfer-encoding: chunked"),
        400,
    ),
    "a folded line first": (head(b"host: t", first=b"POST / HTTP/1.1\r\n folded"), 400),
    "VT in a value": (head(b"host: t", b"x-a: 1\x0b2"), 400),
    "a space before the colon": (head(b"host: t", b"content-length : 5"), 400),
    "no host on 1.1": (head(b"content-length: 0"), 400),
    "two hosts": (head(b"host: a", b"host: b"), 400),
    "HTTP/2 request line": (head(b"host: t", first=b"POST / HTTP/2.0"), 505),
    "four words": (head(b"host: t", first=b"POST / x HTTP/1.1"), 400),
    "a control in the target": (head(b"host: t", first=b"POST /\x1b[2J HTTP/1.1"), 400),
    "not ASCII": (head(b"host: t", first="POST /caf\u00e9 HTTP/1.1".encode()), 400),
    "a NUL in a value": (head(b"host: t", b"x-a: 1\x002"), 400),
    "a bare CR in a value": (head(b"host: t", b"x-a: 1\r2"), 400),
}

#: headers -> why body_length refuses them (the smuggling shapes)
FRAMING = {
    "te and cl": ({"transfer-encoding": "chunked", "content-length": "5"}, 400),
    "te gzip": ({"transfer-encoding": "gzip"}, 501),
    "te gzip, chunked": ({"transfer-encoding": "gzip, chunked"}, 501),
    "te chunked twice": ({"transfer-encoding": "chunked, chunked"}, 501),
    "negative cl": ({"content-length": "-5"}, 400),
    "cl with a plus": ({"content-length": "+5"}, 400),
    "cl in hex": ({"content-length": "0x10"}, 400),
    "a cl list": ({"content-length": "5, 6"}, 400),
    "cl too large": ({"content-length": str(MAX_BODY + 1)}, 413),
}


@pytest.mark.parametrize("name", sorted(GOOD))
def test_heads_that_are_read(name: str) -> None:
    req = parse_head(GOOD[name])
    assert req.method == "POST"


def test_what_a_head_holds() -> None:
    req = parse_head(head(b"Host: t", b"Content-Length: 5", b"Accept: a", b"accept: b"))
    assert (req.method, req.target, req.version) == ("POST", "/v1/messages", "HTTP/1.1")
    assert req.headers == {"host": "t", "content-length": "5", "accept": "a, b"}
    assert body_length(req.headers) == 5


@pytest.mark.parametrize("name", sorted(BAD))
def test_heads_that_are_refused(name: str) -> None:
    data, status = BAD[name]
    with pytest.raises(BadRequest) as exc:
        parse_head(data)
    assert exc.value.status == status
    assert exc.value.reason


@pytest.mark.parametrize("name", sorted(FRAMING))
def test_framing_that_is_refused(name: str) -> None:
    headers, status = FRAMING[name]
    with pytest.raises(BadRequest) as exc:
        body_length(headers)
    assert exc.value.status == status


def test_framing() -> None:
    assert body_length({}) == 0
    assert body_length({"content-length": "12"}) == 12
    assert body_length({"transfer-encoding": "Chunked"}) == CHUNKED
    assert chunk_size(b"1a\r\n") == 26
    assert chunk_size(b"5;ext=1\r\n") == 5
    assert chunk_size(b"5 \t\r\n") == 5  # blanks after the size (RFC 9112: BWS)
    assert chunk_size(b"fffffffff\r\n") == 0xFFFFFFFFF  # a size; the body cap refuses it
    for bad in (
        b"-5\r\n", b"zz\r\n", b"5\n", b"\r\n", b" 5\r\n", b"\t5\r\n", b"5\x0b\r\n",
        b"5\x0c\r\n", b"\x0b5\r\n", b"1" * 21 + b"\r\n", b"5 x\r\n",
    ):  # fmt: skip
        with pytest.raises(BadRequest):
            chunk_size(bad)


def test_keep_alive() -> None:
    assert keeps_alive("HTTP/1.1", {})
    assert not keeps_alive("HTTP/1.1", {"connection": "keep-alive, close"})
    assert not keeps_alive("HTTP/1.0", {"connection": "keep-alive"})


@pytest.mark.parametrize(
    ("status", "reason", "headers"),
    [
        (-5, "OK", []),
        (2**70, "OK", []),
        (99, "OK", []),
        (600, "OK", []),
        (200, "OK\r\nX-Injected: yes", []),
        (200, "OK\n", []),
        (200, "OK", [("x-a", "1\r\nX-Injected: yes")]),
        (200, "OK", [("x-a", "1\x00")]),
        (200, "OK", [("x a", "1")]),
        (200, "OK", [("x-a:", "1")]),
    ],
)
def test_a_response_head_never_says_more_than_it_means(
    status: int, reason: str, headers: list[tuple[str, str]]
) -> None:
    with pytest.raises(ValueError):
        response_head(status, reason, headers)


def test_response_heads() -> None:
    got = response_head(200, "OK", [("content-type", "text/event-stream")], ["connection: close"])
    assert got == b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n"
    assert response_head(529, "", []) == b"HTTP/1.1 529\r\n\r\n"
    plain = plain_head(404, 2, close=False, idle=60)
    assert plain.startswith(b"HTTP/1.1 404 Not Found\r\n")
    assert b"content-length: 2\r\n" in plain and b"keep-alive: timeout=60\r\n" in plain
