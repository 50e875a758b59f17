"""Property tests for the SSE decoder: split invariance, no exceptions, agreement with the spec.

The oracle below is the WHATWG "interpreting an event stream" algorithm written out literally
(decode the whole body as UTF-8 with replacement, drop one leading BOM, split on CRLF/LF/CR,
process fields, dispatch at blank lines, discard what is pending at the end):
https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation
"""

from __future__ import annotations

import itertools
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from sseconform.sse.decoder import DEFAULT_MAX_LINE, Anomaly, Event, SSEDecoder, decode_all

# database=None: keep the run from writing a .hypothesis/ folder into the checkout.
SETTINGS = settings(max_examples=200, deadline=None, database=None)

BOM = b"\xef\xbb\xbf"
TOKENS = [
    b"data",
    b"data:",
    b"data: ",
    b"event:",
    b"event: ",
    b"id:",
    b"id: ",
    b"retry: ",
    b"foo: ",
    b":",
    b" ",
    b"\n",
    b"\n",
    b"\r",
    b"\r\n",
    b"\n\n",
    b"x",
    b"12",
    b"0123456789",
    BOM,
    b"\xef",
    b"\xff",
    b"\xe2\x82",
    b"\xac",
    b"\x00",
    "\u2028".encode(),
    "\u0085".encode(),
    "😀".encode(),
]
sse_bodies = st.lists(st.sampled_from(TOKENS), max_size=40).map(b"".join)
any_bodies = st.one_of(sse_bodies, st.binary(max_size=200))

_LINE_END = re.compile(r"\r\n|\r|\n")


def spec_events(body: bytes) -> list[tuple[str, str, str]]:
    """(type, data, lastEventId) of each event a conforming parser dispatches."""
    text = body.decode("utf-8", "replace")
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = _LINE_END.split(text)
    lines.pop()  # after the last line end: not a line; pending input is discarded at EOF
    out: list[tuple[str, str, str]] = []
    data, event_type, last_id = "", "", ""
    for line in lines:
        if not line:
            if data:
                out.append((event_type or "message", data.removesuffix("\n"), last_id))
            data, event_type = "", ""
            continue
        if line.startswith(":"):
            continue
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "event":
            event_type = value
        elif name == "data":
            data += value + "\n"
        elif name == "id" and "\x00" not in value:
            last_id = value
    return out


def decode_pieces(
    body: bytes, cuts: list[int], max_line: int = DEFAULT_MAX_LINE
) -> tuple[list[Event], list[Anomaly]]:
    dec = SSEDecoder(max_line=max_line)
    events: list[Event] = []
    bounds = [0, *sorted(cuts), len(body)]
    for start, stop in itertools.pairwise(bounds):
        events += dec.feed(body[start:stop])
    events += dec.finish()
    return events, dec.anomalies


@st.composite
def body_and_cuts(draw: st.DrawFn, bodies: st.SearchStrategy[bytes]) -> tuple[bytes, list[int]]:
    body = draw(bodies)
    cuts = draw(st.lists(st.integers(0, len(body)), max_size=8))
    return body, cuts


@SETTINGS
@given(body_and_cuts(any_bodies))
def test_split_anywhere_matches_whole(case: tuple[bytes, list[int]]) -> None:
    body, cuts = case
    assert decode_pieces(body, cuts) == decode_all(body)


@SETTINGS
@given(any_bodies)
def test_byte_by_byte_matches_whole(body: bytes) -> None:
    assert decode_pieces(body, list(range(len(body)))) == decode_all(body)


@SETTINGS
@given(body_and_cuts(any_bodies))
def test_split_anywhere_matches_whole_small_max_line(case: tuple[bytes, list[int]]) -> None:
    """Over-long lines, any framing: dropped the same way however the body is cut."""
    body, cuts = case
    assert decode_pieces(body, cuts, max_line=8) == decode_all(body, max_line=8)


@SETTINGS
@given(body_and_cuts(any_bodies), st.integers(1, 32))
def test_never_raises_and_positions_are_sane(case: tuple[bytes, list[int]], max_line: int) -> None:
    body, cuts = case
    events, anomalies = decode_pieces(body, cuts, max_line=max_line)
    assert [e.frame for e in events] == list(range(1, len(events) + 1))
    offsets = [e.offset for e in events]
    assert offsets == sorted(set(offsets))
    assert all(0 <= e.offset < len(body) and e.line >= 1 for e in events)
    assert all(0 <= a.offset <= len(body) and a.line >= 1 for a in anomalies)


@SETTINGS
@given(sse_bodies)
def test_events_match_the_spec_algorithm(body: bytes) -> None:
    events, _ = decode_all(body)
    got = [(e.event or "message", e.data, e.id or "") for e in events]
    assert got == spec_events(body)
