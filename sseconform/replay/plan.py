"""What a replayed response sends, and when: a recording, a speed, a re-cut and faults in,
a list of timed writes and how the response ends out.

Pure: no sockets, no clock. The server only executes a plan, so every fault and every split
is testable byte for byte without a network.
"""

from __future__ import annotations

import bisect
import contextlib
import io
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from sseconform import providers
from sseconform.errors import InputError
from sseconform.recording.format import (
    RecordingError,
    RecordingReader,
    Sent,
    looks_like_recording,
)
from sseconform.recording.session import session_answers
from sseconform.replay.faults import Faults
from sseconform.replay.session import RecordedSession, recorded_session
from sseconform.sse import SSEDecoder
from sseconform.wires.responses import TURN_ENDS

END = "end"  # terminating chunk: a clean end of the response
ABORT = "abort"  # connection dropped mid-response
STREAM = "stream"  # the recorded stream, as recorded (or as Gemini's JSON array)
WHOLE = "whole"  # a non-streaming request's one JSON answer (see replay.whole)


@dataclass
class Loaded:
    """A recording held in memory, ready to serve."""

    name: str  # the file name; what scenario files and the selection header name
    path: str
    dialect: str | None
    model: str | None
    status: int
    reason: str
    headers: list[tuple[str, str]]
    t_head: float
    reads: list[tuple[float, bytes]]
    complete: bool
    #: its request asked Gemini's non-streaming call: the body is one JSON object
    whole: bool = False
    #: a WebSocket session (format version 2), served again byte for byte on an upgrade;
    #: ``reads`` are then the server's frames, no body a POST could be answered with
    session: RecordedSession | None = None
    #: a session's turns as SSE recordings of their own (turn 1 first): what a POST is
    #: answered with from a session, as the provider's HTTP API streams the same events
    turns: list[Loaded] = field(default_factory=list)
    #: the id of the response each turn answered with -> that turn's index in ``turns``
    answered: dict[str, int] = field(default_factory=dict)

    @cached_property
    def body(self) -> bytes:
        """The whole body, joined once: every response is cut from this one copy."""
        return b"".join(b for _, b in self.reads)

    @cached_property
    def ends(self) -> list[int]:
        """Where each event ends, decoded once (faults and ``event`` splits need it)."""
        return event_ends(self.body)

    @cached_property
    def array(self) -> JSONArray:
        """The body as Gemini's JSON array (no ``alt=sse``), built once per recording."""
        return json_array(self)


def load(path: str) -> Loaded:
    """A recording or a raw SSE body (served as one read at t=0, status 200)."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise InputError("no such file", path) from None
    except IsADirectoryError:
        raise InputError("is a directory", path) from None
    except OSError as exc:
        raise InputError(exc.strerror or str(exc), path) from None
    if not looks_like_recording(data[:64]):
        dialect = providers.detect(data)
        headers = [("content-type", "text/event-stream")]
        raw = Loaded(p.name, path, dialect, None, 200, "OK", headers, 0.0, [(0.0, data)], True)
        raw.__dict__["body"] = data  # the one read is the body: no second copy
        return raw
    try:
        reader = RecordingReader(io.BytesIO(data), path, by="replay", websocket=True)
        if reader.transport == "websocket":
            return _session(p.name, path, reader, data)
        reads = list(reader.reads())
    except RecordingError as exc:
        raise InputError(f"line {exc.line}: {exc.message}", path) from None
    req = reader.request or {}
    url = req.get("url") if isinstance(req.get("url"), str) else None
    body = b"".join(b for _, b in reads)
    dialect = providers.detect(body, url)
    model = None
    if isinstance(req.get("body"), dict) and isinstance(req["body"].get("model"), str):
        model = req["body"]["model"]
    elif url:
        _, model = providers.dialect_of_path(re.sub(r"^[a-z]+://[^/]+", "", url))
    resp = reader.response
    status = resp.status if resp else 200
    headers = list(resp.headers) if resp else [("content-type", "text/event-stream")]
    t_head = (resp.t or 0.0) if resp else 0.0
    reason = resp.reason if resp else "OK"
    loaded = Loaded(
        p.name, path, dialect, model, status, reason, headers, t_head, reads, reader.complete,
        whole=url is not None and providers.asks_whole(url),
    )  # fmt: skip
    loaded.__dict__["body"] = body  # joined once here, shared by every response
    return loaded


def _session(name: str, path: str, reader: RecordingReader, data: bytes) -> Loaded:
    """A WebSocket session's recording, loaded whole: its steps, the server's reads, the
    model its first ``response.create`` named, each turn's answer as an SSE recording."""
    session = recorded_session(reader)
    model = None
    for _, step in session.steps:
        if isinstance(step, Sent):
            with contextlib.suppress(ValueError):
                obj = json.loads(step.text)
                if isinstance(obj, dict) and isinstance(obj.get("model"), str):
                    model = obj["model"]
            break
    resp = reader.response
    reads = [(t, s) for t, s in session.steps if isinstance(s, bytes)]
    loaded = Loaded(
        name, path, providers.RESPONSES, model, resp.status if resp else 101,
        resp.reason if resp else "", list(resp.headers) if resp else [],
        (resp.t or 0.0) if resp else 0.0, reads, reader.complete, session=session,
    )  # fmt: skip
    if loaded.status == 101:
        _turns(loaded, RecordingReader(io.BytesIO(data), path, by="replay", websocket=True))
    return loaded


def _turns(session: Loaded, reader: RecordingReader) -> None:
    """``session.turns``: each turn's events (the server's messages between its
    ``response.create`` and the next) as an SSE stream with their times from it, served as
    a recording of its own; a turn the server never answered gets no events."""
    found: list[int] = []
    events: dict[int, list[tuple[float, bytes]]] = {}
    last: dict[int, str] = {}
    for n, t, event, obj in session_answers(reader, found):
        if n == 0:
            continue  # before any response.create: nothing an HTTP request is answered with
        events.setdefault(n, []).append((t, event))
        kind = obj.get("type")
        last[n] = kind if isinstance(kind, str) else ""
        response = obj.get("response")
        rid = response.get("id") if isinstance(response, dict) else None
        if isinstance(rid, str) and rid not in session.answered:
            session.answered[rid] = n - 1
    headers = [("content-type", "text/event-stream; charset=utf-8")]
    for n in range(1, (found[0] if found else 0) + 1):
        reads = events.get(n, [])
        turn = Loaded(
            f"{session.name} turn {n}", session.path, providers.RESPONSES, session.model, 200,
            "OK", headers, 0.0, reads, last.get(n) in TURN_ENDS,  # else cut
        )  # fmt: skip
        session.turns.append(turn)


# -- plans -----------------------------------------------------------------------------------


@dataclass
class Plan:
    """Timed writes (seconds after the request arrived, already scaled by speed)."""

    status: int
    reason: str
    headers: list[tuple[str, str]]
    t_head: float
    payload: bytes = b""
    #: (time, start, end) of each write in ``payload``: slices of one shared body, so a
    #: response holds offsets, not a copy of the recording
    spans: list[tuple[float, int, int]] = field(default_factory=list)
    ending: str = END
    json_body: bool = False  # an HTTP error body, sent with a length instead of chunks
    #: (offset, fault): the fault has taken effect once the payload's first ``offset`` bytes
    #: are on the wire (the injected error event, the cut last event), in offset order
    marks: list[tuple[int, str]] = field(default_factory=list)
    #: where the write the stall holds back starts (None: the stall delays no write)
    stall_at: int | None = None
    #: the ABORT ending comes before the natural end (a drop after the whole body cuts nothing)
    cut: bool = False
    #: STREAM, or WHOLE: the payload is one JSON answer (or, with no spans, none: a drop),
    #: sent with its length at ``t_head``, when the recorded stream would have ended
    form: str = STREAM
    #: a WHOLE answer's faults that take effect as it is sent (or dropped), in order
    fires: tuple[str, ...] = ()

    @property
    def writes(self) -> list[tuple[float, bytes]]:
        """Each write's time and bytes (copies: for tests and tools, not for serving)."""
        return [(t, self.payload[a:b]) for t, a, b in self.spans]

    def pieces(self, size: int) -> Iterator[tuple[float, int, memoryview, bool]]:
        """What the server sends: each write as views of at most ``size`` bytes, with its time,
        its offset in the payload and whether it starts its write (the later pieces follow it
        at once)."""
        view = memoryview(self.payload)
        for t, a, b in self.spans:
            for off in range(a, b, size):
                yield t, off, view[off : min(b, off + size)], off == a

    @property
    def body(self) -> bytes:
        return self.payload[: self.spans[-1][2]] if self.spans else b""

    @property
    def will_fire(self) -> list[str]:
        """The faults that take effect for a client that reads to the end (the server's
        ``Served.fired`` says what actually did)."""
        if self.form == WHOLE:
            return list(self.fires) + (["drop"] if self.ending == ABORT and self.cut else [])
        out = ["status"] if self.json_body else []
        if self.stall_at is not None:
            out.append("stall")
        out += [name for _, name in self.marks]
        if self.ending == ABORT and self.cut:
            out.append("drop")
        return out


def event_ends(body: bytes) -> list[int]:
    """Byte offsets just past each dispatched event (what faults and ``event`` splits use)."""
    dec = SSEDecoder()
    events = dec.feed(body)
    events += dec.finish()
    return [ev.end for ev in events]


# -- Gemini's JSON array -----------------------------------------------------------------------

#: How Google frames ``streamGenerateContent`` without ``alt=sse``: a JSON array sent as it
#: grows, each element pretty-printed, ``[`` before the first, this between two, ``\n]`` last.
ARRAY_SEPARATOR = b"\n,\r\n"
ARRAY_CLOSE = b"\n]"
ARRAY_CONTENT_TYPE = "application/json; charset=UTF-8"


@dataclass
class JSONArray:
    """A recording's SSE events as Google's streamed JSON array, with the natural writes: the
    first element with its ``[``, each later one with its separator, then the ``]``."""

    payload: bytes
    starts: list[int]  # where each natural write begins
    times: list[float]  # when (the recorded time its event was complete)
    ends: list[int]  # just past each element: what event faults count


def json_array(rec: Loaded) -> JSONArray:
    """The array a Gemini SSE recording would have been without ``alt=sse``.

    Each event's data becomes an element, re-indented the way Google pretty-prints (string
    literals untouched, so escapes such as ``\\u003c`` stay as sent). An element leaves when
    its event was complete. A body that ends inside an event (a recording of a cut stream)
    gets no closing bracket: the array is cut too."""
    body = rec.body
    dec = SSEDecoder()
    events = dec.feed(body) + dec.finish()
    read_starts, read_times = read_index(rec)

    def recorded(offset: int) -> float:
        i = bisect.bisect_right(read_starts, max(offset, 0)) - 1
        return read_times[max(i, 0)]

    units: list[tuple[float, bytes]] = []
    ends: list[int] = []
    size = 0
    for ev in events:
        if not ev.data.strip():
            continue
        unit = (ARRAY_SEPARATOR if units else b"[") + indent_json(ev.data).encode()
        units.append((recorded(ev.end - 1), unit))
        size += len(unit)
        ends.append(size)
    last = events[-1].end if events else 0
    t_end = recorded(len(body) - 1) if body else rec.t_head
    if not body[last:].strip():
        units.append((t_end, ARRAY_CLOSE if units else b"[]"))
    elif not units:
        units.append((t_end, b"["))
    starts, pos = [], 0
    for _, unit in units:
        starts.append(pos)
        pos += len(unit)
    return JSONArray(b"".join(u for _, u in units), starts, [t for t, _ in units], ends)


_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\],:]|[^\s{}\[\],:"]+')


def indent_json(text: str) -> str:
    """JSON text re-indented as Google's array elements are (two spaces, ``"key": value``),
    token by token; text that is not JSON is kept as it is."""
    try:
        json.loads(text)
    except ValueError:
        return text
    tokens = _JSON_TOKEN.findall(text)
    out: list[str] = []
    depth = 0
    skip = False
    for i, tok in enumerate(tokens):
        if skip:
            skip = False
            continue
        if tok in ("{", "["):
            closer = "}" if tok == "{" else "]"
            if i + 1 < len(tokens) and tokens[i + 1] == closer:
                out.append(tok + closer)  # an empty object or array stays on its line
                skip = True
                continue
            depth += 1
            out.append(tok + "\n" + "  " * depth)
        elif tok in ("}", "]"):
            depth -= 1
            out.append("\n" + "  " * depth + tok)
        elif tok == ",":
            out.append(",\n" + "  " * depth)
        elif tok == ":":
            out.append(": ")
        else:
            out.append(tok)
    return "".join(out)


def _array_error(at: int) -> bytes:
    """Gemini's in-band error as one more element, then the end of the array."""
    element = indent_json(json.dumps(providers.error_data(providers.GEMINI))).encode()
    return (ARRAY_SEPARATOR if at else b"[") + element + ARRAY_CLOSE


# -- making a plan ---------------------------------------------------------------------------


def read_index(rec: Loaded) -> tuple[list[int], list[float]]:
    """Where each recorded read began in the body, and when it came."""
    starts: list[int] = []
    times: list[float] = []
    pos = 0
    for t, data in rec.reads:
        starts.append(pos)
        times.append(t)
        pos += len(data)
    if not starts:
        return [0], [rec.t_head]
    return starts, times


def make_plan(
    rec: Loaded,
    *,
    speed: float = 1.0,
    split: str | int | None = None,
    faults: Faults | None = None,
    array: bool = False,
) -> Plan:
    """Everything the response will do; ``speed`` 0 sends as fast as possible.

    The body is cut to what the faults let through (a drop that comes first wins over a later
    error event), the dialect's error event is appended where asked, then the whole is cut
    into writes: at the recorded reads, or only where ``split`` says (``crlf`` adds its cuts to
    the recorded ones). Each write leaves at the time of the read that held its first byte.

    ``array`` answers as Gemini does without ``alt=sse``: the same events as a streamed JSON
    array (see ``json_array``), each element a write at the time its event was complete; the
    faults count elements instead of events and bytes of the array.
    """
    faults = faults or Faults()
    if faults.status is not None:
        return _status_plan(rec, faults.status)
    scale = 0.0 if speed == 0 else 1.0 / speed
    headers = [(k, v) for k, v in rec.headers if k.lower() not in HOP_BY_HOP]
    if array:
        shape = rec.array
        body, starts, times, ends = shape.payload, shape.starts, shape.times, shape.ends
        past_end = ends[-1] if ends else 0  # an error past the last element: before the "]"
        headers = [(k, v) for k, v in headers if k.lower() != "content-type"]
        headers.insert(0, ("content-type", ARRAY_CONTENT_TYPE))
    else:
        body = rec.body
        starts, times = read_index(rec)
        ends = rec.ends if (faults or split == "event") else []
        past_end = len(body)
    limit, ending, tail, marks = _ending(rec, body, ends, past_end, faults, array)
    # The recording's own body when nothing is appended: every response shares one copy.
    payload = body[:limit] + tail if tail else body
    size = limit + len(tail)
    cuts = _cuts(split, starts, ends, limit, payload)
    stall_at = None
    if faults.stall is not None:
        stall_at = _after(ends, faults.stall[1], len(body))
        if stall_at > limit:  # past a drop or an error: never reached
            stall_at = None
        else:
            cuts.add(stall_at)
    delay = faults.stall[0] if faults.stall is not None else 0.0

    def time_at(offset: int) -> float:
        i = bisect.bisect_right(starts, min(offset, max(limit - 1, 0))) - 1
        return times[max(i, 0)] * scale

    order = sorted(c for c in cuts | {0} if 0 <= c < size)
    spans: list[tuple[float, int, int]] = []
    for i, a in enumerate(order):
        b = order[i + 1] if i + 1 < len(order) else size
        t = time_at(a)
        if stall_at is not None and a >= stall_at:
            t += delay
        spans.append((t, a, b))
    plan = Plan(rec.status, rec.reason, headers, rec.t_head * scale, payload, spans, ending)
    plan.marks = marks
    if stall_at is not None and delay > 0:
        plan.stall_at = stall_at if stall_at < size else None
    plan.cut = ending == ABORT and limit < len(body)
    return plan


def _status_plan(rec: Loaded, status: int) -> Plan:
    """``status=CODE``: the dialect's HTTP error body, with its length, before any stream."""
    body = providers.error_body(rec.dialect, status)
    headers = [("content-type", "application/json")]
    headers += providers.error_headers(rec.dialect, status)
    return Plan(status, reason_phrase(status), headers, 0.0, body, [(0.0, 0, len(body))], END, True)


def _ending(
    rec: Loaded, body: bytes, ends: list[int], past_end: int, faults: Faults, array: bool
) -> tuple[int, str, bytes, list[tuple[int, str]]]:
    """Where the body stops, how the response ends, what is appended (the error event) and
    the marks of the faults that cut it: (limit, ending, tail, marks)."""
    drop = None
    if faults.drop_after_events is not None:
        drop = _after(ends, faults.drop_after_events, len(body))
    if faults.drop_after_bytes is not None:
        drop = min(len(body) if drop is None else drop, faults.drop_after_bytes)
    error = _after(ends, faults.error_at, past_end) if faults.error_at is not None else None
    ending = END
    tail = b""
    limit = len(body)
    if drop is not None and (error is None or drop <= error):
        limit, ending = drop, ABORT
    elif error is not None:
        limit = error
        if array:
            tail = _array_error(limit)
        else:
            seq = _next_sequence(body[:limit]) if rec.dialect == providers.RESPONSES else 0
            tail = providers.error_event(rec.dialect, _framing(body), sequence_number=seq)
    marks: list[tuple[int, str]] = []
    if faults.truncate_last and ends and tail == b"":
        last_end = max((e for e in ends if e <= limit), default=0)
        if last_end:
            first = max((e for e in ends if e < last_end), default=0)
            limit = min(limit, first + max(1, (last_end - first) // 2))
            marks.append((limit, "truncate"))
    if tail:
        marks.append((limit + len(tail), "error"))
    return limit, ending, tail, marks


def _cuts(
    split: str | int | None, starts: list[int], ends: list[int], limit: int, payload: bytes
) -> set[int]:
    """Where the payload is cut into writes: at the recorded reads (``crlf`` adds a cut after
    each CR of a CRLF), at event ends, or every ``split`` bytes."""
    cuts: set[int] = set()
    if split is None or split == "crlf":
        cuts.update(starts)
        cuts.add(limit)  # the injected event is a write of its own
    if split == "crlf":
        cuts.update(m.start() + 1 for m in re.finditer(rb"\r\n", payload))
    elif split == "event":
        cuts.update(e for e in ends if e < limit)
        cuts.add(limit)
    elif isinstance(split, int):
        cuts.update(range(0, len(payload), split))
    return cuts


# -- can a fault fire? -----------------------------------------------------------------------


def fault_problems(rec: Loaded, faults: Faults) -> list[str]:
    """Each fault that cannot take effect on this recording as placed, in plain words: a test
    built on one would test nothing and still pass. Answered for the SSE stream (a Gemini
    client that asks for the JSON array gets the same elements)."""
    names = _fault_names(faults)
    if faults.status is not None:
        others = [n for n in names if not n.startswith("status=")]
        return [
            f"{n}: status={faults.status} answers with an HTTP error before any stream, so "
            "it never happens"
            for n in others
        ]
    plan = make_plan(rec, speed=0, faults=faults)
    fires = set(plan.will_fire)
    n, size = len(rec.ends), len(rec.body)
    has = f"the recording has {_count_of(n, 'event')}"
    out: list[str] = []
    if "drop" not in fires:
        if faults.drop_after_events is not None:
            out.append(
                f"drop-after-events={faults.drop_after_events}: {has}, so the drop would come "
                "after the whole stream"
            )
        if faults.drop_after_bytes is not None:
            out.append(
                f"drop-after-bytes={faults.drop_after_bytes}: the body is "
                f"{_count_of(size, 'byte')}, so the drop would come after the whole stream"
            )
    if faults.error_at is not None:
        spec = f"error-at={faults.error_at}"
        if faults.error_at > n:
            out.append(f"{spec}: {has}, so the error would come after the whole stream")
        elif "error" not in fires:
            out.append(f"{spec}: the drop comes first, so the error is never sent")
    if faults.stall is not None and "stall" not in fires:
        seconds, after = faults.stall
        spec = f"stall={seconds:g}@{after}"
        if seconds == 0:
            out.append(f"{spec}: a stall of 0 seconds delays nothing")
        elif _after(rec.ends, after, size) >= size:
            out.append(f"{spec}: stall after event {after}, but {has}: nothing is left to delay")
        else:
            out.append(f"{spec}: the drop or the error comes first, so the stall never starts")
    if faults.truncate_last and "truncate" not in fires:
        if not n:
            out.append("truncate-last: the body has no events to cut")
        elif faults.error_at is not None and "error" in fires:
            out.append("truncate-last: the injected error event is the last one, and it is whole")
        else:
            out.append("truncate-last: the drop comes before the first event ends")
    return out


def _fault_names(faults: Faults) -> list[str]:
    """Each fault set, as it is written in a spec."""
    out = []
    if faults.status is not None:
        out.append(f"status={faults.status}")
    if faults.drop_after_events is not None:
        out.append(f"drop-after-events={faults.drop_after_events}")
    if faults.drop_after_bytes is not None:
        out.append(f"drop-after-bytes={faults.drop_after_bytes}")
    if faults.stall is not None:
        out.append(f"stall={faults.stall[0]:g}@{faults.stall[1]}")
    if faults.error_at is not None:
        out.append(f"error-at={faults.error_at}")
    if faults.truncate_last:
        out.append("truncate-last")
    return out


def _count_of(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _next_sequence(sent: bytes) -> int:
    """One past the last ``sequence_number`` sent (Responses numbers every event)."""
    found = re.findall(rb'"sequence_number"\s*:\s*(\d+)', sent)
    return int(found[-1]) + 1 if found else 0


HOP_BY_HOP = frozenset(
    {
        "content-length",
        "transfer-encoding",
        "connection",
        "keep-alive",
        "content-encoding",
        "date",
        "server",
    }
)


def _after(ends: list[int], n: int, total: int) -> int:
    """Offset just past event ``n`` (0: before the first); the whole body past the last."""
    if n <= 0:
        return 0
    return ends[n - 1] if n <= len(ends) else total


def _framing(body: bytes) -> bytes:
    """Write an injected event with the line endings the stream itself uses."""
    if b"\r\n" in body[:4096]:
        return b"\r\n"
    return b"\n"


def reason_phrase(status: int) -> str:
    from http import HTTPStatus

    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return {529: "Overloaded"}.get(status, "Error")
