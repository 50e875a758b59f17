"""A gateway's recorded WebSocket session (a version-2 recording) read back turn by turn, as
``gate --transport websocket`` grades it.

Each turn is the client's ``response.create`` and the server's messages up to the next one.
Its text messages become what the SSE grading reads (:func:`as_sse`): each JSON event as
``event: TYPE`` / ``data: JSON``, at the time of the read that completed it, counted from
the turn's ``response.create``; an ``error`` event before any response is the HTTP error an
SSE client would have got (its ``status``, its ``error`` object as the body), and one later
in the turn the SSE stream's flat ``error`` event. So check's Responses rules, the content
comparison, the expectations and timing run unchanged on the turn (:mod:`.ws_runner`).

What WebSocket adds is what ``check`` finds in the session (:func:`websocket_findings`: the
``websocket`` invariant's rules, S080-S088), put in the turn it is about; the one thing only
a conversation shows is judged here (:func:`closed_between`: the gateway ended the socket
between two turns). A finding from either side is located by message number
(:func:`located`): the session's message, its byte offset in the server's bytes and its line
in the recording.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

import orjson

from sseconform.findings import Finding
from sseconform.gate.rules.transport import WEBSOCKET_BARE_CLOSE
from sseconform.record.websocket import TERMINAL
from sseconform.recording.format import RecordingReader, RecordingWriter, Response
from sseconform.recording.session import session_items
from sseconform.safetext import printable
from sseconform.websocket.frames import CLOSE_CODES, Broken, Closed, Message, sse_event

__all__ = [
    "TERMINAL",
    "AsSse",
    "SessionTurn",
    "SessionTurns",
    "as_sse",
    "at",
    "closed_between",
    "located",
    "read_session",
    "websocket_findings",
    "write_as_sse",
]

#: The most characters of a message a finding quotes.
_SHOWN = 120


@dataclass
class SessionTurn:
    """One ``response.create`` and what the server sent until the next (or the end)."""

    number: int
    sent: Message
    #: the server's data messages (text and binary), in order
    messages: list[Message] = field(default_factory=list)
    #: the server's pings in the turn: its keepalives (a client's WebSocket answers them)
    pings: list[Message] = field(default_factory=list)
    #: the event type that ended the turn (None: none came)
    terminal: str | None = None
    #: how the server's side ended inside this turn: a Close, the TCP end, unreadable bytes
    end: Closed | Broken | None = None

    @property
    def t0(self) -> float:
        """When the turn was sent (seconds from the connection)."""
        return self.sent.t


@dataclass
class SessionTurns:
    """A recorded session: the answer to the upgrade, the turns, how it ended."""

    status: int | None
    turns: list[SessionTurn]
    #: server messages before the first turn (nothing asked for them)
    early: list[Message] = field(default_factory=list)
    #: how the server's side ended (a Close frame, the TCP end, unreadable bytes), if it did
    end: Closed | Broken | None = None
    #: the client closed first (after its last turn, or at a bound)
    client_closed: bool = False
    #: every server Close frame, whoever closed first
    closes: list[Closed] = field(default_factory=list)


def read_session(path: str) -> SessionTurns:
    """The session recorded at ``path``, cut into turns."""
    with open(path, "rb") as fp:
        reader = RecordingReader(fp, path, websocket=True)
        status = reader.response.status if reader.response is not None else None
        s = SessionTurns(status, [])
        for item in session_items(reader):
            turn = s.turns[-1] if s.turns else None
            if isinstance(item, Message):
                if item.by == "client":
                    if item.op == "text":
                        s.turns.append(SessionTurn(len(s.turns) + 1, item))
                    continue
                if item.number == 0:  # a ping or a pong
                    if item.op == "ping" and turn is not None and turn.terminal is None:
                        turn.pings.append(item)
                    continue
                if turn is None:
                    s.early.append(item)
                elif turn.terminal is None:
                    turn.messages.append(item)
                    kind = _type(item)
                    if kind in TERMINAL:
                        turn.terminal = kind
                else:  # after its terminal event: unasked, still the turn's to show
                    turn.messages.append(item)
            elif isinstance(item, Closed) and item.by == "client":
                s.client_closed = s.client_closed or s.end is None
            else:
                if isinstance(item, Closed) and item.frame:
                    s.closes.append(item)
                if s.end is None:
                    s.end = item
                    if turn is not None and turn.terminal is None and not s.client_closed:
                        turn.end = item
    return s


def _type(m: Message) -> str | None:
    obj = m.json()
    kind = obj.get("type") if obj is not None else None
    return kind if isinstance(kind, str) else None


@dataclass
class AsSse:
    """A turn as an SSE answer: the HTTP status and body an SSE client would have got, each
    read's time (from the turn's ``response.create``), and which message each event of the
    body came from (``events``: body offset of each event, ``sources``: its message)."""

    status: int
    reads: list[tuple[float, bytes]]
    complete: bool
    reason: str
    head_t: float = 0.0
    json_body: bool = False
    events: list[int] = field(default_factory=list)
    sources: list[Message] = field(default_factory=list)

    @property
    def body(self) -> bytes:
        return b"".join(data for _, data in self.reads)

    def message_at(self, frame: int | None, offset: int | None) -> Message | None:
        """The message a location in the SSE body came from (an event's number, 1-based,
        or a byte offset)."""
        if frame is not None and 1 <= frame <= len(self.sources):
            return self.sources[frame - 1]
        if offset is not None and self.events:
            i = bisect.bisect_right(self.events, offset) - 1
            return self.sources[max(i, 0)]
        return None


def _flat_error(obj: dict[str, Any], after: int | None) -> dict[str, Any]:
    """WebSocket mode's nested ``error`` event as the SSE stream's flat one. The nested shape
    has no ``sequence_number`` (replay's and the measured clients' do not): the flat one gets
    the number after the last event's (``after``), as the SSE stream would have numbered it."""
    err = obj.get("error")
    if not isinstance(err, dict):
        return obj
    out: dict[str, Any] = {"type": "error"}
    for k in ("code", "message", "param"):
        out[k] = err.get(k)
    if "sequence_number" in obj:
        out["sequence_number"] = obj["sequence_number"]
    elif after is not None:
        out["sequence_number"] = after + 1
    return out


def as_sse(turn: SessionTurn, reason: str = "") -> AsSse:
    """What an SSE client of the Responses endpoint would have read of ``turn``: the
    messages that are one JSON object each, as SSE events (a message that is not one is
    passed over: no client reads it; :func:`websocket_findings` names it), and each of the
    server's pings as an SSE comment (a keepalive, as timing counts one). An ``error`` event
    as the turn's first event is the HTTP error it stands for."""
    objs = [(m, m.json()) for m in turn.messages]
    readable = [(m, o) for m, o in objs if o is not None]
    complete = turn.terminal is not None
    why = reason or ("answered" if complete else "no terminal event")
    if readable and readable[0][1].get("type") == "error":
        m, obj = readable[0]
        err = obj.get("error")
        status = obj.get("status")
        fails = isinstance(status, int) and 100 <= status <= 599 and not 200 <= status < 300
        if isinstance(err, dict) and isinstance(status, int) and fails:
            body = orjson.dumps({"error": err})
            out = AsSse(status, [(m.t - turn.t0, body)], True, why, m.t - turn.t0, True)
            out.events, out.sources = [0], [m]
            return out
    out = AsSse(200, [], complete, why)
    out.head_t = (readable[0][0].t if readable else turn.t0) - turn.t0
    size = 0
    seq: int | None = None
    pings = [(p, None) for p in turn.pings]
    for m, got in sorted([*readable, *pings], key=lambda x: x[0].offset):
        if got is None:  # a ping: a keepalive, no event
            out.reads.append((max(0.0, m.t - turn.t0), b": websocket ping\n\n"))
            size += len(out.reads[-1][1])
            continue
        obj, kind = got, got.get("type")
        if kind == "error":
            obj = _flat_error(obj, seq)
        n = obj.get("sequence_number")
        seq = n if isinstance(n, int) and not isinstance(n, bool) else seq
        chunk = sse_event(m.data if obj is got else orjson.dumps(obj), obj)
        out.events.append(size)
        out.sources.append(m)
        out.reads.append((max(0.0, m.t - turn.t0), chunk))
        size += len(chunk)
    return out


def write_as_sse(
    conv: AsSse, path: str, request: dict[str, Any] | None, *, extra: dict[str, Any]
) -> None:
    """``conv`` as a version-1 recording (what ``check``, ``diff`` and the grading read)."""
    kind = "application/json" if conv.json_body else "text/event-stream"
    w = RecordingWriter(path, request=request, extra=extra, force=True)
    reason = "OK" if conv.status == 200 else "WebSocket error event"
    w.response(Response(conv.status, reason, "HTTP/1.1", [("content-type", kind)]), t=conv.head_t)
    for t, data in conv.reads:
        w.read(t, data)
    end_t = conv.reads[-1][0] if conv.reads else conv.head_t
    w.close(complete=conv.complete, reason=conv.reason if not conv.complete else "eof", t=end_t)


def _shown(m: Message) -> str:
    text = m.data[:_SHOWN].decode("utf-8", "replace")
    return printable(text + ("..." if len(m.data) > _SHOWN else ""))


def at(m: Message | Closed | Broken, message: str, rule: Any, **kw: Any) -> Finding:
    """A finding at a session's message, Close or unreadable bytes."""
    offset = m.offset if m.offset >= 0 else None
    excerpt = _shown(m) if isinstance(m, Message) else None
    return Finding.of(rule, message, offset=offset, line=m.line, excerpt=excerpt, **kw)


def _close_said(c: Closed) -> str:
    if not c.frame:
        return "ended the TCP connection without a Close frame"
    code = "no code" if c.code is None else f"{c.code}"
    name = CLOSE_CODES.get(c.code or 0)
    said = f" ({name})" if name else ""
    reason = f" {printable(c.reason[:80])!r}" if c.reason else ""
    return f"closed the connection (Close {code}{said}{reason})"


def closed_between(s: SessionTurns, k: int) -> Finding | None:
    """Turn ``k`` was due but never sent: the gateway ended the connection after turn
    ``k - 1`` ended (a finding), or the session ended otherwise (None: a bound or a
    failed turn says why)."""
    end = s.end
    if len(s.turns) != k - 1 or not s.turns or s.turns[-1].terminal is None:
        return None
    if not isinstance(end, Closed) or s.client_closed:
        return None
    return at(
        end,
        f"turn {k}: not sent: the gateway {_close_said(end)} after turn {k - 1}'s terminal "
        "event: a conversation's next turn goes on the same socket (previous_response_id "
        "names a response only that connection keeps)",
        WEBSOCKET_BARE_CLOSE,
        turn=k,
    )


def websocket_findings(path: str, s: SessionTurns) -> dict[int, list[Finding]]:
    """What WebSocket adds, as ``check`` finds it in the recorded session (the rules of the
    ``websocket`` invariant, S080-S088: a message that is not one JSON event, a close
    mid-response with no error event, the flat error shape, a close code, unreadable frames,
    ``previous_response_id`` lost), by the turn each is in (0: before the first), each
    located as the turns' findings are: by the session's message number."""
    from sseconform.api import check_file

    result = check_file(path, grammar="responses")
    lines = [t.sent.line for t in s.turns]
    out: dict[int, list[Finding]] = {}
    for f in result.findings:
        if f.invariant != "websocket":
            continue  # the grammar's: each turn's SSE reading is checked by the grading
        k = bisect.bisect_right(lines, f.line) if f.line else len(lines)
        said = f"message {f.frame}: {f.message}" if f.frame is not None else f.message
        out.setdefault(k, []).append(replace(f, message=said, frame=None))
    return out


def located(found: Iterable[Finding], conv: AsSse) -> list[Finding]:
    """Findings made on a turn's SSE reading, located in the session: the message each
    came from (its number first in the message, its offset, line and text)."""
    out = []
    for f in found:
        if f.frame is None and f.offset is None:
            out.append(f)
            continue
        m = conv.message_at(f.frame, f.offset)
        if m is None:
            out.append(replace(f, frame=None, offset=None, excerpt=None))
            continue
        out.append(
            replace(
                f,
                message=f"message {m.number}: {f.message}",
                frame=None,
                offset=m.offset if m.offset >= 0 else None,
                line=m.line,
                excerpt=_shown(m),
            )
        )
    return out
