"""A version-2 recording (a WebSocket session) read back as messages, either way, in order.

The server's reads are decoded by :class:`sseconform.websocket.frames.ServerFrames`; the
client's side is the recording's ``sent`` lines (its frames were masked and not kept: their
text is). One message count runs through both, so "message 12" names one message of the
session whichever side sent it.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from typing import Any

from sseconform.recording.format import RecordingReader, Sent
from sseconform.websocket.frames import (
    Closed,
    Item,
    Message,
    ServerFrames,
    deflate_agreed,
    sse_event,
)

__all__ = ["session_answers", "session_items", "turn_events"]


def session_items(reader: RecordingReader) -> Iterator[Item]:
    """Every message of a recorded session in order, the client's (``sent`` lines) among the
    server's, then how it closed (a Close frame, or the recording's end line saying the TCP
    connection ended). Nothing for a refused upgrade (its reads are an HTTP body)."""
    response = reader.response
    if response is None or response.status != 101:
        for _ in reader.reads():
            pass
        return
    frames = ServerFrames(deflate=deflate_agreed(response.header("sec-websocket-extensions")))
    t = 0.0
    for t, item in reader.session():
        if isinstance(item, Sent):
            number = 0
            if item.op in ("text", "binary"):
                frames.count += 1
                number = frames.count
            data = base64.b64decode(item.text) if item.op == "binary" else item.text.encode("utf-8")
            yield Message(number, t, "client", item.op, data, -1, reader.read_line)
        else:
            yield from frames.feed(t, item, reader.read_line)
    end = reader.end
    t_end = end.t if end is not None and end.t is not None else t
    yield from frames.finish(t_end)
    close = end.close if end is not None else None
    if close is not None and close.by == "client":
        yield Closed(t_end, "client", close.code, close.reason, -1, 0)
    elif not frames.closed and not frames.broken:
        yield Closed(t_end, "server", None, "", frames.bytes, 0, frame=False)


def session_answers(
    reader: RecordingReader, found: list[int] | None = None
) -> Iterator[tuple[int, float, bytes, dict[str, Any]]]:
    """Each turn's answer as the SSE stream it would be over HTTP: ``(turn, seconds since
    that turn's response.create, event, its JSON)`` for each server message after the client's
    ``turn``-th ``response.create`` and before the next (turn 0: what came before any). A
    message that is not one JSON object is left out (``check`` names it: S080). ``found``
    gets the number of turns the session has (appended once the reading is done)."""
    n, t0 = 0, 0.0
    for item in session_items(reader):
        if not isinstance(item, Message) or not item.number:
            continue
        if item.by == "client":
            n += 1
            t0 = item.t
            continue
        obj = item.json()
        if obj is not None:
            yield n, max(0.0, item.t - t0), sse_event(item.data, obj), obj
    if found is not None:
        found.append(n)


def turn_events(
    reader: RecordingReader, turn: int, found: list[int]
) -> Iterator[tuple[float, bytes]]:
    """Turn ``turn``'s answer (see :func:`session_answers`): what a viewer of one stream
    shows of a session. ``found`` as there."""
    for n, t, event, _ in session_answers(reader, found):
        if n == turn:
            yield t, event
