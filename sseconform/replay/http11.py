"""HTTP/1.1 as ``replay`` speaks it, without I/O: parse a request head, decide how its body
is framed, build a response head. Pure functions over bytes, so every rule is tested
alone (``tests/replay/test_http11.py``) and the asyncio server only moves bytes.

Strict where a lenient parser can be made to lie (RFC 9112): a request whose framing is
ambiguous is refused, never guessed at, so no second request can hide in a first one's body
(request smuggling); and nothing a recording holds can split a response (CR or LF in a
status line or header), or send a status outside 100-599.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from http import HTTPStatus

__all__ = [
    "CHUNKED",
    "MAX_BODY",
    "MAX_HEAD",
    "MAX_TRAILERS",
    "BadRequest",
    "RequestHead",
    "body_length",
    "chunk_size",
    "error_body",
    "expects_continue",
    "keeps_alive",
    "parse_head",
    "plain_head",
    "response_head",
    "trailer_field",
]

MAX_HEAD = 64 * 1024
#: The largest request body one request may send (a prompt with its history and tools).
MAX_BODY = 16 * 1024 * 1024
#: :func:`body_length` for a chunked body (its length is known only at its end).
CHUNKED = -1
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_TARGET = re.compile(r"[\x21-\x7e]+")  # no spaces, no controls
_DIGITS = re.compile(r"[0-9]{1,12}")
#: A chunk-size line exactly (RFC 9112 7.1): the size, its extensions, optional blanks, CRLF;
#: no blank before the size and no other white space (VT, FF) anywhere.
_CHUNK_LINE = re.compile(rb"([0-9A-Fa-f]{1,20})(;[^\r\n]*)?[ \t]*\r\n")
#: The most trailer fields a chunked body may end with.
MAX_TRAILERS = 64
#: What a field value may not hold (h11's grammar): NUL, CR, LF and the white space that is
#: not a blank (VT, FF); other controls and DEL a recipient MAY keep (RFC 9110 5.5).
_BAD_VALUE = re.compile(r"[\x00\n\r\x0b\x0c]")
_VERSION = re.compile(r"HTTP/[0-9]\.[0-9]")
_UNSAFE = re.compile(r"[\x00\r\n]")


class BadRequest(ValueError):
    """A request that HTTP/1.1 does not allow, or that replay will not guess at: answered
    400 (or ``status``), logged with ``reason``, and the connection closed."""

    def __init__(self, reason: str, status: int = 400) -> None:
        super().__init__(reason)
        self.reason = reason
        self.status = status


@dataclass
class RequestHead:
    method: str
    target: str
    version: str
    #: names in lower case; a repeated header's values joined with ", " (as RFC 9110 allows
    #: for list headers), except those whose repetition is refused
    headers: dict[str, str] = field(default_factory=dict)


def parse_head(head: bytes) -> RequestHead:
    """A request head (up to and including its blank line), or :class:`BadRequest`.

    Read as h11 reads it, each leniency one RFC 9112 allows a recipient: a lone LF ends a
    line as CRLF does (2.2), a folded line (obs-fold) joins its header with one space (5.2),
    a value may hold obs-text and controls other than NUL, CR, LF, VT and FF (RFC 9110 5.5),
    and a repeated ``content-length`` with the same value is one length (6.3)."""
    text = head.decode("latin-1")  # header values may hold obs-text (%x80-FF, RFC 9110 5.5)
    lines = [line.removesuffix("\r") for line in text.split("\n")]
    while lines and lines[-1] == "":
        lines.pop()
    parts = lines[0].split(" ") if lines else []
    if len(parts) != 3 or not _TOKEN.fullmatch(parts[0]) or not _TARGET.fullmatch(parts[1]):
        raise BadRequest("a bad request line")
    if not _VERSION.fullmatch(parts[2]):
        raise BadRequest("a bad request line")
    if parts[2] not in ("HTTP/1.0", "HTTP/1.1"):
        raise BadRequest(f"unsupported version {parts[2][:16]!r}", 505)
    fields: list[list[str]] = []
    for line in lines[1:]:
        if line[:1] in (" ", "\t"):  # obs-fold: the previous value goes on, after one SP
            if not fields:
                raise BadRequest("a folded line before any header")
            fields[-1][1] += " " + line.strip(" \t")
            continue
        split = _field_line(line)
        if split is None:
            raise BadRequest("a bad header line")
        fields.append(list(split))
    headers: dict[str, str] = {}
    for name, value in fields:
        if _BAD_VALUE.search(value):
            raise BadRequest(f"a control character in header {name!r}")
        key = name.lower()
        if key in headers and key == "content-length" and headers[key] == value:
            continue  # the same length again is one length (RFC 9112 6.3)
        if key in ("content-length", "host", "transfer-encoding") and key in headers:
            raise BadRequest(f"more than one {key}")  # no guessing which one is meant
        headers[key] = f"{headers[key]}, {value}" if key in headers else value
    if parts[2] == "HTTP/1.1" and "host" not in headers:
        raise BadRequest("an HTTP/1.1 request without host")
    return RequestHead(parts[0], parts[1], parts[2], headers)


def body_length(headers: dict[str, str]) -> int:
    """How the request body is framed: its length, or :data:`CHUNKED`. Both
    ``transfer-encoding`` and ``content-length``, a coding other than ``chunked`` alone, or
    a length that is not plain digits is refused (each is how a request is smuggled past a
    proxy that reads the framing another way)."""
    coding = headers.get("transfer-encoding")
    length = headers.get("content-length")
    if coding is not None:
        if length is not None:
            raise BadRequest("both transfer-encoding and content-length")
        if coding.strip().lower() != "chunked":
            raise BadRequest("a transfer-encoding other than chunked", 501)
        return CHUNKED
    if length is None or length == "":
        return 0
    if not _DIGITS.fullmatch(length):
        raise BadRequest("a content-length that is not a number")
    n = int(length)
    if n > MAX_BODY:
        raise BadRequest(f"a request body over {MAX_BODY:,} bytes", 413)
    return n


def chunk_size(line: bytes) -> int:
    """A chunk-size line (with its CRLF; chunk extensions ignored), read as RFC 9112 writes
    it: hex digits first, then extensions, blanks and CRLF (h11 reads it so too)."""
    if not line.endswith(b"\r\n"):
        raise BadRequest("a chunk-size line without CRLF")
    m = _CHUNK_LINE.fullmatch(line)
    if m is None:
        raise BadRequest("a bad chunk size")
    return int(m.group(1), 16)


def _field_line(line: str) -> tuple[str, str] | None:
    """A field line's name and value (blanks round it dropped), or None: no colon, or a name
    that is not a token ("Name :" too). Headers and trailers share this one reading, as they
    share a grammar (RFC 9112 5); the value is checked by each (a header's may be folded)."""
    name, sep, value = line.partition(":")
    if not sep or not _TOKEN.fullmatch(name):
        return None
    return name, value.strip(" \t")


def trailer_field(line: bytes) -> None:
    """A trailer field after a chunked body (RFC 9112 7.1.2): a valid field line, read and
    dropped (replay answers from its recordings, not from trailers)."""
    split = _field_line(line.decode("latin-1").removesuffix("\r\n"))
    if split is None or _BAD_VALUE.search(split[1]):
        raise BadRequest("a bad trailer field")


def expects_continue(version: str, headers: dict[str, str]) -> bool:
    """Does the client wait for ``100 Continue`` before it sends its body (RFC 9110
    10.1.1)? libcurl asks for bodies over 1 MB and waits a second when no answer comes.
    An expectation other than ``100-continue`` is refused (417)."""
    expect = headers.get("expect")
    if expect is None:
        return False
    if expect.strip().lower() != "100-continue":
        raise BadRequest(f"an expectation replay cannot meet: {expect[:40]!r}", 417)
    return version == "HTTP/1.1"


def keeps_alive(version: str, headers: dict[str, str]) -> bool:
    """HTTP/1.1 keeps the connection unless the client says ``close``; HTTP/1.0 bodies end
    with the close, so those connections always end after one answer."""
    if version != "HTTP/1.1":
        return False
    tokens = {t.strip().lower() for t in headers.get("connection", "").split(",")}
    return "close" not in tokens


def response_head(
    status: int, reason: str, headers: Iterable[tuple[str, str]], extra: Iterable[str] = ()
) -> bytes:
    """A response head, blank line included. Refuses (ValueError) a status outside 100-599
    or CR, LF or NUL in the reason or a header, whatever a recording holds: replay never
    writes a response that says something other than what it means."""
    if type(status) is not int or not 100 <= status <= 599:
        raise ValueError(f"status {status!r} is not from 100 to 599")
    if _UNSAFE.search(reason):
        raise ValueError("CR, LF or NUL in a reason phrase")
    lines = [f"HTTP/1.1 {status} {reason}".rstrip(" ")]
    for k, v in headers:
        if not _TOKEN.fullmatch(k) or _UNSAFE.search(v):
            raise ValueError(f"header {k!r} cannot be written as it is")
        lines.append(f"{k}: {v}")
    lines += extra
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1", "replace")


def error_body(message: str) -> bytes:
    """An answer's JSON error body, as every provider's error has a ``message``."""
    return json.dumps({"error": {"message": message}}).encode()


def plain_head(
    status: int,
    length: int,
    *,
    reason: str | None = None,
    close: bool,
    idle: int,
    headers: Iterable[tuple[str, str]] = (),
) -> bytes:
    """The head of a JSON answer with a length, with ``headers`` besides its type and length;
    ``close`` says the connection ends after it, else how long it is kept (``idle`` s)."""
    if reason is None:
        try:
            reason = HTTPStatus(status).phrase
        except ValueError:
            reason = "Error"
    last = "connection: close" if close else f"keep-alive: timeout={idle}"
    own = [("content-type", "application/json"), ("content-length", str(length))]
    skip = {"content-type", "content-length"}
    return response_head(
        status, reason, own + [h for h in headers if h[0].lower() not in skip], [last]
    )
