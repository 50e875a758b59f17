"""The SSE decoder against the WHATWG "interpreting an event stream" algorithm.

Spec: https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation

Every expected value below was worked out by hand from the spec (events) and from the decoder's
documented conventions (anomalies: kind, 1-based line, byte offset of that line's start, detail,
frame), never copied from the decoder's output. Offsets count every byte of the body, BOM included.
Each body is also fed whole, one byte at a time and split in two at every point, and must give the
same events and anomalies each way.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from unittest.mock import ANY

import pytest

from sseconform.sse.decoder import DEFAULT_MAX_LINE, SSEDecoder, decode_all
from sseconform.sse.events import (
    BOM_SEEN,
    COMMENT,
    CR,
    CRLF,
    DATA_NO_SPACE,
    ID_FIELD,
    ID_OR_RETRY_ONLY,
    INVALID_UTF8,
    LINE_TOO_LONG,
    RETRY_FIELD,
    UNKNOWN_FIELD,
    UNTERMINATED,
    Anomaly,
    Event,
)

BOM = b"\xef\xbb\xbf"
LONG = "over 16 bytes"  # detail of a line-too-long anomaly with max_line=16


def ev(
    data: str,
    frame: int,
    line: int,
    offset: int,
    *,
    event: str | None = None,
    id: str | None = None,
    retry: int | None = None,
) -> Event:
    """An expected event; a data value never holds CR/LF, so data lines = newlines + 1."""
    return Event(data, event, id, retry, frame, line, offset, data.count("\n") + 1)


def an(kind: str, line: int, offset: int, detail: object = "", frame: int | None = None) -> Anomaly:
    return Anomaly(kind, line, offset, detail, frame)  # type: ignore[arg-type]


def decode_chunks(
    chunks: Iterable[bytes], *, max_line: int = DEFAULT_MAX_LINE
) -> tuple[list[Event], list[Anomaly]]:
    dec = SSEDecoder(max_line=max_line)
    events: list[Event] = []
    for chunk in chunks:
        events += dec.feed(chunk)
    events += dec.finish()
    return events, dec.anomalies


def assert_split_invariant(body: bytes, *, max_line: int = DEFAULT_MAX_LINE) -> None:
    """Whole, byte by byte (with empty feeds between), and every two-piece split agree."""
    whole = decode_chunks([body], max_line=max_line)
    assert decode_all(body, max_line=max_line) == whole
    bytewise = [b for i in range(len(body)) for b in (body[i : i + 1], b"")]
    assert decode_chunks(bytewise, max_line=max_line) == whole, "byte by byte"
    for i in range(len(body) + 1):
        got = decode_chunks([body[:i], body[i:]], max_line=max_line)
        assert got == whole, f"split at {i}: {body[:i]!r} | {body[i:]!r}"


@dataclass(frozen=True)
class Case:
    name: str
    body: bytes
    events: list[Event]
    anomalies: list[Anomaly]
    max_line: int = DEFAULT_MAX_LINE
    split_bug: str = ""  # non-empty: split invariance is known broken, and why


CASES: list[Case] = [
    # -- line endings -----------------------------------------------------------------------
    Case("lf", b"data: a\n\ndata: b\n\n", [ev("a", 1, 1, 0), ev("b", 2, 3, 9)], []),
    Case(
        "crlf",
        b"data: a\r\n\r\ndata: b\r\n\r\n",
        [ev("a", 1, 1, 0), ev("b", 2, 3, 11)],
        [an(CRLF, 1, 0)],
    ),
    Case(
        "cr",
        b"data: a\r\rdata: b\r\r",
        [ev("a", 1, 1, 0), ev("b", 2, 3, 9)],
        [an(CR, 1, 0)],
    ),
    Case(
        "mixed",
        b"data: a\r\n\ndata: b\r\rdata: c\n\r\n",
        [ev("a", 1, 1, 0), ev("b", 2, 3, 10), ev("c", 3, 5, 19)],
        [an(CRLF, 1, 0), an(CR, 3, 10)],
    ),
    Case(
        # CR then CRLF: the CR ends "data: a", the CRLF ends one blank line (not two)
        "cr-then-crlf",
        b"data: a\r\r\ndata: b\r\n\r\n",
        [ev("a", 1, 1, 0), ev("b", 2, 3, 10)],
        [an(CR, 1, 0), an(CRLF, 2, 8)],
    ),
    Case(
        # LF then CR: two line ends, so a blank line
        "lf-then-cr",
        b"data: a\n\rdata: b\n\r",
        [ev("a", 1, 1, 0), ev("b", 2, 3, 9)],
        [an(CR, 2, 8)],
    ),
    Case(
        "cr-runs-are-blank-lines",
        b"data: a\r\r\r\rdata: b\r\r",
        [ev("a", 1, 1, 0), ev("b", 2, 5, 11)],
        [an(CR, 1, 0)],
    ),
    Case(
        # a CR inside a line ends it: "b" is a field line of its own (unknown field)
        "cr-mid-line",
        b"data: a\rb\n\n",
        [ev("a", 1, 1, 0)],
        [an(CR, 1, 0), an(UNKNOWN_FIELD, 2, 8, "b")],
    ),
    Case("body-ends-in-bare-cr", b"data: a\r\r", [ev("a", 1, 1, 0)], [an(CR, 1, 0)]),
    Case("body-ends-lf-cr", b"data: a\n\r", [ev("a", 1, 1, 0)], [an(CR, 2, 8)]),
    Case(
        # the final CR ends the line, but no blank line follows: the event is discarded
        "body-ends-one-cr",
        b"data: a\r",
        [],
        [an(CR, 1, 0), an(UNTERMINATED, 1, 0, "a")],
    ),
    Case("lone-cr", b"\r", [], [an(CR, 1, 0)]),
    Case("lone-crlf", b"\r\n", [], [an(CRLF, 1, 0)]),
    Case("empty-body", b"", [], []),
    # -- BOM --------------------------------------------------------------------------------
    Case("bom", BOM + b"data: a\n\n", [ev("a", 1, 1, 3)], [an(BOM_SEEN, 1, 0)]),
    Case("bom-only", BOM, [], [an(BOM_SEEN, 1, 0)]),
    Case(
        "bom-crlf",
        BOM + b"data: a\r\n\r\ndata: b\r\n\r\n",
        [ev("a", 1, 1, 3), ev("b", 2, 3, 14)],
        [an(BOM_SEEN, 1, 0), an(CRLF, 1, 3)],
    ),
    Case(
        # only one BOM is stripped; the second is part of the field name
        "two-boms",
        BOM + BOM + b"data: a\n\n",
        [],
        [an(BOM_SEEN, 1, 0), an(UNKNOWN_FIELD, 1, 3, "\ufeffdata")],
    ),
    Case(
        "bom-not-at-start",
        b"data: a\n\n" + BOM + b"data: b\n\n",
        [ev("a", 1, 1, 0)],
        [an(UNKNOWN_FIELD, 3, 9, "\ufeffdata")],
    ),
    Case(
        # EF then 'd': not a BOM, an invalid sequence -> U+FFFD in the field name
        "bom-first-byte-only",
        b"\xefdata: a\n\n",
        [],
        [an(INVALID_UTF8, 1, 0, "ef"), an(UNKNOWN_FIELD, 1, 0, "\ufffddata")],
    ),
    Case(
        # EF BB then 'd': one maximal subpart, so one U+FFFD
        "bom-two-bytes-only",
        b"\xef\xbbdata: a\n\n",
        [],
        [an(INVALID_UTF8, 1, 0, "ef bb"), an(UNKNOWN_FIELD, 1, 0, "\ufffddata")],
    ),
    # -- comments ---------------------------------------------------------------------------
    Case("comment", b": ping\ndata: a\n\n", [ev("a", 1, 2, 7)], [an(COMMENT, 1, 0, "ping")]),
    Case("bare-colon-comment", b":\ndata: a\n\n", [ev("a", 1, 2, 2)], [an(COMMENT, 1, 0, "")]),
    Case("comment-only-block", b": ping\n\n", [], [an(COMMENT, 1, 0, "ping")]),
    Case(
        "comment-inside-event",
        b"data: a\n: x\ndata: b\n\n",
        [ev("a\nb", 1, 1, 0)],
        [an(COMMENT, 2, 8, "x")],
    ),
    Case(
        # a keep-alive disguised as data is data, not a comment
        "data-colon-ping",
        b"data: : ping\n\n",
        [ev(": ping", 1, 1, 0)],
        [],
    ),
    # -- data -------------------------------------------------------------------------------
    Case("data-no-space", b"data:a\n\n", [ev("a", 1, 1, 0)], [an(DATA_NO_SPACE, 1, 0, "", 1)]),
    Case("data-two-spaces", b"data:  a\n\n", [ev(" a", 1, 1, 0)], []),
    Case("data-trailing-space", b"data: a \n\n", [ev("a ", 1, 1, 0)], []),
    Case("data-colons-in-value", b"data: a:b: c\n\n", [ev("a:b: c", 1, 1, 0)], []),
    Case("data-no-colon", b"data\n\n", [ev("", 1, 1, 0)], []),
    Case("data-colon-empty", b"data:\n\n", [ev("", 1, 1, 0)], []),
    Case("data-space-empty", b"data: \n\n", [ev("", 1, 1, 0)], []),
    Case("data-two-empty", b"data\ndata\n\n", [ev("\n", 1, 1, 0)], []),
    Case("data-multi", b"data: a\ndata:\ndata: b\n\n", [ev("a\n\nb", 1, 1, 0)], []),
    Case(
        "data-no-space-once",
        b"data:a\n\ndata:b\n\n",
        [ev("a", 1, 1, 0), ev("b", 2, 3, 8)],
        [an(DATA_NO_SPACE, 1, 0, "", 1)],
    ),
    Case(
        "data-no-space-second-frame",
        b"data: a\n\ndata:b\n\n",
        [ev("a", 1, 1, 0), ev("b", 2, 3, 9)],
        [an(DATA_NO_SPACE, 3, 9, "", 2)],
    ),
    Case("data-field-case", b"Data: a\n\n", [], [an(UNKNOWN_FIELD, 1, 0, "Data")]),
    Case("data-space-before-colon", b"data : a\n\n", [], [an(UNKNOWN_FIELD, 1, 0, "data ")]),
    Case("data-nul", b"data: a\x00b\n\n", [ev("a\x00b", 1, 1, 0)], []),
    # -- event ------------------------------------------------------------------------------
    Case("event", b"event: add\ndata: a\n\n", [ev("a", 1, 1, 0, event="add")], []),
    Case("event-no-space", b"event:add\ndata: a\n\n", [ev("a", 1, 1, 0, event="add")], []),
    Case(
        "event-reset-after-dispatch",
        b"event: add\ndata: a\n\ndata: b\n\n",
        [ev("a", 1, 1, 0, event="add"), ev("b", 2, 4, 20)],
        [],
    ),
    Case(
        # spec step 2: a blank line with an empty data buffer still resets the event type
        "event-reset-by-empty-block",
        b"event: add\n\ndata: b\n\n",
        [ev("b", 1, 3, 12)],
        [],
    ),
    Case("event-after-data", b"data: a\nevent: x\n\n", [ev("a", 1, 1, 0, event="x")], []),
    Case(
        "event-last-wins",
        b"event: x\nevent: y\ndata: a\n\n",
        [ev("a", 1, 1, 0, event="y")],
        [],
    ),
    Case("event-empty", b"event:\ndata: a\n\n", [ev("a", 1, 1, 0, event="")], []),
    # -- id ---------------------------------------------------------------------------------
    Case(
        "id-persists",
        b"id: 1\ndata: a\n\ndata: b\n\n",
        [ev("a", 1, 1, 0, id="1"), ev("b", 2, 4, 15, id="1")],
        [an(ID_FIELD, 1, 0, "1", 1)],
    ),
    Case(
        "id-empty-resets",
        b"id: 1\ndata: a\n\nid\ndata: b\n\n",
        [ev("a", 1, 1, 0, id="1"), ev("b", 2, 4, 15, id="")],
        [an(ID_FIELD, 1, 0, "1", 1), an(ID_FIELD, 4, 15, "", 2)],
    ),
    Case(
        "id-with-nul-ignored",
        b"id: 1\ndata: a\n\nid: x\x00y\ndata: b\n\n",
        [ev("a", 1, 1, 0, id="1"), ev("b", 2, 4, 15, id="1")],
        [an(ID_FIELD, 1, 0, "1", 1), an(ID_FIELD, 4, 15, "x\x00y", 2)],
    ),
    Case(
        "id-with-nul-first",
        b"id: \x00\ndata: a\n\n",
        [ev("a", 1, 1, 0)],
        [an(ID_FIELD, 1, 0, "\x00", 1)],
    ),
    Case(
        "id-last-wins",
        b"id: 1\nid: 2\ndata: a\n\n",
        [ev("a", 1, 1, 0, id="2")],
        [an(ID_FIELD, 1, 0, "1", 1), an(ID_FIELD, 2, 6, "2", 1)],
    ),
    Case(
        # the id buffer is set even though the block dispatches nothing; the next event has it
        "id-only-block",
        b"id: 7\n\ndata: a\n\n",
        [ev("a", 1, 3, 7, id="7")],
        [an(ID_OR_RETRY_ONLY, 1, 0, "id")],
    ),
    Case(
        "event-and-id-only-block",
        b"event: x\nid: 2\n\ndata: a\n\n",
        [ev("a", 1, 4, 16, id="2")],
        [an(ID_OR_RETRY_ONLY, 2, 9, "id")],
    ),
    # -- retry ------------------------------------------------------------------------------
    Case(
        "retry",
        b"retry: 1500\ndata: a\n\n",
        [ev("a", 1, 1, 0, retry=1500)],
        [an(RETRY_FIELD, 1, 0, "1500", 1)],
    ),
    Case(
        "retry-not-digits",
        b"retry: 15x\ndata: a\n\n",
        [ev("a", 1, 1, 0)],
        [an(RETRY_FIELD, 1, 0, "15x", 1)],
    ),
    Case(
        "retry-two-spaces",
        b"retry:  15\ndata: a\n\n",
        [ev("a", 1, 1, 0)],
        [an(RETRY_FIELD, 1, 0, " 15", 1)],
    ),
    Case(
        "retry-negative",
        b"retry: -1\ndata: a\n\n",
        [ev("a", 1, 1, 0)],
        [an(RETRY_FIELD, 1, 0, "-1", 1)],
    ),
    Case(
        "retry-decimal",
        b"retry: 1.5\ndata: a\n\n",
        [ev("a", 1, 1, 0)],
        [an(RETRY_FIELD, 1, 0, "1.5", 1)],
    ),
    Case(
        # ARABIC-INDIC DIGIT ONE is a digit to str.isdigit, not an ASCII digit
        "retry-non-ascii-digit",
        b"retry: \xd9\xa1\ndata: a\n\n",
        [ev("a", 1, 1, 0)],
        [an(RETRY_FIELD, 1, 0, "\u0661", 1)],
    ),
    Case("retry-only-block", b"retry: 10\n\n", [], [an(ID_OR_RETRY_ONLY, 1, 0, "retry")]),
    Case(
        "retry-and-id-only-block",
        b"retry: 10\nid: 2\n\n",
        [],
        [an(ID_OR_RETRY_ONLY, 1, 0, "id/retry")],
    ),
    # -- unknown fields ---------------------------------------------------------------------
    Case(
        "unknown-field",
        b"foo: bar\ndata: a\n\n",
        [ev("a", 1, 1, 0)],
        [an(UNKNOWN_FIELD, 1, 0, "foo")],
    ),
    Case(
        "unknown-field-once-per-name",
        b"foo: 1\nfoo: 2\nbar\ndata: a\n\n",
        [ev("a", 1, 1, 0)],
        [an(UNKNOWN_FIELD, 1, 0, "foo"), an(UNKNOWN_FIELD, 3, 14, "bar")],
    ),
    Case("unknown-only-block", b"foo: 1\n\n", [], [an(UNKNOWN_FIELD, 1, 0, "foo")]),
    Case("space-only-line", b" \ndata: a\n\n", [ev("a", 1, 1, 0)], [an(UNKNOWN_FIELD, 1, 0, " ")]),
    # -- dispatch ---------------------------------------------------------------------------
    Case("blank-lines-no-data", b"\n\n\ndata: a\n\n\n\n", [ev("a", 1, 4, 3)], []),
    Case(
        "unterminated-line",
        b"data: a\n\ndata: b",
        [ev("a", 1, 1, 0)],
        [an(UNTERMINATED, 3, 9, ANY)],
    ),
    Case(
        "unterminated-no-blank-line",
        b"data: a\n\ndata: b\n",
        [ev("a", 1, 1, 0)],
        [an(UNTERMINATED, 3, 9, "b")],
    ),
    Case(
        "unterminated-block-starts-at-event",
        b"data: a\n\nevent: x\ndata: b\n",
        [ev("a", 1, 1, 0)],
        [an(UNTERMINATED, 3, 9, "b")],
    ),
    Case("unterminated-only", b"data: a", [], [an(UNTERMINATED, 1, 0, ANY)]),
    Case("trailing-event-line-without-data", b"data: a\n\nevent: x\n", [ev("a", 1, 1, 0)], []),
    # -- characters that are not line breaks ------------------------------------------------
    Case(
        "unicode-separators-in-data",
        b"data: a\xe2\x80\xa8b\xe2\x80\xa9c\xc2\x85d\x0b\x0ce\x1cf\n\n",
        [ev("a\u2028b\u2029c\u0085d\x0b\x0ce\x1cf", 1, 1, 0)],
        [],
    ),
    Case(
        "unicode-separators-in-event-and-id",
        b"event: a\xe2\x80\xa8b\nid: c\xc2\x85d\ndata: x\n\n",
        [ev("x", 1, 1, 0, event="a\u2028b", id="c\u0085d")],
        [an(ID_FIELD, 2, 13, "c\u0085d", 1)],
    ),
    # -- UTF-8 ------------------------------------------------------------------------------
    Case(
        "multibyte-data",
        "data: é€😀\n\n".encode(),
        [ev("é€😀", 1, 1, 0)],
        [],
    ),
    Case(
        "invalid-utf8",
        b"data: a\xffb\n\n",
        [ev("a\ufffdb", 1, 1, 0)],
        [an(INVALID_UTF8, 1, 7, "ff", 1)],
    ),
    Case(
        "invalid-utf8-after-bom",
        BOM + b"data: a\xffb\n\n",
        [ev("a\ufffdb", 1, 1, 3)],
        [an(BOM_SEEN, 1, 0), an(INVALID_UTF8, 1, 10, "ff", 1)],
    ),
    Case(
        # a lead byte cut short by the line end: U+FFFD, and the LF still ends the line
        "invalid-utf8-second-line",
        b"data: ok\ndata: \xc3\n\n",
        [ev("ok\n\ufffd", 1, 1, 0)],
        [an(INVALID_UTF8, 2, 15, "c3", 1)],
    ),
    Case(
        "invalid-utf8-second-frame-no-space",
        b"data: a\n\ndata:\xff\n\n",
        [ev("a", 1, 1, 0), ev("\ufffd", 2, 3, 9)],
        [an(DATA_NO_SPACE, 3, 9, "", 2), an(INVALID_UTF8, 3, 14, "ff", 2)],
    ),
    Case(
        # F0 9F 98 is one maximal subpart of a 4-byte sequence: one U+FFFD
        "invalid-utf8-truncated-4-byte",
        b"data: \xf0\x9f\x98x\n\n",
        [ev("\ufffdx", 1, 1, 0)],
        [an(INVALID_UTF8, 1, 6, "f0 9f 98", 1)],
    ),
    Case(
        # ED A0 80 (a surrogate): ED's second byte must be 80..9F, so three U+FFFD
        "invalid-utf8-surrogate",
        b"data: \xed\xa0\x80\n\n",
        [ev("\ufffd\ufffd\ufffd", 1, 1, 0)],
        [an(INVALID_UTF8, 1, 6, "ed", 1)],
    ),
    Case(
        "invalid-utf8-overlong",
        b"data: \xc0\xafx\n\n",
        [ev("\ufffd\ufffdx", 1, 1, 0)],
        [an(INVALID_UTF8, 1, 6, "c0", 1)],
    ),
    Case(
        "invalid-utf8-two-lines",
        b"data: \xff\ndata: ok\ndata: a\xfe\n\n",
        [ev("\ufffd\nok\na\ufffd", 1, 1, 0)],
        [an(INVALID_UTF8, 1, 6, "ff", 1), an(INVALID_UTF8, 3, 24, "fe", 1)],
    ),
    Case(
        "invalid-utf8-event-name",
        b"event: \xff\ndata: a\n\n",
        [ev("a", 1, 1, 0, event="\ufffd")],
        [an(INVALID_UTF8, 1, 7, "ff")],
    ),
    Case(
        "invalid-utf8-id",
        b"id: \xff\ndata: a\n\n",
        [ev("a", 1, 1, 0, id="\ufffd")],
        [an(INVALID_UTF8, 1, 4, "ff"), an(ID_FIELD, 1, 0, "\ufffd", 1)],
    ),
    Case(
        "invalid-utf8-comment",
        b":\xff\n",
        [],
        [an(INVALID_UTF8, 1, 1, "ff"), an(COMMENT, 1, 0, "\ufffd")],
    ),
    Case(
        # a raw 0x85 byte is invalid UTF-8, not NEL, and not a line break
        "raw-0x85-byte",
        b"data: a\x85b\n\n",
        [ev("a\ufffdb", 1, 1, 0)],
        [an(INVALID_UTF8, 1, 7, "85", 1)],
    ),
    # -- positions --------------------------------------------------------------------------
    Case(
        "positions-bom-crlf",
        BOM + b": hi\r\n\r\nevent: e\r\ndata: 1\r\n\r\n\r\nid: 5\r\ndata: 2\r\ndata: 3\r\n\r\n",
        [ev("1", 1, 3, 11, event="e"), ev("2\n3", 2, 7, 34, id="5")],
        [an(BOM_SEEN, 1, 0), an(COMMENT, 1, 3, "hi"), an(CRLF, 1, 3), an(ID_FIELD, 7, 34, "5", 2)],
    ),
    Case(
        "positions-cr",
        b": hi\r\rdata: 1\rdata: 2\r\r\r: x\rdata: 3\r\r",
        [ev("1\n2", 1, 3, 6), ev("3", 2, 8, 28)],
        [an(COMMENT, 1, 0, "hi"), an(CR, 1, 0), an(COMMENT, 7, 24, "x")],
    ),
    Case(
        "positions-lf-many",
        b"data: 1\n\n: k\n\ndata: 2\nevent: e\n\nid: 9\n\nretry: 5\ndata: 3\n\n",
        [ev("1", 1, 1, 0), ev("2", 2, 5, 14, event="e"), ev("3", 3, 10, 39, id="9", retry=5)],
        [
            an(COMMENT, 3, 9, "k"),
            an(ID_OR_RETRY_ONLY, 8, 32, "id"),
            an(RETRY_FIELD, 10, 39, "5", 3),
        ],
    ),
    # -- over-long lines (max_line=16) ------------------------------------------------------
    Case(
        "long-line-lf",
        b"data: 0123456789abcdef\ndata: ok\n\n",
        [ev("ok", 1, 2, 23)],
        [an(LINE_TOO_LONG, 1, 0, LONG)],
        max_line=16,
    ),
    Case(
        "long-line-inside-event",
        b"data: a\ndata: 0123456789abcdef\ndata: b\n\n",
        [ev("a\nb", 1, 1, 0)],
        [an(LINE_TOO_LONG, 2, 8, LONG)],
        max_line=16,
    ),
    Case(
        "long-comment",
        b": 0123456789abcdefgh\ndata: ok\n\n",
        [ev("ok", 1, 2, 21)],
        [an(LINE_TOO_LONG, 1, 0, LONG)],
        max_line=16,
    ),
    Case(
        "line-exactly-max",
        b"data: 0123456789\n\n",
        [ev("0123456789", 1, 1, 0)],
        [],
        max_line=16,
    ),
    Case(
        "long-lines-in-a-row",
        b"data: 0123456789abcdef\nevent: 0123456789abcdef\n\ndata: ok\n\n",
        [ev("ok", 1, 4, 48)],
        [an(LINE_TOO_LONG, 1, 0, LONG), an(LINE_TOO_LONG, 2, 23, LONG)],
        max_line=16,
    ),
    Case(
        "long-line-unterminated-at-end",
        b"data: ok\n\ndata: 0123456789abcdef",
        [ev("ok", 1, 1, 0)],
        [an(LINE_TOO_LONG, 3, 10, LONG)],
        max_line=16,
    ),
    Case(
        # CRLF framing already noted before the long line, so the note's place is fixed
        "long-line-crlf-after-crlf",
        b"\r\ndata: 0123456789abcdef\r\ndata: ok\r\n\r\n",
        [ev("ok", 1, 3, 26)],
        [an(CRLF, 1, 0), an(LINE_TOO_LONG, 2, 2, LONG)],
        max_line=16,
    ),
    Case(
        "long-line-crlf",
        b"data: 0123456789abcdef\r\ndata: ok\r\n\r\n",
        [ev("ok", 1, 2, 24)],
        [an(LINE_TOO_LONG, 1, 0, LONG), an(CRLF, 1, 0)],
        max_line=16,
    ),
    Case(
        "long-line-cr",
        b"data: 0123456789abcdef\rdata: ok\r\r",
        [ev("ok", 1, 2, 23)],
        [an(LINE_TOO_LONG, 1, 0, LONG), an(CR, 1, 0)],
        max_line=16,
    ),
    Case(
        "line-exactly-max-crlf",
        b"data: 0123456789\r\n\r\n",
        [ev("0123456789", 1, 1, 0)],
        [an(CRLF, 1, 0)],
        max_line=16,
    ),
    Case(
        "line-exactly-max-cr",
        b"data: 0123456789\rdata: x\r\r",
        [ev("0123456789\nx", 1, 1, 0)],
        [an(CR, 1, 0)],
        max_line=16,
    ),
]


def _params(cases: list[Case], *, split: bool) -> list[object]:
    out: list[object] = []
    for case in cases:
        marks = []
        if split and case.split_bug:
            marks.append(pytest.mark.xfail(strict=True, reason=case.split_bug))
        out.append(pytest.param(case, id=case.name, marks=marks))
    return out


def test_case_names_unique() -> None:
    assert len({c.name for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", _params(CASES, split=False))
def test_decode_whole(case: Case) -> None:
    events, anomalies = decode_all(case.body, max_line=case.max_line)
    assert events == case.events
    assert anomalies == case.anomalies


@pytest.mark.parametrize("case", _params(CASES, split=True))
def test_split_invariance(case: Case) -> None:
    assert_split_invariant(case.body, max_line=case.max_line)


def test_split_long_line_crlf_events_survive() -> None:
    """An over-long CRLF line split anywhere: the events still match."""
    body = b"data: 0123456789abcdef\r\ndata: ok\r\n\r\n"
    for i in range(len(body) + 1):
        events, _ = decode_chunks([body[:i], body[i:]], max_line=16)
        assert events == [ev("ok", 1, 2, 24)], f"split at {i}"


# -- behaviour across feeds -------------------------------------------------------------------


def test_feed_returns_events_as_they_complete() -> None:
    dec = SSEDecoder()
    assert dec.feed(b"data: a\n") == []
    assert dec.feed(b"\ndata: b\n") == [ev("a", 1, 1, 0)]
    assert dec.feed(b"\n") == [ev("b", 2, 3, 9)]
    assert dec.finish() == []
    assert dec.anomalies == []


def test_crlf_split_across_feeds() -> None:
    dec = SSEDecoder()
    assert dec.feed(b"data: a\r") == []
    assert dec.anomalies == []  # the CR may be half of a CRLF: not yet a bare CR
    assert dec.feed(b"\n\r\n") == [ev("a", 1, 1, 0)]
    assert dec.finish() == []
    assert dec.anomalies == [an(CRLF, 1, 0)]


def test_blank_crlf_split_across_feeds() -> None:
    dec = SSEDecoder()
    events = dec.feed(b"data: a\r\n\r")
    events += dec.feed(b"\ndata: b\r\n\r\n")
    assert events == [ev("a", 1, 1, 0), ev("b", 2, 3, 11)]
    assert dec.finish() == []
    assert dec.anomalies == [an(CRLF, 1, 0)]


def test_bare_cr_at_end_of_feed_then_more() -> None:
    dec = SSEDecoder()
    events = dec.feed(b"data: a\r")
    events += dec.feed(b"\rdata: b\r")
    events += dec.feed(b"\r")
    events += dec.finish()
    assert events == [ev("a", 1, 1, 0), ev("b", 2, 3, 9)]
    assert dec.anomalies == [an(CR, 1, 0)]


def test_body_ending_in_bare_cr_dispatches_at_finish() -> None:
    dec = SSEDecoder()
    events = dec.feed(b"data: a\r\r")
    events += dec.finish()
    assert events == [ev("a", 1, 1, 0)]
    assert dec.anomalies == [an(CR, 1, 0)]


@pytest.mark.parametrize("cut", [1, 2])
def test_bom_split_over_feeds(cut: int) -> None:
    dec = SSEDecoder()
    assert dec.feed(BOM[:cut]) == []
    assert dec.feed(BOM[cut:]) == []
    assert dec.feed(b"data: a\n\n") == [ev("a", 1, 1, 3)]
    assert dec.finish() == []
    assert dec.anomalies == [an(BOM_SEEN, 1, 0)]


def test_bom_one_byte_then_rest_with_data() -> None:
    dec = SSEDecoder()
    events = dec.feed(b"\xef")
    events += dec.feed(b"\xbb\xbfdata: a\n\n")
    events += dec.finish()
    assert events == [ev("a", 1, 1, 3)]
    assert dec.anomalies == [an(BOM_SEEN, 1, 0)]


def test_bom_prefix_then_other_bytes_is_not_a_bom() -> None:
    dec = SSEDecoder()
    events = dec.feed(b"\xef")
    events += dec.feed(b"\n\ndata: a\n\n")
    events += dec.finish()
    # EF alone is an invalid sequence forming a one-line unknown field "\ufffd"
    assert events == [ev("a", 1, 3, 3)]
    assert dec.anomalies == [an(INVALID_UTF8, 1, 0, "ef"), an(UNKNOWN_FIELD, 1, 0, "\ufffd")]


@pytest.mark.parametrize("text", ["é", "€", "😀", "a\u2028b"])
def test_multibyte_char_split_across_feeds(text: str) -> None:
    encoded = text.encode()
    head = b"data: "
    for cut in range(1, len(encoded)):
        dec = SSEDecoder()
        events = dec.feed(head + encoded[:cut])
        events += dec.feed(encoded[cut:] + b"\n\n")
        events += dec.finish()
        assert events == [ev(text, 1, 1, 0)]
        assert dec.anomalies == []


def test_take_anomalies_drains() -> None:
    dec = SSEDecoder()
    dec.feed(b": one\n")
    assert dec.take_anomalies() == [an(COMMENT, 1, 0, "one")]
    assert dec.take_anomalies() == []
    assert dec.anomalies == []
    dec.feed(b": two\ndata: a\n\n")
    dec.finish()
    assert dec.take_anomalies() == [an(COMMENT, 2, 6, "two")]
    assert dec.take_anomalies() == []


def test_take_anomalies_keeps_decoding_state() -> None:
    """Draining between feeds must not lose per-stream state such as first-CR notes."""
    dec = SSEDecoder()
    events = dec.feed(b"data:a\r\r")
    first = dec.take_anomalies()
    events += dec.feed(b"data:b\r\r")
    events += dec.finish()
    assert events == [ev("a", 1, 1, 0), ev("b", 2, 3, 8)]
    assert first == [an(DATA_NO_SPACE, 1, 0, "", 1), an(CR, 1, 0)]
    assert dec.take_anomalies() == []


def test_position_tracks_next_unread_line() -> None:
    dec = SSEDecoder()
    assert dec.position() == (1, 0)
    dec.feed(b"data: a\ndat")
    assert dec.position() == (2, 8)
    dec.feed(b"a: b\r\n\r\n")
    assert dec.position() == (4, 19)


def test_position_after_bom() -> None:
    dec = SSEDecoder()
    dec.feed(BOM + b": x\n")
    assert dec.position() == (2, 7)


# -- over-long lines across feeds ---------------------------------------------------------------


@pytest.mark.parametrize("term", [b"\n", b"\r\n"])
def test_long_line_split_across_feeds_keeps_decoding(term: bytes) -> None:
    line = b"data: " + b"x" * 40
    dec = SSEDecoder(max_line=16)
    events = dec.feed(b"data: a" + term + term)
    events += dec.feed(line[:20])  # already over the limit, no terminator yet
    events += dec.feed(line[20:30])
    events += dec.feed(line[30:] + term + b"data: b" + term + term)
    events += dec.finish()
    n = len(term)
    second = 7 + n + n  # offset of the long line
    after = second + len(line) + n  # offset of "data: b"
    assert events == [ev("a", 1, 1, 0), ev("b", 2, 4, after)]
    long_note = an(LINE_TOO_LONG, 3, second, LONG)
    expected = [an(CRLF, 1, 0), long_note] if term == b"\r\n" else [long_note]
    assert dec.anomalies == expected


def test_long_line_ending_in_cr_at_feed_end() -> None:
    dec = SSEDecoder(max_line=16)
    events = dec.feed(b"\r\ndata: 0123456789abcdef\r")
    events += dec.feed(b"\ndata: ok\r\n\r\n")
    events += dec.finish()
    assert events == [ev("ok", 1, 3, 26)]
    assert dec.anomalies == [an(CRLF, 1, 0), an(LINE_TOO_LONG, 2, 2, LONG)]


def test_long_line_never_buffered_whole() -> None:
    dec = SSEDecoder(max_line=16)
    dec.feed(b"data: " + b"x" * 100)
    for _ in range(100):
        dec.feed(b"x" * 100)
    assert len(dec._buf) <= 16  # white-box: memory holds at most one max_line-sized partial line
    assert dec.feed(b"\ndata: ok\n\n") == [ev("ok", 1, 2, 10107)]


def test_line_of_exactly_max_line_then_cr_split() -> None:
    dec = SSEDecoder(max_line=16)
    events = dec.feed(b"data: 0123456789\r")  # a 16-byte line, legal with max_line=16
    events += dec.feed(b"\n\r\n")
    events += dec.finish()
    assert events == [ev("0123456789", 1, 1, 0)]
    assert dec.anomalies == [an(CRLF, 1, 0)]


def test_long_line_framing_noted_when_skipped() -> None:
    dec = SSEDecoder(max_line=16)
    events = dec.feed(b"data: 0123456789abcdef")  # over the limit: skipping starts
    events += dec.feed(b"\rdata: ok\n\n")
    events += dec.finish()
    assert events == [ev("ok", 1, 2, 23)]
    assert dec.anomalies == [an(LINE_TOO_LONG, 1, 0, LONG), an(CR, 1, 0)]


def test_long_line_bare_cr_at_feed_end_keeps_next_line() -> None:
    dec = SSEDecoder(max_line=16)
    events = dec.feed(b"\rdata: 0123456789abcdef\r")  # the leading CR notes CR framing early
    events += dec.feed(b"data: ok\r\r")
    events += dec.finish()
    assert events == [ev("ok", 1, 3, 24)]
    assert dec.anomalies == [an(CR, 1, 0), an(LINE_TOO_LONG, 2, 1, LONG)]
