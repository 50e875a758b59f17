"""The event-size limit (W019) holds however the body is cut: the decoder's fast paths used to
skip it when an event arrived in one read (found by the atheris fuzz run)."""

from __future__ import annotations

import pytest

from sseconform.api import check_bytes, check_chunks
from sseconform.rules.base import Settings
from sseconform.sse import SSEDecoder
from sseconform.sse.decoder import DEFAULT_MAX_EVENT
from sseconform.sse.events import EVENT_TOO_LARGE


def _decode(pieces: list[bytes], max_event: int) -> tuple[list[str], list[str]]:
    dec = SSEDecoder(max_event=max_event)
    events = [ev.data for p in pieces for ev in dec.feed(p)] + [ev.data for ev in dec.finish()]
    return events, [a.kind for a in dec.take_anomalies()]


@pytest.mark.parametrize("cut", [None, *range(1, 24)])
def test_the_fuzzers_input_gives_the_same_events_at_every_cut(cut: int | None) -> None:
    body = b"data: 0123456789abcdef\n\n"  # 16 bytes of data + 64 per line: over max_event=16
    pieces = [body] if cut is None else [body[:cut], body[cut:]]
    events, kinds = _decode(pieces, 16)
    assert events == [] and EVENT_TOO_LARGE in kinds


def test_an_event_just_over_the_default_limit_split_or_whole() -> None:
    body = b"data: " + b"x" * (DEFAULT_MAX_EVENT - 60) + b"\n\n"
    whole = check_bytes(body).codes
    split = check_chunks([body[:-1], body[-1:]], Settings()).codes
    assert whole == split and "W019" in whole


def test_an_event_under_the_limit_is_delivered_whole_or_split() -> None:
    body = b'data: {"a": 1}\n\n'
    for pieces in ([body], [body[:9], body[9:]]):
        events, kinds = _decode(pieces, 1024)
        assert events == ['{"a": 1}'] and EVENT_TOO_LARGE not in kinds
