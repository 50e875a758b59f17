"""Each event's ``end``: just past the blank line that dispatched it, however the body is cut."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from sseconform.sse import SSEDecoder, decode_all

TOKENS = [
    b"data: a",
    b"data:",
    b"event: x",
    b": c",
    b"id: 1",
    b"\n",
    b"\r\n",
    b"\r",
    b"data: b\n\n",
]
bodies = st.lists(st.sampled_from(TOKENS), max_size=30).map(b"".join)
BLANK_END = re.compile(rb"(?:\r\n|\r|\n)(?:\r\n|\r|\n)$")


@settings(max_examples=300)
@given(bodies, st.data())
def test_event_end_is_split_invariant(body: bytes, data: st.DataObject) -> None:
    events, _ = decode_all(body)
    cut = data.draw(st.integers(min_value=0, max_value=len(body)))
    dec = SSEDecoder()
    split = dec.feed(body[:cut]) + dec.feed(body[cut:]) + dec.finish()
    assert [e.end for e in split] == [e.end for e in events]
    for e in events:
        assert e.offset < e.end <= len(body)
        assert BLANK_END.search(body[: e.end]) or body[: e.end].endswith((b"\n", b"\r"))


def test_event_end_examples() -> None:
    body = b"data: a\n\n: c\n\ndata: b\r\ndata: c\r\n\r\nevent: x\rdata: y\r\r"
    events, _ = decode_all(body)
    assert [body[e.offset : e.end] for e in events] == [
        b"data: a\n\n",
        b"data: b\r\ndata: c\r\n\r\n",
        b"event: x\rdata: y\r\r",
    ]
